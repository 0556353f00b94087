#include <cstdio>
#include <string>

#include "sim/report/report.h"
#include "sim/report/row_selection.h"

namespace npusim {

void print_sparsity_table(std::ostream& out, const RunSummary& s, TableWidth width) {
  const StatsRegistry& st = *s.stats;
  if (st.find("weights.nonzeros") == nullptr) return;  // a registry without weight facts
  const Counter& nonzeros = st.get("weights.nonzeros");
  const Counter& coefficients = st.get("weights.coefficients");
  const Counter& work = st.get("compute.work_cycles");
  const Counter& dense = st.get("compute.dense_work_cycles");
  if (nonzeros.total() == coefficients.total()) return;
  const auto density_of = [](uint64_t nz, uint64_t all) {
    return all == 0 ? 1.0 : double(nz) / double(all);
  };
  const auto speed_up = [](uint64_t w, uint64_t d) { return w == 0 ? 1.0 : double(d) / double(w); };
  char line[256];
  // Compact: a run whose zeros gain the array under 1 % (seeded weights, about 0.4 % zero)
  // gets one line, not a table of 1.00x.
  const double total_gain = speed_up(work.total(), dense.total());
  if (width == TableWidth::Compact && total_gain < 1.01) {
    std::snprintf(line, sizeof line,
                  "zero skipping    : %.2fx array speed-up at %.1f %% weight density (run --wide: "
                  "each layer)\n\n",
                  total_gain, 100.0 * density_of(nonzeros.total(), coefficients.total()));
    out << line;
    return;
  }
  std::snprintf(line, sizeof line, "%-24s %14s %8s %14s %14s %9s %7s\n", "zero skipping",
                "non-zeros", "density", "array cycles", "dense cycles", "speed-up", "ideal");
  out << line;
  auto print = [&](const std::string& name, uint64_t nz, uint64_t all, uint64_t w, uint64_t d) {
    const double density = density_of(nz, all);
    std::snprintf(line, sizeof line, "%-24s %14llu %7.1f%% %14llu %14llu %8.2fx %6.2fx\n",
                  name.c_str(), static_cast<unsigned long long>(nz), 100.0 * density,
                  static_cast<unsigned long long>(w), static_cast<unsigned long long>(d),
                  speed_up(w, d), density == 0.0 ? 0.0 : 1.0 / density);
    out << line;
  };
  // Compact, on a large workload: the layers that gain most cycles, and the rest summed.
  const uint32_t n = st.layers();
  std::vector<uint64_t> gain(n);
  std::vector<bool> on_array(n);
  for (uint32_t l = 0; l < n; ++l) {
    on_array[l] = runs_on_array(s.network->layers[l].op);  // vector operators have no kernels
    gain[l] = dense.at(l) > work.at(l) ? dense.at(l) - work.at(l) : 0;
  }
  RowSelection rows;
  if (width == TableWidth::Wide) {
    for (uint32_t l = 0; l < n; ++l)
      if (on_array[l]) rows.shown.push_back(l);
  } else {
    rows = select_rows(gain, on_array);
  }
  for (const uint32_t l : rows.shown)
    print(s.network->layers[l].name, nonzeros.at(l), coefficients.at(l), work.at(l), dense.at(l));
  if (!rows.rest.empty()) {
    uint64_t nz = 0, all = 0, w = 0, d = 0;
    for (const uint32_t l : rows.rest) {
      nz += nonzeros.at(l), all += coefficients.at(l), w += work.at(l), d += dense.at(l);
    }
    print("(" + std::to_string(rows.rest.size()) + " more)", nz, all, w, d);
  }
  print("total", nonzeros.total(), coefficients.total(), work.total(), dense.total());
  out << "speed-up: dense array cycles / zero-skip array cycles (compute only; the run's cycles\n"
         "also hold memory time); ideal: 1 / density";
  if (!rows.rest.empty())
    out << "; the " << rows.shown.size()
        << " layers that gain most cycles, in program order; run --wide: every layer";
  out << "\n\n";
}

}  // namespace npusim
