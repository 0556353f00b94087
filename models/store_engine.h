// The store engine (seed 004's "store"): reads a piece's int32 sums from the
// cache, requantises them (per-channel bias and scale, layer shift, ReLU) or,
// for a binary layer, thresholds them to +-1, and writes the results to DRAM
// in the consumer's format (int8 NHWC or NCHW, or packed N(K/b)HWb:
// docs/binary.md), each element placed by seed 001's output address
// generator, in batches of seed 003's threshold (tiler.cpp, make_plan), one stage
// per batch. A write is in the bus write buffer when its data has crossed the
// bus and reaches memory `latency` cycles later. Graph operators requantise
// with models/vector/requantiser.h or keep raw int32 sums (docs/graphs.md).
#pragma once

#include "models/engine.h"

namespace npusim {

class StoreEngine : public Engine {
 public:
  SC_HAS_PROCESS(StoreEngine);
  StoreEngine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
              StatsRegistry& stats);

 private:
  void run();
  // The parameters a store reads: the bank and channels [k_begin, k_end) its
  // layer's LoadParams filled (the whole layer's, or one weight tile's), found
  // through the store's data dependency on it, or else the layer's last
  // LoadParams before the store; the bank's tile tag checks them either way.
  struct ParamsSource {
    uint32_t bank, k_begin, k_end;
  };
  ParamsSource parameters_of(const Instruction& in) const;
  // Returns the cycle the last batch reaches memory.
  uint64_t store(const Instruction& in);
  // A graph operator's rows: bias added, then float32 requantisation to
  // int8/uint8 or the raw int32 sums, NHWC. Channel in.k_begin + k's
  // parameters are row first_param + k of the bank.
  void store_operator_rows(const LayerDescriptor& L, const Instruction& in, const SumTile& params,
                           uint32_t first_param, const SumTile& results, RowRange rows);

  Counter& busy_;
  Counter& instructions_;
  Counter& batches_;
  Counter& standalone_cycles_;
  Counter& resident_bytes_;
};

}  // namespace npusim
