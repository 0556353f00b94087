// The load engine: DMA from DRAM into the internal cache (seed 004's "load").
// Loads layer parameters, weight tiles (a stage per group of array_rows
// kernels) and input pieces into a ping-pong half (a stage per compute stage's
// new input rows, seed 003), inserting padding rows and columns on the fly.
// Stages are pipelined: the next stage's bus request goes out as soon as the
// previous one's data has crossed the bus; DRAM latency overlaps.
// With load.access host_im2col or mec (seed 001, docs/address-generator.md)
// the input comes from the lowered matrix the host materialised in DRAM.
// Input loads are the fetch stream of seed 001's address generator: an
// AGU_INIT writes a register set (beside the DMA, so the engine goes on), and
// a fetch of a layer whose set is not configured, or not yet written, stops
// the run with an error.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "models/engine.h"

namespace npusim {

class LoadEngine : public Engine {
 public:
  SC_HAS_PROCESS(LoadEngine);
  LoadEngine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
             StatsRegistry& stats);

 private:
  void run();
  // Each returns the cycle its last data is in the cache.
  uint64_t load_params(const Instruction& in);
  uint64_t load_weights(const Instruction& in);
  // A kernel part's weight tile: each kernel's part of its channels.
  uint64_t load_kernel_part(const Instruction& in);
  // A weight tile's kernels in stages of array_rows (the compute engine may
  // start on a stage's kernels once they are valid). `kernel_row(k)` copies
  // the tile's kernel k into its row (functional runs) and returns its
  // bytes, called for k = 0, 1, ... in turn; a stage crosses the bus in
  // `segments_per_kernel` runs per kernel, each `run_stride` bytes after the
  // one before (kernel parts: a tap's channels), or one run when 0; a stage's
  // bytes start `offset` into its first kernel.
  // (A template, not a std::function: a run that stops abandons the
  // engine's thread stack, and a std::function's heap copy would leak.)
  template <class KernelRow>
  uint64_t load_weight_stages(const Instruction& in, ByteTile& weights, const KernelRow& kernel_row,
                              uint64_t segments_per_kernel, uint64_t run_stride = 0,
                              uint64_t offset = 0);
  // Whether stage `stage`'s weight bytes (`access`) are all in the operator's
  // kept weight block; the block records the rest as on chip from now on.
  // Stops the run when something has overwritten the block.
  bool weights_kept(const Instruction& in, uint32_t stage, const DramAccess& access);
  // batch_matmul's weight tile: kernels gathered from its second operand.
  uint64_t load_operand_kernels(const Instruction& in);
  uint64_t load_input(const Instruction& in);
  uint64_t load_lowered_input(const Instruction& in);
  // A column piece's input (docs/tiling.md#column-pieces): its rows' window
  // of padded columns, in one stage.
  uint64_t load_column_piece(const Instruction& in);
  uint64_t agu_init(const Instruction& in);
  // Throws SimulationError unless a register set holds `in`'s layer, written
  // by now; returns that set.
  uint32_t configured_set(const Instruction& in) const;
  // What the per-mode traffic and footprint counters record for one fetch.
  void count_mode_figures(const Instruction& in);
  LayerViews views_;  // the layers as kernel parts and column pieces see them
  // Copies input rows [first, end) of a binary layer's image `batch` from
  // N(C/b)HWb in DRAM into the tile (pixel-major, `padding` zero pixels first).
  void copy_binary_rows(const LayerDescriptor& L, uint32_t batch, int64_t first, int64_t end,
                        ByteTile& half, int64_t tile_first_row);
  // The same for an int8 input stored NCHW: each row gathers its C plane runs.
  void copy_planar_rows(const LayerDescriptor& L, uint32_t batch, int64_t first, int64_t end,
                        ByteTile& half, int64_t tile_first_row);
  // The host's part of host_im2col / mec: writes tile rows [begin, end) of
  // image `batch`'s lowered matrix into the DRAM image (functional runs) and
  // returns the bytes written.
  uint64_t host_lower(const LayerDescriptor& L, uint32_t batch, int64_t begin, int64_t end);
  // Moves one stage: a DRAM read of `access` (segments of equal bytes, where
  // they lie), then a cache write of `cache_bytes`. Returns the cycle the
  // stage's data is in the cache.
  // from_cache: the bytes come from an output kept in the cache (the memory
  // plan), read through the cache ports instead of the bus.
  uint64_t transfer_stage(const Instruction& in, const DramAccess& access, uint64_t cache_bytes,
                          bool from_cache = false);
  // Whether L's first input is an output the memory plan keeps in the cache.
  bool input_resident(const LayerDescriptor& L) const;

  uint64_t standalone_ = 0;  // of the current instruction
  Counter& busy_;
  Counter& instructions_;
  Counter& standalone_cycles_;
  Counter& input_dram_bytes_;
  Counter& host_lowering_bytes_;
  Counter& im2col_matrix_bytes_;
  Counter& input_rows_bytes_;
  Counter& mec_matrix_bytes_;
  Counter& footprint_im2col_;
  Counter& footprint_host_im2col_;
  Counter& footprint_mec_;
  Counter& agu_inits_;
  Counter& operand_on_chip_bytes_;
  Counter& resident_bytes_;
  Counter& weight_resident_bytes_;
  Counter& operand_bytes_;
  // Seed 001's register sets: the layer each holds (-1: none) and the cycle
  // its AGU_INIT has finished writing it.
  int64_t set_layer_[2] = {-1, -1};
  uint64_t set_ready_at_[2] = {0, 0};
  uint64_t agu_write_free_at_ = 0;  // the register write path is busy until then
  // MEC strips overlap between pieces: per (layer, image), the tile row up to
  // which the host has already lowered them, so each is written once.
  std::map<std::pair<uint32_t, uint32_t>, int64_t> lowered_end_;
};

}  // namespace npusim
