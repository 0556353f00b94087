// The one registry of named counters. Every module declares its counters here
// once (name, unit, one-line meaning) and bumps plain integers on its hot path;
// reports, goldens and docs read the registry, so a counter can be neither
// wired twice nor silently dropped. Counters are kept per layer.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npusim {

class Counter {
 public:
  enum class Reduce { Sum, Max };  // how per-layer values combine into a total

  Counter(std::string name, std::string unit, std::string meaning, Reduce reduce, uint32_t layers);

  void add(uint32_t layer, uint64_t v) { values_[layer] += v; }
  void raise_to(uint32_t layer, uint64_t v) {
    if (v > values_[layer]) values_[layer] = v;
  }
  uint64_t at(uint32_t layer) const { return values_.at(layer); }
  uint64_t total() const;

  const std::string& name() const { return name_; }
  const std::string& unit() const { return unit_; }
  const std::string& meaning() const { return meaning_; }
  Reduce reduce() const { return reduce_; }
  uint32_t layers() const { return static_cast<uint32_t>(values_.size()); }

 private:
  std::string name_, unit_, meaning_;
  Reduce reduce_;
  std::vector<uint64_t> values_;
};

class StatsRegistry {
 public:
  explicit StatsRegistry(uint32_t layers) : layers_(layers) {}

  // Throws std::logic_error if `name` is already declared.
  Counter& declare(const std::string& name, const std::string& unit, const std::string& meaning,
                   Counter::Reduce reduce = Counter::Reduce::Sum);
  const Counter* find(const std::string& name) const;
  // Throws std::out_of_range naming the counter if it is not declared.
  const Counter& get(const std::string& name) const;
  uint32_t layers() const { return layers_; }
  // Declaration order.
  std::vector<const Counter*> counters() const;

  // {"name": {"unit":..., "meaning":..., "total":..., "per_layer":[...]}, ...}
  nlohmann::json to_json() const;
  // One line per counter: "name: total unit # meaning".
  std::string to_text() const;

 private:
  uint32_t layers_;
  std::deque<Counter> counters_;  // deque: references stay valid as we grow
};

}  // namespace npusim
