// The operand gather: where batch_matmul's second operand comes from
// (docs/transformers.md#batch_matmul). The address generator's side of the
// load engine for an operand another operator produced: kernel k of query
// head h = k / (K / heads) is a row (scores: A x B^T, a key row) or a column
// (context: A x B, a value column) of kv head h / (heads / kv_heads) of the
// second operand, which is one or more blocks of tokens (a key-value cache
// and the rows appended to it), each in its own DRAM region or in the
// cache's key-value region (cache.kv_kib). For a stage of kernels it says
// which bytes cross the bus (as one DramAccess), which come from the cache,
// and, in functional runs, copies each kernel's coefficients. A kv head's
// row or column is fetched once per tile, for the first query head of its
// group there; the others are on-chip copies. The load engine times the
// stage; nothing here waits or counts.
#pragma once

#include <cstdint>
#include <utility>

#include "models/interfaces.h"
#include "sim/program/program.h"

namespace npusim {

// What one stage of kernels [k0, k1) of a tile moves.
struct GatherStage {
  uint64_t bus_bytes = 0;   // over the bus, from the blocks in DRAM
  uint64_t chip_bytes = 0;  // from the blocks in the cache's key-value region
  DramAccess access;        // where the bus bytes are timed as lying
};

class OperandGather {
 public:
  // The tile of kernels from `k_begin` of image `image` of operator `L` in `program`.
  OperandGather(const Program& program, const LayerDescriptor& L, uint32_t image, uint32_t k_begin);

  // Coefficients per kernel: dim (scores) or tokens (context).
  uint32_t coefficients() const { return coefficients_; }
  // The plan of stage [k0, k1) (kernels of the tile, k_begin <= k0 <= k1).
  GatherStage stage(uint32_t k0, uint32_t k1) const;
  // Functional: copies kernel k's coefficients from the DRAM image into `row`.
  void copy_kernel(DramIf& dram, uint32_t k, int8_t* row) const;

 private:
  using Block = LayerDescriptor::MoreInput;
  // Whether `block` lies in the cache's key-value region.
  bool placed(const Block& block) const;
  // Token j of the image: its block and its row in that block's image.
  std::pair<const Block*, uint32_t> locate(uint32_t j) const;
  // The DRAM address of token j's row.
  uint64_t token_row(uint32_t j) const;
  // Whether kernel k is fetched (the first query head of its kv head in the tile).
  bool fetched(uint32_t k) const;
  // The kv head's first channel of kernel k's head.
  uint64_t column(uint32_t k) const;

  const Program& program_;
  const LayerDescriptor& L_;
  uint32_t image_, k_begin_;
  uint32_t per_group_;           // kernels of one query head
  uint32_t share_;               // query heads per kv head
  uint32_t coefficients_;        // per kernel
  uint32_t dim_;                 // channels of one kv head
  uint32_t width_;               // channels of a token row
  uint32_t tokens_on_chip_ = 0;  // of one image
};

}  // namespace npusim
