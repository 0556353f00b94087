// The hardware description: every parameter of the modelled accelerator.
// Parameters are declared once in hardware_config.cpp (name, default, unit,
// help); that table drives parsing, to_json and the reference in docs/config.md.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "sim/config/dram_device.h"

namespace npusim {

enum class Buffering { PingPong, Single };
enum class SchedulerPolicy { Strict, Early };
// Seed 002: skip zero kernel coefficients, or apply every one (ablation).
enum class ComputeMode { ZeroSkip, Dense };
// How the array applies kernel coefficients (docs/zero-skip.md#dataflows):
// each array row walks its own kernel's coefficients, rows in lockstep
// (npusim's arrangement), or seed 002's engine: one coefficient at a time,
// broadcast to every multiplier over the stage's output pixels.
enum class Dataflow { Lockstep, Broadcast };
// Which lockstep stages may split the array's columns into groups that each
// take their own array_rows kernels (cost::folded_stage_cycles): any stage
// where that takes fewer cycles (stages; docs/timing.md#folded-stages), or
// only a matmul's rows fewer than the columns (matmul). Auto, the default:
// stages, or matmul beside seed 001's data register sets, which cannot feed a
// folded stage (folds_stages).
enum class ArrayFold { Matmul, Stages, Auto };
// What a fold's column groups do when a tile has too few kernels to fill them
// (a batch-1 matmul's short k-tiles): share each kernel, its coefficients dealt
// to them and their partial sums added (split_coefficients, the default;
// docs/timing.md#coefficient-split), or stay idle (seed 002's array, one
// kernel per row).
enum class SpareFoldGroups { SplitCoefficients, Idle };
// Seed 001: how the input reaches the array as a lowered (unrolled) matrix
// (docs/address-generator.md): generated on the fly from the input (im2col),
// materialised by the host as im2col rows (host_im2col) or as the MEC strips.
enum class LoadAccess { Im2col, HostIm2col, Mec };
// How the store requantises a graph operator's int32 sums (docs/graphs.md#requantisers):
// float32 as ONNX Runtime does, or an integer multiplier and shift.
enum class Requantiser { Float32, FixedPoint };
// The least a store batch derived from seed 003's threshold holds
// (docs/timing.md#store-batch): a compute stage's rows (compute_stage, the
// default), or one row (row: the seed's threshold alone).
enum class StoreBatchFloor { ComputeStage, Row };
// How the compiler picks each layer's mapping (docs/mapping.md): the cheapest
// candidate by the analytic estimate, or the largest tile that fits (greedy).
enum class Mapper { Cost, Greedy };
// Seed 003: how an image's output rows split into N pieces
// (docs/scheduler.md#pieces): N > 1 pieces as equal as whole rows allow
// (sizes differ by at most one row), or today's greedy split (pieces of the
// largest size that fits, the remainder last; N may be 1).
enum class PieceSplit { Equal, Greedy };
// Seed 004 rule 1 (docs/scheduler.md#rule-1): under the early policy a
// compute starts once one complete compute unit's weights (the first
// array_rows kernels) and its input rows are loaded, then takes each kernel
// group as its weights arrive (`unit`); or it waits for the whole weight tile.
enum class ComputeStart { Unit, Tile };
// Seed 004's "data loads wait for the last weight load": an input load
// depends on its k-tile's weight load (`after_weights`), or only on buffer
// space and its producer (`any_time`).
enum class InputLoads { AnyTime, AfterWeights };
// Seed 004 rule 3 in compiled programs (docs/scheduler.md#loads-after-a-store):
// every load waits for the store before it in the seed's instruction stream
// (loads one piece ahead of their computes) until the store's data is in the
// bus write buffer, or in memory where the load reads rows it writes
// (`write_buffer`); or a load waits only for the stores whose rows it reads
// (`any_time`).
enum class LoadAfterStore { AnyTime, WriteBuffer };
// Weight double-buffering (docs/tiling.md#weight-double-buffering): the cost
// mapper may split the weight region into two slots so the next weight tile
// loads while the current one computes (`auto`), or keeps one tile in the
// whole region (`single`, as the greedy mapper always does).
enum class WeightBuffers { Auto, Single };
// Column pieces (docs/tiling.md#column-pieces): the cost mapper may cut an
// output row along its width where no piece of whole rows fits a k-tile
// (`auto`), or never (`off`, as the greedy mapper).
enum class ColumnPieces { Auto, Off };
// Kernel parts (docs/tiling.md#kernel-parts): the cost mapper may cut the
// input channels into parts where whole kernels do not fit or fit only in
// k-tiles below min(K, array rows) (`auto`, the default), or never (`off`,
// as the greedy mapper).
enum class KernelParts { Auto, Off };
// Where produced tensors live between operators (docs/memory-plan.md): always
// in DRAM, or on chip where the memory planner finds room for them.
enum class Residency { Off, Auto };
// Seed 004 rule 1's two loop orders (docs/scheduler.md#loop-orders): per
// weight tile, its weights and then every piece's input rows
// (weight-stationary, the default), or per piece, its input rows and then
// the weight tiles one by one (feature-stationary); or the cost mapper
// weighs both for each layer (`auto`, docs/loop-order.md#loop-order-per-layer).
enum class LoopOrder { WeightStationary, FeatureStationary, Auto };
// Seed 001's data register sets (docs/address-generator.md#data-register-sets):
// the array reads its operands from the input tile in place (`in_place`,
// npusim's default), or fetch_ml bursts first copy each pass's lowered rows
// into a register set, one set loading while the array multiplies the other
// (`double`, the seed's streaming) or one set, fetch then multiply (`single`).
enum class DataRegisters { InPlace, Double, Single };
// Compile trials (docs/compile-trials.md#compile-trials): before compiling, the
// runner simulates, timing only, the cost mapper's program for each unit
// count and for halved cache budgets estimated as near, and compiles the
// fastest (`simulate`); or the estimate's choice stands (`off`).
enum class TrialMode { Simulate, Off };
// Whether the compile trials also try smaller parts of the MAC array
// (docs/compile-trials.md#array-in-use): `auto`, or only the whole array (`whole`,
// fewer simulations on bus-bound machines).
enum class ArrayParts { Auto, Whole };

struct ComputeConfig {
  uint32_t units = 1;                    // compute units (each with its own ping-pong pair)
  uint32_t array_rows = 32;              // output channels (Z) processed in parallel
  uint32_t array_cols = 32;              // output pixels per cycle per row
  uint32_t pipeline_latency_cycles = 8;  // fill/drain once per compute instruction
  uint32_t accumulator_kib = 64;         // int32 accumulation buffer per unit
  // Bytes per cycle a fetch_ml burst moves into a data register set (seed
  // 001); 0: array_cols, one input byte per column per cycle.
  uint32_t register_fetch_bytes_per_cycle = 0;
  uint32_t register_fetch_rate() const {
    return register_fetch_bytes_per_cycle != 0 ? register_fetch_bytes_per_cycle : array_cols;
  }
};

struct CacheConfig {
  uint32_t size_kib = 1024;  // internal (on-chip) cache capacity
  uint32_t banks = 8;
  uint32_t bank_bytes_per_cycle = 16;
  uint32_t ports = 2;
  uint32_t port_bytes_per_cycle = 64;
  // The region of the cache that holds key-value cache blocks (decoders,
  // docs/decoders.md#key-value-cache-placement); 0: they live in DRAM.
  uint32_t kv_kib = 0;
};

// External memory (docs/dram.md): one ideal bus (bytes per cycle, a fixed
// latency), or channels of banks with row buffers and JEDEC timings.
enum class DramModel { Bus, Banked };
// Banked: a row stays open until another row of its bank is needed (open),
// or every access closes it (closed: auto-precharge).
enum class PagePolicy { Open, Closed };

struct DramConfig {
  DramModel model = DramModel::Bus;
  // Bus: its bandwidth, possibly fractional ("34 GB/s" at 700 MHz is
  // 48.57...). Banked: the peak of the channels at the accelerator's clock,
  // rounded (set from the device; the compiler's estimate uses it).
  double bytes_per_cycle = 32;
  // Bus: request to first data. Banked: the controller's and the on-chip
  // network's part; the DRAM's own (tRCD, CL) is timed by the banked model.
  uint32_t latency_cycles = 100;
  // Transfers round up to whole bursts (banked: the device's burst).
  uint32_t burst_bytes = 64;
  // Banked: the device, filled from a preset and any keys given after it.
  std::string preset = "ddr4_3200";
  DramDevice device = find_dram_preset("ddr4_3200")->device;
  PagePolicy page_policy = PagePolicy::Open;
  // Address bits from most to least significant (docs/dram.md#address-mapping).
  std::string mapping = "row:rank:bank:column:bankgroup:channel";
  // Banked: bursts of writes each channel's controller holds before it must
  // place them (docs/dram.md#the-write-queue); 0, each write placed when asked.
  uint32_t write_queue = 0;
};

// Dynamic energy per event (docs/energy.md). Defaults are 45 nm figures
// (Horowitz, ISSCC 2014); the cache's scales with sqrt(size) from 1 MiB.
struct EnergyConfig {
  double mac_pj = 0.3;          // int8 multiply (0.2) + 32-bit accumulate (0.1)
  double binary_word_pj = 0.2;  // XOR + popcount of a 32-bit word + accumulate (estimate)
  double cache_pj_per_byte_at_1mib = 12.5;  // 64-bit access of a 1 MB SRAM: 100 pJ
  double dram_pj_per_byte = 162.5;          // 64-bit DRAM access: 1.3 nJ (the low end)
};

// Silicon area and leakage per unit (docs/area.md): the formulas are in
// sim/report/area.h. Defaults are 45 nm figures, published where a source
// exists (Horowitz, ISSCC 2014; Intel's 45 nm SRAM cell; Nangate 45 nm) and
// estimates elsewhere; docs/area.md says which is which.
struct AreaConfig {
  double mac_um2 = 419;                  // int8 multiply (282) + 32-bit add (137)
  double binary_lane_um2 = 274;          // XOR + popcount of a 64-bit word (estimate)
  double sram_mm2_per_mib = 4.84;        // 8 Mi cells of 0.346 um2 at 60 % array efficiency
  double sram_port_overhead = 0.5;       // extra area per port beyond the first (estimate)
  double sram_bank_mm2 = 0.01;           // periphery of one bank (estimate)
  double vector_lane_um2 = 419;          // one lane: as an int8 MAC (estimate)
  double agu_register_set_um2 = 1881;    // 13 registers x 32 flip-flops of 4.522 um2
  double agu_logic_um2 = 4043;           // a 32-bit multiplier and four 32-bit adders (estimate)
  double dram_mm2_per_gbps = 0.1;        // DRAM PHY and controller (estimate)
  double logic_leakage_mw_per_mm2 = 10;  // estimate, from Aladdin's 40 nm figures
  double sram_leakage_mw_per_mm2 = 2;    // estimate
};

// The vector unit (docs/timing.md#vector-unit): pooling, elementwise add and
// concat of graph workloads, `lanes` elements per cycle, through its own
// working buffer in the internal cache.
struct VectorConfig {
  uint32_t lanes = 32;          // elements (int8 lanes) processed per cycle
  uint32_t latency_cycles = 4;  // pipeline fill once per vector instruction
  uint32_t buffer_kib = 64;     // its largest working region of the cache (graphs with vector ops)
  // Special-function results (division, square root) per cycle: the
  // transformer operators' normalisations (docs/transformers.md#cost).
  uint32_t special_per_cycle = 4;
};

// What the compiler is told rather than left to choose.
struct CompilerConfig {
  // Compute units the cost mapper gives pieces to; 0: it chooses (every count
  // from 1 to compute.units; compiler.trials says how).
  uint32_t units = 0;
  // The part of the cache the compiler lays its buffers out in (KiB, the
  // key-value region included); 0: all of cache.size_kib. The rest holds only
  // what the memory plan keeps (compiler.residency auto: it plans over the
  // whole cache, docs/memory-plan.md#more-cache-under-auto).
  uint32_t cache_kib = 0;
  // The cost mapper's choice per layer (docs/compile-trials.md#traffic-margin): of
  // the candidates estimated within this fraction of the fewest cycles, the
  // one with the least DRAM bus time (weights, inputs and results); 0: the
  // fewest cycles alone.
  double traffic_margin = 0;
  // The part of the MAC array the program uses (docs/compile-trials.md#array-in-use):
  // it is compiled and timed as an array of this many rows and columns, the
  // rest idle; 0: the whole array, or what compiler.trials settles.
  uint32_t array_rows = 0;
  uint32_t array_cols = 0;
};

struct StoreConfig {
  // Seed 003: results leave in batches of at least this many bytes; 0: the
  // threshold follows from the ratio of the two rates (cost::upload_threshold_bytes).
  uint32_t batch_bytes = 0;
};

struct HardwareConfig {
  std::string name = "default";
  double clock_mhz = 1000.0;
  ComputeConfig compute;
  CacheConfig cache;
  DramConfig dram;
  StoreConfig store;
  VectorConfig vector;
  CompilerConfig compiler;
  EnergyConfig energy;
  AreaConfig area;
  Buffering buffering = Buffering::PingPong;
  SchedulerPolicy policy = SchedulerPolicy::Strict;
  ComputeMode compute_mode = ComputeMode::ZeroSkip;
  Dataflow dataflow = Dataflow::Lockstep;
  ArrayFold fold = ArrayFold::Auto;
  SpareFoldGroups spare_fold_groups = SpareFoldGroups::SplitCoefficients;
  LoadAccess load_access = LoadAccess::Im2col;
  Requantiser requantiser = Requantiser::Float32;
  StoreBatchFloor store_batch_floor = StoreBatchFloor::ComputeStage;
  Mapper mapper = Mapper::Cost;
  PieceSplit pieces = PieceSplit::Equal;
  ComputeStart compute_start = ComputeStart::Unit;
  InputLoads input_loads = InputLoads::AnyTime;
  LoadAfterStore load_after_store = LoadAfterStore::AnyTime;
  WeightBuffers weight_buffers = WeightBuffers::Auto;
  ColumnPieces column_pieces = ColumnPieces::Auto;
  KernelParts kernel_parts = KernelParts::Auto;
  Residency residency = Residency::Off;
  DataRegisters data_registers = DataRegisters::InPlace;
  LoopOrder loop_order = LoopOrder::WeightStationary;
  TrialMode trial_mode = TrialMode::Simulate;
  ArrayParts array_parts = ArrayParts::Auto;

  uint64_t cache_bytes() const { return uint64_t(cache.size_kib) * 1024; }
  // What the compiler's tiles may use: the cache less its key-value region.
  uint64_t tile_cache_bytes() const { return uint64_t(cache.size_kib - cache.kv_kib) * 1024; }
  uint64_t kv_cache_bytes() const { return uint64_t(cache.kv_kib) * 1024; }
  // What the compiler lays tiles out in: compiler.cache_kib (or the whole
  // cache) less the key-value region.
  uint64_t compiler_tile_cache_bytes() const {
    const uint32_t kib = compiler.cache_kib != 0 && compiler.cache_kib < cache.size_kib
                             ? compiler.cache_kib
                             : cache.size_kib;
    return uint64_t(kib - cache.kv_kib) * 1024;
  }
  uint64_t peak_macs_per_cycle() const {
    return uint64_t(compute.units) * compute.array_rows * compute.array_cols;
  }
  // compiler.array_rows and compiler.array_cols, where set: what the compiler
  // maps for and the models time. The physical array (area, leakage,
  // utilisation) stays compute.array_rows x compute.array_cols.
  uint32_t rows_in_use() const {
    return compiler.array_rows != 0 ? compiler.array_rows : compute.array_rows;
  }
  uint32_t cols_in_use() const {
    return compiler.array_cols != 0 ? compiler.array_cols : compute.array_cols;
  }
  bool uses_part_of_array() const {
    return rows_in_use() != compute.array_rows || cols_in_use() != compute.array_cols;
  }
};

// `hw` as the compiler and the models see it: compute.array_rows and
// compute.array_cols replaced by the part of the array in use (an array of
// that size, the rest absent), compiler.array_* kept.
HardwareConfig array_in_use(const HardwareConfig& hw);

// Parses and validates; throws ConfigError naming `file` and the JSON pointer.
HardwareConfig parse_hardware_config(const nlohmann::json& j, const std::string& file);
HardwareConfig load_hardware_config(const std::string& path);
// The fully resolved config (every field, defaults filled in).
nlohmann::json to_json(const HardwareConfig& hw);

const char* to_string(Buffering b);
const char* to_string(DramModel m);
const char* to_string(PagePolicy p);
const char* to_string(SchedulerPolicy p);
const char* to_string(ComputeMode m);
const char* to_string(Dataflow d);
const char* to_string(ArrayFold f);
// Whether every lockstep stage may fold (compute.fold stages, or auto without
// data register sets).
bool folds_stages(const HardwareConfig& hw);
// Whether a fold's spare column groups may split coefficients
// (compute.spare_fold_groups split_coefficients, with the tile read in place).
bool splits_coefficients(const HardwareConfig& hw);
const char* to_string(SpareFoldGroups s);
const char* to_string(Requantiser r);
const char* to_string(StoreBatchFloor f);
const char* to_string(LoadAccess a);
const char* to_string(Mapper m);
const char* to_string(PieceSplit p);
const char* to_string(ComputeStart c);
const char* to_string(InputLoads i);
const char* to_string(LoadAfterStore l);
const char* to_string(WeightBuffers w);
const char* to_string(ColumnPieces c);
const char* to_string(KernelParts k);
const char* to_string(Residency r);
const char* to_string(DataRegisters d);
const char* to_string(LoopOrder o);
const char* to_string(TrialMode u);
const char* to_string(ArrayParts a);

// Markdown table of every hardware parameter (name, default, unit, meaning).
std::string hardware_parameter_reference();

}  // namespace npusim
