// Timing helpers shared by the CUDA and the CUDA-less builds.
#include <algorithm>

#include "sim/gpu/gpu_runner.h"

namespace npusim::gpu {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace npusim::gpu
