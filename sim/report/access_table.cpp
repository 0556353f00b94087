// The seed 001 section of the summary: per layer, the input bytes each
// load.access mode reads from DRAM for the same tiling, their ratio to
// host_im2col (the unrolled matrix materialised in DRAM), and the largest
// input tile each mode holds in the cache. The "mode" column is the layer's
// own (its "access", else load.access); that mode's column is what the run
// really read (load.input_dram_bytes). "layouts" names how the layer's input
// and output lie in DRAM. Formulas: docs/address-generator.md.
#include <cstdio>
#include <string>

#include "sim/report/report.h"

namespace npusim {

void print_access_table(std::ostream& out, const RunSummary& s) {
  const StatsRegistry& st = *s.stats;
  if (st.find("load.input_rows_bytes") == nullptr) return;  // a registry without load facts
  const Counter* traffic[] = {&st.get("load.input_rows_bytes"), &st.get("load.im2col_matrix_bytes"),
                              &st.get("load.mec_matrix_bytes")};
  const Counter* footprint[] = {&st.get("load.footprint_im2col_bytes"),
                                &st.get("load.footprint_host_im2col_bytes"),
                                &st.get("load.footprint_mec_bytes")};
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %-11s %-14s %12s %12s %12s %9s %9s   %s\n",
                "input reads per mode", "mode", "layouts", "im2col", "host_im2col", "mec",
                "im2col %", "mec %", "largest tile: im2col / host_im2col / mec");
  out << line;
  const auto kib = [](uint64_t b) { return double(b) / 1024.0; };
  auto print = [&](const std::string& name, const char* mode, const std::string& layouts,
                   const uint64_t t[3], const uint64_t f[3]) {
    const auto ratio = [&](uint64_t v) { return t[1] == 0 ? 0.0 : 100.0 * double(v) / t[1]; };
    std::snprintf(line, sizeof line,
                  "%-24s %-11s %-14s %12.1f %12.1f %12.1f %8.1f%% %8.1f%%   %.1f / %.1f / %.1f\n",
                  name.c_str(), mode, layouts.c_str(), kib(t[0]), kib(t[1]), kib(t[2]), ratio(t[0]),
                  ratio(t[2]), kib(f[0]), kib(f[1]), kib(f[2]));
    out << line;
  };
  for (uint32_t l = 0; l < st.layers(); ++l) {
    const uint64_t t[3] = {traffic[0]->at(l), traffic[1]->at(l), traffic[2]->at(l)};
    const uint64_t f[3] = {footprint[0]->at(l), footprint[1]->at(l), footprint[2]->at(l)};
    const LayerConfig& layer = s.network->layers[l];
    // The vector unit reads no lowered input; the what-if figures of the other
    // modes are plain-geometry formulas.
    if (!runs_on_array(layer.op) || !layer.plain_geometry()) continue;
    const std::string layouts =
        std::string(layer.is_binary() ? "packed" : to_string(layer.input_layout)) + ">" +
        (output_bits_of(*s.network, l) != 0 ? "packed" : to_string(layer.output_layout));
    print(layer.name, to_string(layer.access_on(*s.hw)), layouts, t, f);
  }
  const uint64_t t[3] = {traffic[0]->total(), traffic[1]->total(), traffic[2]->total()};
  const uint64_t f[3] = {footprint[0]->total(), footprint[1]->total(), footprint[2]->total()};
  print("total", "", "", t, f);
  out << "KiB the input loads read from DRAM for the same tiles in each load.access mode (mode: "
         "the layer's own; host_im2col's host also writes its matrix); layouts: input>output in "
         "DRAM; %: of host_im2col; largest tile: KiB of input held in the cache\n\n";
}

}  // namespace npusim
