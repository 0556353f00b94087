// CSV quoting (RFC 4180) for every CSV npusim writes: layers.csv, npusim
// diff's table and a sweep's results.csv.
#pragma once

#include <string>

namespace npusim {

// One CSV field, quoted only when it holds a separator, quote or newline.
std::string csv_field(const std::string& v);
// A number as CSV text: nine significant digits, exact enough, and no exponent
// for cycle counts.
std::string csv_number(double v);

}  // namespace npusim
