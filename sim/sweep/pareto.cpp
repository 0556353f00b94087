#include "sim/sweep/pareto.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace npusim::sweep {
namespace {

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool strictly = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) strictly = true;
  }
  return strictly;
}

}  // namespace

std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& costs) {
  for (const auto& row : costs)
    if (row.size() != costs.front().size())
      throw std::invalid_argument("pareto_front: rows of different lengths");
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
  // Whatever dominates a row comes before it in lexicographic order, and a
  // dominated dominator is itself dominated by an earlier front member, so
  // comparing each row with the front found so far is enough.
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    const bool beaten = std::any_of(front.begin(), front.end(),
                                    [&](std::size_t f) { return dominates(costs[f], costs[i]); });
    if (!beaten) front.push_back(i);
  }
  return front;
}

}  // namespace npusim::sweep
