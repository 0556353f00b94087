#include "sim/report/row_selection.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "sim/graph/op_table.h"

namespace npusim {

RowSelection select_rows(const std::vector<uint64_t>& weight, const std::vector<bool>& eligible) {
  RowSelection r;
  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < weight.size(); ++i)
    if (eligible.at(i)) candidates.push_back(i);
  if (candidates.size() <= kFullTableRows) {
    r.shown = std::move(candidates);
    return r;
  }
  std::vector<uint32_t> by_weight = candidates;
  std::stable_sort(by_weight.begin(), by_weight.end(),
                   [&](uint32_t a, uint32_t b) { return weight[a] > weight[b]; });
  std::vector<bool> top(weight.size(), false);
  for (size_t k = 0; k < kTopRows; ++k) top[by_weight[k]] = true;
  for (uint32_t i : candidates) (top[i] ? r.shown : r.rest).push_back(i);
  return r;
}

std::string shortened(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  const size_t head = (max - 1) / 2, tail = max - 1 - head;
  return text.substr(0, head) + "~" + text.substr(text.size() - tail);
}

namespace {

// Positions of the cut names whose short form another, different name shares.
std::vector<size_t> clashing_short_names(const std::vector<std::string>& names,
                                         const std::vector<std::string>& short_names, size_t max) {
  std::map<std::string, std::set<std::string>> originals;
  for (size_t i = 0; i < names.size(); ++i) originals[short_names[i]].insert(names[i]);
  std::vector<size_t> clashing;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].size() > max && originals[short_names[i]].size() > 1) clashing.push_back(i);
  return clashing;
}

}  // namespace

std::vector<std::string> distinct_short_names(const std::vector<std::string>& names,
                                              const std::vector<uint32_t>& ids, size_t max) {
  std::vector<std::string> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) out[i] = shortened(names[i], max);
  for (const size_t i : clashing_short_names(names, out, max))
    out[i] = "~" + names[i].substr(names[i].size() - (max - 1));
  for (const size_t i : clashing_short_names(names, out, max)) {
    const std::string tag = "#" + std::to_string(ids.at(i));
    out[i] = shortened(names[i], max - std::min(max, tag.size())) + tag;
  }
  return out;
}

void print_kind_table(std::ostream& out, const RunSummary& s) {
  const StatsRegistry& st = *s.stats;
  struct Kind {
    uint64_t count = 0, cycles = 0, dram = 0;
  };
  std::map<std::string, Kind> kinds;
  const Counter& span = st.get("layer.cycles");
  const Counter& read = st.get("dram.read_bytes");
  const Counter& written = st.get("dram.write_bytes");
  uint64_t all = 0;
  for (uint32_t i = 0; i < s.network->layers.size(); ++i) {
    Kind& k = kinds[to_string(s.network->layers[i].op)];
    const uint64_t cycles = span.at(i);
    ++k.count;
    k.cycles += cycles;
    k.dram += read.at(i) + written.at(i);
    all += cycles;
  }
  std::vector<std::pair<std::string, Kind>> rows(kinds.begin(), kinds.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.cycles > b.second.cycles; });
  char line[160];
  std::snprintf(line, sizeof line, "%-16s %10s %16s %7s %14s\n", "operator kind", "operators",
                "cycles (spans)", "share", "dram_KiB");
  out << line;
  for (const auto& [name, k] : rows) {
    std::snprintf(line, sizeof line, "%-16s %10llu %16llu %6.1f%% %14.1f\n", name.c_str(),
                  static_cast<unsigned long long>(k.count),
                  static_cast<unsigned long long>(k.cycles),
                  all == 0 ? 0.0 : 100.0 * double(k.cycles) / double(all), double(k.dram) / 1024.0);
    out << line;
  }
  out << "cycles (spans): each operator's first start to last end, summed; neighbours overlap\n\n";
}

}  // namespace npusim
