#include "models/operand_gather.h"

#include <algorithm>
#include <cstring>

namespace npusim {

OperandGather::OperandGather(const Program& program, const LayerDescriptor& L, uint32_t image,
                             uint32_t k_begin)
    : program_(program),
      L_(L),
      image_(image),
      k_begin_(k_begin),
      per_group_(L.K / L.seq.heads),
      share_(L.seq.heads / L.seq.kv_heads),
      coefficients_(L.group_channels()),
      dim_(L.seq.transpose_b ? coefficients_ : per_group_),
      width_(L.more_inputs.at(0).C) {
  for (const Block& block : L.more_inputs)
    if (placed(block)) tokens_on_chip_ += block.rows / L.N;
}

bool OperandGather::placed(const Block& block) const {
  return block.from_layer >= 0 && program_.layers[size_t(block.from_layer)].output_in_cache();
}

std::pair<const OperandGather::Block*, uint32_t> OperandGather::locate(uint32_t j) const {
  for (const Block& block : L_.more_inputs) {
    const uint32_t rows = block.rows / L_.N;
    if (j < rows) return {&block, j};
    j -= rows;
  }
  return {&L_.more_inputs.back(), j};  // unreachable: the parser sums the rows
}

// Image n of every block: its rows follow images 0 .. n-1's.
uint64_t OperandGather::token_row(uint32_t j) const {
  const auto [block, row] = locate(j);
  return block->address + (uint64_t(image_) * (block->rows / L_.N) + row) * width_;
}

bool OperandGather::fetched(uint32_t k) const {
  const uint32_t head = k / per_group_, i = k % per_group_;
  return head % share_ == 0 || uint64_t(head - 1) * per_group_ + i < k_begin_;
}

uint64_t OperandGather::column(uint32_t k) const {
  return uint64_t(k / per_group_ / share_) * dim_;
}

GatherStage OperandGather::stage(uint32_t k0, uint32_t k1) const {
  uint64_t segments = 0, fetched_bus = 0, fetched_on_chip = 0;
  bool in_run = false;
  for (uint32_t k = k0; k < k1; ++k) {
    const uint32_t i = k % per_group_;
    const bool first = fetched(k);
    if (first && L_.seq.transpose_b && tokens_on_chip_ > 0 && placed(*locate(i).first)) {
      ++fetched_on_chip;  // a key row from the key-value region
    } else if (first) {
      ++fetched_bus;
      // Scores: each row is a segment; context: a run of columns is one
      // segment per token row (those in DRAM), and a run ends at a head or
      // a copied kernel.
      if (L_.seq.transpose_b)
        ++segments;
      else if (!in_run || i == 0)
        segments += coefficients_ - tokens_on_chip_;
    }
    in_run = first;
  }
  GatherStage s;
  // Scores: a key row is in DRAM or on chip; context: a value column's
  // coefficients (tokens) split between the blocks in DRAM and on chip.
  s.chip_bytes = L_.seq.transpose_b ? fetched_on_chip * coefficients_
                                    : fetched_bus * uint64_t(tokens_on_chip_);
  s.bus_bytes = L_.seq.transpose_b ? fetched_bus * coefficients_
                                   : fetched_bus * uint64_t(coefficients_ - tokens_on_chip_);
  // Timed as rows of the operand `width` apart from the stage's first
  // kernel's (scores: its key row; context: its value column); blocks are
  // taken to abut.
  const uint32_t i0 = k0 % per_group_;
  const uint64_t runs = std::max<uint64_t>(segments, 1);
  s.access = {L_.seq.transpose_b ? token_row(i0) + column(k0) : token_row(0) + column(k0) + i0,
              runs, s.bus_bytes / runs, width_};
  return s;
}

void OperandGather::copy_kernel(DramIf& dram, uint32_t k, int8_t* row) const {
  const uint32_t i = k % per_group_;
  if (L_.seq.transpose_b) {
    std::memcpy(row, dram.image(token_row(i) + column(k), dim_), dim_);
  } else {
    for (uint32_t j = 0; j < coefficients_; ++j)
      row[j] = *dram.image(token_row(j) + column(k) + i, 1);
  }
}

}  // namespace npusim
