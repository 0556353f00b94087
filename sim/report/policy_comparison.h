// `npusim run --compare-policies`: the same run under the strict and the
// early dependency policy (seed 004), side by side, from their report JSONs.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace npusim {

// Per layer and total: cycles under each policy and the gain of early
// ((strict - early) / strict), plus the early run's overlap counters.
void print_policy_comparison(std::ostream& out, const nlohmann::json& strict_report,
                             const nlohmann::json& early_report);

}  // namespace npusim
