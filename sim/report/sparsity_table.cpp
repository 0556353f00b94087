#include <cstdio>
#include <string>

#include "sim/report/report.h"

namespace npusim {

void print_sparsity_table(std::ostream& out, const RunSummary& s) {
  const StatsRegistry& st = *s.stats;
  if (st.find("weights.nonzeros") == nullptr) return;  // a registry without weight facts
  const Counter& nonzeros = st.get("weights.nonzeros");
  const Counter& coefficients = st.get("weights.coefficients");
  const Counter& work = st.get("compute.work_cycles");
  const Counter& dense = st.get("compute.dense_work_cycles");
  if (nonzeros.total() == coefficients.total()) return;
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %14s %8s %14s %14s %9s %7s\n", "zero skipping",
                "non-zeros", "density", "array cycles", "dense cycles", "speed-up", "ideal");
  out << line;
  auto print = [&](const std::string& name, uint64_t nz, uint64_t all, uint64_t w, uint64_t d) {
    const double density = all == 0 ? 1.0 : double(nz) / double(all);
    std::snprintf(line, sizeof line, "%-24s %14llu %7.1f%% %14llu %14llu %8.2fx %6.2fx\n",
                  name.c_str(), static_cast<unsigned long long>(nz), 100.0 * density,
                  static_cast<unsigned long long>(w), static_cast<unsigned long long>(d),
                  w == 0 ? 1.0 : double(d) / double(w), density == 0.0 ? 0.0 : 1.0 / density);
    out << line;
  };
  for (uint32_t l = 0; l < st.layers(); ++l)
    if (runs_on_array(s.network->layers[l].op))  // vector operators have no kernels
      print(s.network->layers[l].name, nonzeros.at(l), coefficients.at(l), work.at(l), dense.at(l));
  print("total", nonzeros.total(), coefficients.total(), work.total(), dense.total());
  out << "speed-up: dense array cycles / zero-skip array cycles (compute only; the run's cycles\n"
         "also hold memory time); ideal: 1 / density\n\n";
}

}  // namespace npusim
