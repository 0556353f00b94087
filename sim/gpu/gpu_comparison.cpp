#include "sim/gpu/gpu_comparison.h"

#include <cstdio>

namespace npusim::gpu {
namespace {

const KernelComparison* find(const LayerComparison& l, KernelKind kind) {
  for (const KernelComparison& k : l.kernels)
    if (k.timing.kind == kind) return &k;
  return nullptr;
}

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

std::string speedup_text(double s) { return s > 0 ? fixed(s, 2) + "x" : "-"; }

}  // namespace

const char* to_string(Match m) { return m == Match::Yes ? "yes" : m == Match::No ? "NO" : "n/a"; }

double LayerComparison::speedup_over_float(KernelKind kind) const {
  const KernelComparison* f = find(*this, KernelKind::Float);
  const KernelComparison* k = find(*this, kind);
  if (f == nullptr || k == nullptr || k->timing.median_ms <= 0) return 0;
  return f->timing.median_ms / k->timing.median_ms;
}

bool LayerComparison::all_match() const {
  for (const KernelComparison& k : kernels)
    if (k.match == Match::No) return false;
  return true;
}

double cycles_at_sm_clock(const KernelTiming& t, int sm_clock_khz) {
  return t.median_ms * double(sm_clock_khz);  // ms x kHz = cycles
}

void print_comparison_table(std::ostream& out, const GpuComparison& c) {
  char line[400];
  out << "device: " << c.device.name << " (sm_" << c.device.compute_major << c.device.compute_minor
      << ", " << c.device.sm_count << " SMs, SM clock " << fixed(c.device.sm_clock_khz / 1000.0, 0)
      << " MHz); NPU clock " << fixed(c.npu_clock_mhz, 0) << " MHz; GPU times are medians of "
      << c.repeats << " launches; tiling rule '" << c.tiling << "'\n";
  std::snprintf(line, sizeof line, "%-20s %-6s %-22s %12s %11s  %-6s %11s %13s %13s %9s  %s\n",
                "layer", "dtype", "shape", "sim_cycles", "sim_us", "kernel", "gpu_us", "gpu_cycles",
                "block_cyc_max", "vs_float", "match");
  out << line << std::string(150, '-') << '\n';
  for (const LayerComparison& l : c.layers) {
    bool first = true;
    for (const KernelComparison& k : l.kernels) {
      const double speedup =
          k.timing.kind == KernelKind::Float ? 1.0 : l.speedup_over_float(k.timing.kind);
      std::snprintf(
          line, sizeof line, "%-20s %-6s %-22s %12s %11s  %-6s %11.3f %13.0f %13llu %9s  %s%s\n",
          first ? l.name.c_str() : "", first ? l.dtype.c_str() : "", first ? l.shape.c_str() : "",
          first ? std::to_string(l.sim_cycles).c_str() : "",
          first ? fixed(l.sim_us, 3).c_str() : "", to_string(k.timing.kind),
          k.timing.median_ms * 1000.0, cycles_at_sm_clock(k.timing, c.device.sm_clock_khz),
          static_cast<unsigned long long>(k.timing.max_block_cycles), speedup_text(speedup).c_str(),
          to_string(k.match), k.note.empty() ? "" : ("  (" + k.note + ")").c_str());
      out << line;
      first = false;
    }
  }
  out << "gpu_cycles: median kernel time x SM clock; block_cyc_max: the longest block's clock64 "
         "cycles; vs_float: float kernel time / this kernel's time\n";
}

nlohmann::json comparison_json(const GpuComparison& c) {
  nlohmann::json j;
  j["device"] = {{"index", c.device.index},
                 {"name", c.device.name},
                 {"compute_capability", std::to_string(c.device.compute_major) + "." +
                                            std::to_string(c.device.compute_minor)},
                 {"sm_count", c.device.sm_count},
                 {"sm_clock_khz", c.device.sm_clock_khz},
                 {"shared_bytes_per_block", c.device.limits.shared_bytes_per_block},
                 {"registers_per_block", c.device.limits.registers_per_block}};
  j["npu_clock_mhz"] = c.npu_clock_mhz;
  j["repeats"] = c.repeats;
  j["tiling"] = c.tiling;
  j["layers"] = nlohmann::json::array();
  for (const LayerComparison& l : c.layers) {
    nlohmann::json lj = {{"name", l.name},     {"dtype", l.dtype},
                         {"shape", l.shape},   {"sim_cycles", l.sim_cycles},
                         {"sim_us", l.sim_us}, {"match", l.all_match()}};
    lj["kernels"] = nlohmann::json::array();
    for (const KernelComparison& k : l.kernels) {
      nlohmann::json times = nlohmann::json::array();
      for (double ms : k.timing.times_ms) times.push_back(ms * 1000.0);
      lj["kernels"].push_back(
          {{"kernel", to_string(k.timing.kind)},
           {"tiling", k.timing.plan},
           {"median_us", k.timing.median_ms * 1000.0},
           {"times_us", times},
           {"gpu_cycles_at_sm_clock", cycles_at_sm_clock(k.timing, c.device.sm_clock_khz)},
           {"blocks", k.timing.blocks},
           {"max_block_cycles", k.timing.max_block_cycles},
           {"mean_block_cycles", k.timing.mean_block_cycles},
           {"speedup_over_float",
            k.timing.kind == KernelKind::Float ? 1.0 : l.speedup_over_float(k.timing.kind)},
           {"match", to_string(k.match)},
           {"note", k.note}});
    }
    j["layers"].push_back(lj);
  }
  return j;
}

}  // namespace npusim::gpu
