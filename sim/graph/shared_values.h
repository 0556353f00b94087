// Values that every copy of the operator holding them shares: a model's weights
// (ONNX), which the mapper's candidates, a run's result and the program views
// copy with their LayerConfig, and a layer's kernel non-zero counts, which the
// operators of one weight region (a decoder's prefill and steps) hold once. A
// copy costs a pointer, not the megabytes of a layer's weights; the values
// never change once set (an assignment replaces them for that copy only).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace npusim {

template <typename T>
class SharedValues {
 public:
  SharedValues() = default;
  SharedValues(std::vector<T> values)  // NOLINT: implicit, as the vector it stands for
      : values_(values.empty() ? nullptr
                               : std::make_shared<const std::vector<T>>(std::move(values))) {}
  SharedValues(std::initializer_list<T> values) : SharedValues(std::vector<T>(values)) {}

  bool empty() const { return values_ == nullptr; }
  std::size_t size() const { return values_ ? values_->size() : 0; }
  const T& operator[](std::size_t i) const { return (*values_)[i]; }
  const T& at(std::size_t i) const { return values().at(i); }
  typename std::vector<T>::const_iterator begin() const { return values().begin(); }
  typename std::vector<T>::const_iterator end() const { return values().end(); }
  // The values (empty when none were set).
  const std::vector<T>& values() const { return values_ ? *values_ : none(); }
  bool operator==(const std::vector<T>& other) const { return values() == other; }
  friend bool operator==(const SharedValues& a, const SharedValues& b) {
    return a.values_ == b.values_ || a.values() == b.values();
  }
  friend bool operator!=(const SharedValues& a, const SharedValues& b) { return !(a == b); }
  // Whether two holders share one array (not only equal values).
  bool shares_with(const SharedValues& other) const {
    return values_ != nullptr && values_ == other.values_;
  }

 private:
  static const std::vector<T>& none() {
    static const std::vector<T> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<T>> values_;
};

}  // namespace npusim
