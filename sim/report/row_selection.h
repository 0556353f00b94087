// Tables that scale: which operators a compact table shows when a workload
// has too many to read (a decoder's thousands), and the per-kind summary that
// stands in for the rest (docs/reports.md#large-workloads). `run --wide`
// prints every row.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/report/report.h"

namespace npusim {

// Up to kFullTableRows operators a compact table shows every one; above, the
// kTopRows that weigh most (cycles, or zero-skip's gain), in program order.
constexpr size_t kFullTableRows = 60;
constexpr size_t kTopRows = 25;

struct RowSelection {
  std::vector<uint32_t> shown;  // in program order
  std::vector<uint32_t> rest;   // the others, in program order
};
// `weight` per operator; `eligible` says which may appear at all (e.g. only
// array operators in the zero-skip table). Ties go to the earlier operator.
RowSelection select_rows(const std::vector<uint64_t>& weight, const std::vector<bool>& eligible);

// "layer4.0.downsample.0" -> "layer4.0.~wnsample.0": text longer than `max`
// loses its middle (the start and the end say most: the block and the
// operator).
std::string shortened(const std::string& text, size_t max);
// Each name within `max` characters, and names that differ stay different:
// where cutting the middle makes two alike ("/layer1/layer1.0/conv1/Conv" and
// "/layer1/layer1.1/conv1/Conv" both "/layer1/l~conv1/Conv"), those keep their
// end instead ("~layer1.0/conv1/Conv"), and if that is still alike, their
// middle cut with "#" and their `ids` entry appended ("/lay~v/Conv#12": the
// report's operator index).
std::vector<std::string> distinct_short_names(const std::vector<std::string>& names,
                                              const std::vector<uint32_t>& ids, size_t max);

// Per operator kind (conv, matmul, softmax, ...): how many, their summed spans
// and DRAM traffic, most cycles first. Spans of neighbours overlap, so the
// shares are of the summed spans, not of the run's cycles.
void print_kind_table(std::ostream& out, const RunSummary& s);

}  // namespace npusim
