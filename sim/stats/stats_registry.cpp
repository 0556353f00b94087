#include "sim/stats/stats_registry.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace npusim {

Counter::Counter(std::string name, std::string unit, std::string meaning, Reduce reduce,
                 uint32_t layers)
    : name_(std::move(name)),
      unit_(std::move(unit)),
      meaning_(std::move(meaning)),
      reduce_(reduce),
      values_(layers, 0) {}

uint64_t Counter::total() const {
  uint64_t t = 0;
  for (uint64_t v : values_) t = (reduce_ == Reduce::Sum) ? t + v : std::max(t, v);
  return t;
}

Counter& StatsRegistry::declare(const std::string& name, const std::string& unit,
                                const std::string& meaning, Counter::Reduce reduce) {
  if (find(name) != nullptr) throw std::logic_error("counter declared twice: " + name);
  return counters_.emplace_back(name, unit, meaning, reduce, layers_);
}

const Counter* StatsRegistry::find(const std::string& name) const {
  for (const Counter& c : counters_)
    if (c.name() == name) return &c;
  return nullptr;
}

const Counter& StatsRegistry::get(const std::string& name) const {
  const Counter* c = find(name);
  if (c == nullptr) throw std::out_of_range("no counter named " + name);
  return *c;
}

std::vector<const Counter*> StatsRegistry::counters() const {
  std::vector<const Counter*> out;
  out.reserve(counters_.size());
  for (const Counter& c : counters_) out.push_back(&c);
  return out;
}

nlohmann::json StatsRegistry::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Counter& c : counters_) {
    nlohmann::json per_layer = nlohmann::json::array();
    for (uint32_t l = 0; l < c.layers(); ++l) per_layer.push_back(c.at(l));
    j[c.name()] = {{"unit", c.unit()},
                   {"meaning", c.meaning()},
                   {"reduce", c.reduce() == Counter::Reduce::Sum ? "sum" : "max"},
                   {"total", c.total()},
                   {"per_layer", per_layer}};
  }
  return j;
}

std::string StatsRegistry::to_text() const {
  std::ostringstream out;
  for (const Counter& c : counters_)
    out << c.name() << ": " << c.total() << ' ' << c.unit() << " # " << c.meaning() << '\n';
  return out.str();
}

}  // namespace npusim
