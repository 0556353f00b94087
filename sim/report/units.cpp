#include "sim/report/units.h"

#include <cstdio>

namespace npusim {

namespace {

std::string with_unit(const char* format, double value, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return std::string(buf) + " " + unit;
}

}  // namespace

std::string bytes_text(uint64_t bytes) {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
  const double b = static_cast<double>(bytes);
  if (b < kKiB) return std::to_string(bytes) + " B";
  if (b < kMiB) return with_unit("%.1f", b / kKiB, "KiB");
  if (b < kGiB) return with_unit("%.1f", b / kMiB, "MiB");
  return with_unit("%.2f", b / kGiB, "GiB");
}

std::string duration_text(double seconds) {
  if (seconds < 1e-3) return with_unit("%.3f", seconds * 1e6, "us");
  if (seconds < 1.0) return with_unit("%.3f", seconds * 1e3, "ms");
  return with_unit("%.3f", seconds, "s");
}

std::string energy_text(double microjoules) {
  if (microjoules < 1e3) return with_unit("%.3f", microjoules, "uJ");
  if (microjoules < 1e6) return with_unit("%.3f", microjoules / 1e3, "mJ");
  return with_unit("%.3f", microjoules / 1e6, "J");
}

}  // namespace npusim
