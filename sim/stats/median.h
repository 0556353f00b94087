// The median of a set of figures: the report's estimator error and the GPU
// path's kernel timings.
#pragma once

#include <algorithm>
#include <vector>

namespace npusim {

// The median of `v` (the mean of the middle two for an even count); 0 if empty.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace npusim
