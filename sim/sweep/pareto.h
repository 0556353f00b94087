// Pareto extraction: the points no other point beats in every objective.
#pragma once

#include <cstddef>
#include <vector>

namespace npusim::sweep {

// Indices of the non-dominated rows of `costs` (every coordinate minimised),
// in lexicographic order of their costs. Row a dominates row b when a <= b in
// every coordinate and a < b in at least one; rows with equal costs are all kept.
// Every row must have the same number of coordinates.
std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& costs);

}  // namespace npusim::sweep
