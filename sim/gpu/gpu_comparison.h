// The side-by-side table of `npusim gpu`: per layer, the simulator's cycles
// and time beside each GPU kernel's time and cycles, the speed-ups over the
// float baseline, and whether the GPU output equals the simulator's. Plain
// numbers in, text or JSON out; knows nothing of the configs or CUDA.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/gpu/gpu_runner.h"

namespace npusim::gpu {

enum class Match { Yes, No, NotChecked };
const char* to_string(Match m);  // "yes", "NO", "n/a"

struct KernelComparison {
  KernelTiming timing;
  Match match = Match::NotChecked;
  std::string note;  // why not checked, or the first mismatch
};

struct LayerComparison {
  std::string name, dtype, shape;
  uint64_t sim_cycles = 0;
  double sim_us = 0;  // sim_cycles / NPU clock
  std::vector<KernelComparison> kernels;
  // Median time of the float kernel over this kernel's; 0 when either is missing.
  double speedup_over_float(KernelKind kind) const;
  bool all_match() const;  // no kernel says No
};

struct GpuComparison {
  DeviceInfo device;
  double npu_clock_mhz = 0;
  int repeats = 0;
  std::string tiling;  // the tiling rule: "fill" or "largest"
  std::vector<LayerComparison> layers;
};

// GPU cycles at the SM clock: median kernel time x cudaDevAttrClockRate.
double cycles_at_sm_clock(const KernelTiming& t, int sm_clock_khz);

void print_comparison_table(std::ostream& out, const GpuComparison& c);
nlohmann::json comparison_json(const GpuComparison& c);

}  // namespace npusim::gpu
