// A region of the internal cache that holds one tile (rows of input, kernels,
// parameters or int32 sums) with real bytes, and knows which rows are valid
// and from which cycle on. Reading a row that is not valid yet -- a scheduling
// bug -- raises a SimulationError naming the reader, never a silent result.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/sim_time.h"
#include "models/stage_name.h"

namespace npusim {

// What a buffer currently holds; a reader states what it expects.
struct TileTag {
  int32_t layer = -1;
  uint32_t batch = 0;
  uint32_t k_begin = 0, k_end = 0;
  int64_t row_begin = 0, row_end = 0;  // first/last+1 row the tile stands for
  // Kernel parts (docs/tiling.md#kernel-parts): the input channels an input
  // or weight tile holds, or those a result tile has summed so far; 0, 0: all.
  uint32_t channel_begin = 0, channel_end = 0;
  bool operator==(const TileTag& o) const {
    return layer == o.layer && batch == o.batch && k_begin == o.k_begin && k_end == o.k_end &&
           row_begin == o.row_begin && row_end == o.row_end && channel_begin == o.channel_begin &&
           channel_end == o.channel_end;
  }
  std::string describe() const;
};

template <typename T>
class TileBuffer {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  explicit TileBuffer(std::string name) : name_(std::move(name)) {}

  // A writer takes the buffer for a new tile: every row becomes invalid.
  // `with_data` = false in timing-only mode (validity is still tracked).
  // `payload_bytes` (0: all rows full) is what the tile really holds when
  // rows have different lengths (compressed kernel streams).
  void begin_fill(const TileTag& tag, uint32_t rows, uint64_t row_elements, bool with_data,
                  uint64_t payload_bytes = 0) {
    tag_ = tag;
    rows_ = rows;
    row_elements_ = row_elements;
    payload_bytes_ = payload_bytes != 0 ? payload_bytes : uint64_t(rows) * row_elements * sizeof(T);
    if (with_data) data_.assign(uint64_t(rows) * row_elements, T{});
    valid_at_.assign(rows, kNever);
    held_ = true;
  }
  void release() { held_ = false; }
  // A writer that adds to the tile it holds (a kernel part's sums): throws
  // SimulationError unless the buffer holds `expected`; keeps the data, takes
  // the tag `now` and makes every row invalid until it is written again.
  void reopen(const TileTag& expected, const TileTag& now, const StageName& writer);

  T* row(uint32_t r) { return data_.data() + uint64_t(r) * row_elements_; }
  const T* row(uint32_t r) const { return data_.data() + uint64_t(r) * row_elements_; }
  void mark_valid(uint32_t r, uint64_t at_cycle) { valid_at_[r] = at_cycle; }
  // The cycle row r is valid from (kNever: not written yet).
  uint64_t valid_at(uint32_t r) const { return valid_at_[r]; }

  // Throws SimulationError unless the buffer holds `expected` and rows
  // [r0, r1) are valid by cycle `now`. `reader` names instruction and stage.
  void require(const TileTag& expected, uint32_t r0, uint32_t r1, uint64_t now,
               const StageName& reader) const;

  const std::string& name() const { return name_; }
  const TileTag& tag() const { return tag_; }
  bool held() const { return held_; }
  uint64_t bytes() const { return payload_bytes_; }
  uint64_t row_elements() const { return row_elements_; }
  uint32_t rows() const { return rows_; }

 private:
  std::string name_;
  TileTag tag_;
  uint32_t rows_ = 0;
  uint64_t row_elements_ = 0;
  uint64_t payload_bytes_ = 0;
  bool held_ = false;
  std::vector<T> data_;
  std::vector<uint64_t> valid_at_;
};

using ByteTile = TileBuffer<int8_t>;
using SumTile = TileBuffer<int32_t>;

}  // namespace npusim
