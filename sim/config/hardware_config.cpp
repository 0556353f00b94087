#include "sim/config/hardware_config.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "sim/config/hardware_param.h"
#include "sim/config/json_reader.h"

namespace npusim {

namespace {

using nlohmann::json;

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// A size written with its unit ("24 MiB", "1.5KiB", "64 B"; B, KiB, MiB, GiB)
// in units of `unit_bytes` (1: B, 1024: KiB): a whole number of them in
// [min, max], or an error at `key` that says so.
uint64_t size_in_units(JsonReader& reader, const std::string& key, const json& given,
                       uint64_t unit_bytes, uint64_t min, uint64_t max) {
  const std::string unit = unit_bytes == 1 ? "B" : "KiB";
  const std::string expected = "integer in " + std::to_string(min) + ".." + std::to_string(max) +
                               " (" + unit + "), or a size such as \"24 MiB\" (B, KiB, MiB, GiB)";
  const std::string text = given.get<std::string>();
  std::istringstream in(text);
  double number = 0;
  std::string suffix;
  in >> number >> suffix;
  std::string rest;
  in >> rest;
  static const std::map<std::string, double> kUnits = {
      {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  const auto u = kUnits.find(suffix);
  if (in.bad() || !rest.empty() || u == kUnits.end() || !(number >= 0) || number > 1e15)
    reader.fail(key, expected, describe_json(given));
  const double bytes = number * u->second;
  const double units = bytes / double(unit_bytes);
  if (units != double(uint64_t(units)))
    reader.fail(key, "a whole number of " + unit + " (" + expected + ")",
                describe_json(given) + ", " + (std::ostringstream() << bytes).str() + " B");
  if (units < double(min) || units > double(max))
    reader.fail(key, expected,
                describe_json(given) + " = " + std::to_string(uint64_t(units)) + " " + unit);
  return uint64_t(units);
}

// An unsigned integer field inside one of the config's sections.
template <class Section>
HardwareParam uint_param(std::string path, Section HardwareConfig::*section,
                         uint32_t Section::*field, std::string unit, uint32_t min, uint32_t max,
                         std::string help, bool power_of_two = false) {
  HardwareParam p;
  p.path = std::move(path);
  p.unit = std::move(unit);
  p.range =
      (power_of_two ? "power of two in " : "") + std::to_string(min) + ".." + std::to_string(max);
  p.help = std::move(help);
  // A size (unit B or KiB) may also be written with its unit: "24 MiB", "512KiB".
  const uint64_t unit_bytes = p.unit == "KiB" ? 1024 : p.unit == "B" ? 1 : 0;
  p.read = [=](JsonReader& reader, const std::string& key, HardwareConfig& hw) {
    const json* given = reader.find(key);
    const uint64_t value = unit_bytes != 0 && given != nullptr && given->is_string()
                               ? size_in_units(reader, key, *given, unit_bytes, min, max)
                               : reader.get_uint(key, min, max, hw.*section.*field);
    if (power_of_two && !is_power_of_two(value)) {
      reader.fail(key, "power of two in " + std::to_string(min) + ".." + std::to_string(max),
                  "number " + std::to_string(value));
    }
    hw.*section.*field = static_cast<uint32_t>(value);
  };
  p.write = [=](const HardwareConfig& hw) { return json(hw.*section.*field); };
  return p;
}

// The bus's bandwidth: bytes a cycle as a number (fractional allowed), or a rate with
// its unit ("34 GB/s", "500 MB/s", "1.2 TB/s"; decimal units, as memories are
// sold) converted at clock_mhz, which the table reads first.
HardwareParam bandwidth_param(std::string path, double DramConfig::*field, std::string help) {
  constexpr double kMin = 0.001, kMax = 65536;
  HardwareParam p;
  p.path = std::move(path);
  p.unit = "B/cycle";
  p.range = "0.001..65536, or a rate such as \"34 GB/s\"";
  p.help = std::move(help);
  p.read = [=](JsonReader& reader, const std::string& key, HardwareConfig& hw) {
    const json* given = reader.find(key);
    if (given == nullptr) return;
    const std::string expected =
        "a number of bytes a cycle in 0.001..65536, or a rate such as \"34 GB/s\" (MB/s, GB/s, "
        "TB/s; converted at clock_mhz)";
    double value = 0;
    std::string shown = describe_json(*given);
    if (given->is_number()) {
      value = given->get<double>();
    } else if (given->is_string()) {
      std::istringstream in(given->get<std::string>());
      double number = 0;
      std::string unit, rest;
      in >> number >> unit >> rest;
      static const std::map<std::string, double> kBytesPerSecond = {
          {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
      const auto u = kBytesPerSecond.find(unit);
      if (in.bad() || !rest.empty() || u == kBytesPerSecond.end() || !(number > 0) || number > 1e9)
        reader.fail(key, expected, shown);
      value = number * u->second / (hw.clock_mhz * 1e6);
      std::ostringstream converted;
      converted << shown << " = " << value << " B/cycle at " << hw.clock_mhz << " MHz";
      shown = converted.str();
    } else {
      reader.fail(key, expected, shown);
    }
    if (!(value >= kMin && value <= kMax)) reader.fail(key, expected, shown);
    hw.dram.*field = value;
  };
  p.write = [=](const HardwareConfig& hw) {
    const double v = hw.dram.*field;
    return v == double(uint64_t(v)) ? json(uint64_t(v)) : json(v);
  };
  return p;
}

template <class Enum>
HardwareParam choice_param(std::string path, Enum HardwareConfig::*field, std::vector<Enum> values,
                           std::string help) {
  std::vector<std::string> names;
  std::string range;
  for (Enum v : values) {
    names.emplace_back(to_string(v));
    range += (range.empty() ? "" : " \\| ") + std::string("`") + to_string(v) + "`";
  }
  HardwareParam p;
  p.path = std::move(path);
  p.range = range;
  p.help = std::move(help);
  p.read = [=](JsonReader& reader, const std::string& key, HardwareConfig& hw) {
    std::size_t current = 0;
    while (values[current] != hw.*field) ++current;
    hw.*field = values[reader.get_choice(key, names, current)];
  };
  p.write = [=](const HardwareConfig& hw) { return json(to_string(hw.*field)); };
  return p;
}

constexpr double kMaxClockMhz = 100000;
// 1 kHz: below it a run's times overflow to inf (a denormal clock gave "inf" ms and
// null in report.json).
constexpr double kMinClockMhz = 0.001;
constexpr double kMaxPicojoules = 1e6;

// A positive number inside the energy section.
HardwareParam energy_param(std::string path, double EnergyConfig::*field, std::string help) {
  HardwareParam p;
  p.path = std::move(path);
  p.unit = "pJ";
  p.range = "> 0, <= 1000000";
  p.help = std::move(help);
  p.read = [=](JsonReader& reader, const std::string& key, HardwareConfig& hw) {
    hw.energy.*field = reader.get_positive_number(key, kMaxPicojoules, hw.energy.*field);
  };
  p.write = [=](const HardwareConfig& hw) { return json(hw.energy.*field); };
  return p;
}

// A number in [0, max] inside one of the config's sections; `max_text` is
// how the range and the error write max.
template <class Section>
HardwareParam bounded_number_param(std::string path, Section HardwareConfig::*section,
                                   double Section::*field, double max, const std::string& max_text,
                                   std::string unit, std::string help) {
  HardwareParam p;
  p.path = std::move(path);
  p.unit = std::move(unit);
  p.range = ">= 0, <= " + max_text;
  p.help = std::move(help);
  p.read = [=](JsonReader& reader, const std::string& key, HardwareConfig& hw) {
    const json* value = reader.find(key);
    if (!value) return;
    if (value->is_number()) {
      const auto v = value->get<double>();
      if (v >= 0 && v <= max) {
        hw.*section.*field = v;
        return;
      }
    }
    reader.fail(key, "number >= 0 and <= " + max_text, describe_json(*value));
  };
  p.write = [=](const HardwareConfig& hw) { return json(hw.*section.*field); };
  return p;
}

constexpr double kMaxAreaFigure = 1e6;

// A number >= 0 inside the area section (0 leaves a component out).
HardwareParam area_param(std::string path, double AreaConfig::*field, std::string unit,
                         std::string help) {
  return bounded_number_param(std::move(path), &HardwareConfig::area, field, kMaxAreaFigure,
                              "1000000", std::move(unit), std::move(help));
}

// Limits are generous for real designs but stop a typo (an extra zero or two)
// from making the simulator allocate gigabytes or wait forever.
const std::vector<HardwareParam>& hardware_params() {
  static const std::vector<HardwareParam> params = [] {
    std::vector<HardwareParam> t;
    HardwareParam name;
    name.path = "name";
    name.range = "string";
    name.help = "Label used in reports and sweep results";
    name.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
      hw.name = r.get_string(key, hw.name);
    };
    name.write = [](const HardwareConfig& hw) { return json(hw.name); };
    t.push_back(name);

    HardwareParam clock;
    clock.path = "clock_mhz";
    clock.unit = "MHz";
    clock.range = ">= 0.001, <= 100000";
    clock.help = "Clock frequency; converts cycles to time";
    clock.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
      hw.clock_mhz = r.get_number(key, kMinClockMhz, kMaxClockMhz, hw.clock_mhz);
    };
    clock.write = [](const HardwareConfig& hw) { return json(hw.clock_mhz); };
    t.push_back(clock);

    using H = HardwareConfig;
    t.push_back(uint_param("compute.units", &H::compute, &ComputeConfig::units, "", 1, 64,
                           "Compute units, each with its own ping-pong buffer pair"));
    t.push_back(uint_param("compute.array_rows", &H::compute, &ComputeConfig::array_rows, "", 1,
                           1024, "MAC array rows: output channels processed in parallel"));
    t.push_back(uint_param("compute.array_cols", &H::compute, &ComputeConfig::array_cols, "", 1,
                           1024, "MAC array columns: output pixels per cycle per row"));
    t.push_back(
        uint_param("compute.pipeline_latency_cycles", &H::compute,
                   &ComputeConfig::pipeline_latency_cycles, "cycles", 0, 100000,
                   "Pipeline fill/drain paid once per compute instruction (its first stage)"));
    t.push_back(
        choice_param("compute.mode", &H::compute_mode, {ComputeMode::ZeroSkip, ComputeMode::Dense},
                     "Seed 002 zero-coefficient skipping, or every coefficient (ablation)"));
    t.push_back(choice_param(
        "compute.dataflow", &H::dataflow, {Dataflow::Lockstep, Dataflow::Broadcast},
        "How the array applies coefficients: each row its own kernel's, rows in lockstep; or "
        "seed 002's broadcast of one coefficient to all rows x cols multipliers"));
    t.push_back(choice_param(
        "compute.fold", &H::fold, {ArrayFold::Auto, ArrayFold::Stages, ArrayFold::Matmul},
        "Which lockstep stages split the array's columns into groups, each with its own "
        "array_rows kernels: any stage where that takes fewer cycles, or a matmul's few rows "
        "only; auto: stages, or matmul beside data_registers other than in_place "
        "(docs/timing.md#folded-stages)"));
    t.push_back(choice_param(
        "compute.spare_fold_groups", &H::spare_fold_groups,
        {SpareFoldGroups::SplitCoefficients, SpareFoldGroups::Idle},
        "What a fold's column groups left over by a short k-tile do: split each kernel's "
        "coefficients and add the partial sums, or stay idle (docs/timing.md#coefficient-split)"));
    t.push_back(choice_param(
        "compute.data_registers", &H::data_registers,
        {DataRegisters::InPlace, DataRegisters::Double, DataRegisters::Single},
        "Seed 001's data register sets: the array reads the input tile in place, or fetch_ml "
        "bursts fill two register sets in turn (double) or one (single) with each pass's "
        "lowered rows (docs/address-generator.md#data-register-sets)"));
    t.push_back(uint_param("compute.register_fetch_bytes_per_cycle", &H::compute,
                           &ComputeConfig::register_fetch_bytes_per_cycle, "B/cycle", 0, 65536,
                           "Bytes a fetch_ml burst moves into a data register set per cycle; "
                           "0: array_cols"));
    t.push_back(uint_param("compute.accumulator_kib", &H::compute, &ComputeConfig::accumulator_kib,
                           "KiB", 1, 65536, "int32 accumulation buffer per compute unit"));
    t.push_back(uint_param("cache.size_kib", &H::cache, &CacheConfig::size_kib, "KiB", 1, 1048576,
                           "Internal (on-chip) cache capacity"));
    t.push_back(uint_param("cache.banks", &H::cache, &CacheConfig::banks, "", 1, 1024,
                           "Independent cache banks"));
    t.push_back(uint_param("cache.bank_bytes_per_cycle", &H::cache,
                           &CacheConfig::bank_bytes_per_cycle, "B/cycle", 1, 65536,
                           "Bandwidth of one bank"));
    t.push_back(uint_param("cache.ports", &H::cache, &CacheConfig::ports, "", 1, 64,
                           "Cache ports shared by the load, compute and store engines"));
    t.push_back(uint_param("cache.port_bytes_per_cycle", &H::cache,
                           &CacheConfig::port_bytes_per_cycle, "B/cycle", 1, 65536,
                           "Bandwidth of one port"));
    t.push_back(uint_param("cache.kv_kib", &H::cache, &CacheConfig::kv_kib, "KiB", 0, 1048575,
                           "Region of the cache that holds a decoder's key-value cache blocks, "
                           "first come first placed (the tiles get the rest); 0: the key-value "
                           "cache lives in DRAM"));
    t.push_back(bandwidth_param("dram.bytes_per_cycle", &DramConfig::bytes_per_cycle,
                                "Shared DRAM bus bandwidth, in bytes a cycle or as a rate "
                                "(\"34 GB/s\" at 700 MHz is 48.57 B/cycle; banked: the channels' "
                                "peak, set from the device)"));
    t.push_back(uint_param("dram.latency_cycles", &H::dram, &DramConfig::latency_cycles, "cycles",
                           0, 1000000,
                           "From request to first data (banked: the controller's and network's "
                           "part; the model times tRCD and CL)"));
    t.push_back(uint_param("dram.burst_bytes", &H::dram, &DramConfig::burst_bytes, "B", 1, 65536,
                           "Transfers round up to whole bursts (banked: the device's burst)",
                           /*power_of_two=*/true));
    add_banked_dram_params(t);
    t.push_back(choice_param("load.access", &H::load_access,
                             {LoadAccess::Im2col, LoadAccess::HostIm2col, LoadAccess::Mec},
                             "Input lowering (seed 001) of every layer without its own `access`: "
                             "im2col generated on the fly from the input, or a matrix the "
                             "host materialises in DRAM first (im2col rows, or MEC strips)"));
    t.push_back(uint_param("store.batch_bytes", &H::store, &StoreConfig::batch_bytes, "B", 0,
                           16777216,
                           "Results leave in batches of at least this many bytes (whole rows); "
                           "0: seed 003's threshold from the ratio of the bus and array rates "
                           "(docs/timing.md#store-batch)"));
    t.push_back(choice_param(
        "store.batch_floor", &H::store_batch_floor,
        {StoreBatchFloor::ComputeStage, StoreBatchFloor::Row},
        "The least a batch from seed 003's threshold holds: a compute stage's rows, or one row "
        "(the threshold alone); store.batch_bytes, when set, is taken as given "
        "(docs/timing.md#store-batch)"));
    t.push_back(choice_param("store.requantiser", &H::requantiser,
                             {Requantiser::Float32, Requantiser::FixedPoint},
                             "How graph operators' int32 sums are requantised: float32 as ONNX "
                             "Runtime does, or a 16-bit integer multiplier and a shift "
                             "(docs/graphs.md#requantisers)"));
    t.push_back(uint_param("vector.lanes", &H::vector, &VectorConfig::lanes, "elements/cycle", 1,
                           65536, "Vector unit lanes: int8 elements it combines per cycle"));
    t.push_back(uint_param("vector.latency_cycles", &H::vector, &VectorConfig::latency_cycles,
                           "cycles", 0, 100000,
                           "Vector unit pipeline fill, paid once per vector instruction"));
    t.push_back(uint_param("vector.special_per_cycle", &H::vector, &VectorConfig::special_per_cycle,
                           "results/cycle", 1, 65536,
                           "Vector unit special-function results (divisions, square roots) per "
                           "cycle, for softmax and the norms (docs/transformers.md#cost)"));
    t.push_back(uint_param("vector.buffer_kib", &H::vector, &VectorConfig::buffer_kib, "KiB", 1,
                           65536,
                           "Largest cache region the vector unit works in (reserved only when "
                           "a graph has vector operators; the cost mapper may reserve 1/2 .. "
                           "1/64 of it instead, [tiling.md](tiling.md#the-vector-region))"));
    t.push_back(energy_param("energy.mac_pj", &EnergyConfig::mac_pj,
                             "Energy of one int8 MAC the array performs (docs/energy.md)"));
    t.push_back(energy_param("energy.binary_word_pj", &EnergyConfig::binary_word_pj,
                             "Energy of one 32-bit binary word step (XOR, popcount, accumulate); a "
                             "b-bit step costs b/32 "
                             "of it"));
    t.push_back(energy_param("energy.cache_pj_per_byte_at_1mib",
                             &EnergyConfig::cache_pj_per_byte_at_1mib,
                             "Energy per cache byte read or written at 1 MiB; scales with "
                             "sqrt(cache.size_kib / 1024)"));
    t.push_back(energy_param("energy.dram_pj_per_byte", &EnergyConfig::dram_pj_per_byte,
                             "Energy per DRAM byte read or written (whole bursts)"));
    t.push_back(area_param("area.mac_um2", &AreaConfig::mac_um2, "um2",
                           "Area of one int8 MAC of the array (docs/area.md)"));
    t.push_back(area_param("area.binary_lane_um2", &AreaConfig::binary_lane_um2, "um2",
                           "Area each MAC adds for binary layers: XOR and popcount of a 64-bit "
                           "word"));
    t.push_back(area_param("area.sram_mm2_per_mib", &AreaConfig::sram_mm2_per_mib, "mm2/MiB",
                           "Single-port SRAM area per MiB (cache and accumulators)"));
    t.push_back(area_param("area.sram_port_overhead", &AreaConfig::sram_port_overhead, "",
                           "SRAM area added per port beyond the first, as a fraction of the "
                           "single-port area"));
    t.push_back(area_param("area.sram_bank_mm2", &AreaConfig::sram_bank_mm2, "mm2",
                           "Periphery area of one SRAM bank"));
    t.push_back(area_param("area.vector_lane_um2", &AreaConfig::vector_lane_um2, "um2",
                           "Area of one vector unit lane"));
    t.push_back(area_param("area.agu_register_set_um2", &AreaConfig::agu_register_set_um2, "um2",
                           "Area of one address generator register set (two with pingpong "
                           "buffering, one with single)"));
    t.push_back(area_param("area.agu_logic_um2", &AreaConfig::agu_logic_um2, "um2",
                           "Area of the address generator's arithmetic"));
    t.push_back(area_param("area.dram_mm2_per_gbps", &AreaConfig::dram_mm2_per_gbps, "mm2 per GB/s",
                           "DRAM PHY and controller area per GB/s of bus bandwidth"));
    t.push_back(area_param("area.logic_leakage_mw_per_mm2", &AreaConfig::logic_leakage_mw_per_mm2,
                           "mW/mm2",
                           "Leakage power per mm2 of logic (MAC array, vector unit, address "
                           "generator, DRAM interface)"));
    t.push_back(area_param("area.sram_leakage_mw_per_mm2", &AreaConfig::sram_leakage_mw_per_mm2,
                           "mW/mm2", "Leakage power per mm2 of SRAM (cache, accumulators)"));
    t.push_back(choice_param("buffering", &H::buffering, {Buffering::PingPong, Buffering::Single},
                             "Two buffer halves (load overlaps compute) or one"));
    t.push_back(choice_param("compiler.mapper", &H::mapper, {Mapper::Cost, Mapper::Greedy},
                             "How the compiler maps each layer: the candidate with the fewest "
                             "estimated cycles, or the largest tile that fits (docs/mapping.md)"));
    t.push_back(choice_param("compiler.pieces", &H::pieces, {PieceSplit::Equal, PieceSplit::Greedy},
                             "Seed 003: N > 1 pieces as equal as whole rows allow, or the "
                             "largest pieces that fit with the remainder last "
                             "(docs/scheduler.md#pieces)"));
    t.push_back(choice_param("compiler.input_loads", &H::input_loads,
                             {InputLoads::AnyTime, InputLoads::AfterWeights},
                             "Seed 004: input loads wait only for buffer space and their "
                             "producer, or also for their k-tile's weight load "
                             "(docs/scheduler.md#loads-after-weights)"));
    t.push_back(
        choice_param("compiler.load_after_store", &H::load_after_store,
                     {LoadAfterStore::AnyTime, LoadAfterStore::WriteBuffer},
                     "Seed 004 rule 3: a load waits only for the stores whose rows it "
                     "reads, or also for the store before it in the seed's stream until its "
                     "data is in the bus write buffer (docs/scheduler.md#loads-after-a-store)"));
    t.push_back(
        choice_param("compiler.loop_order", &H::loop_order,
                     {LoopOrder::WeightStationary, LoopOrder::FeatureStationary, LoopOrder::Auto},
                     "Seed 004 rule 1's loop orders: each weight tile, then every "
                     "piece's input rows; or each piece's input rows, then the weight "
                     "tiles one by one; or the cost mapper weighs both per layer "
                     "(docs/scheduler.md#loop-orders)"));
    t.push_back(choice_param("compiler.weight_buffers", &H::weight_buffers,
                             {WeightBuffers::Auto, WeightBuffers::Single},
                             "The cost mapper may give the weight region two slots so the next "
                             "weight tile loads while the current one computes, or keeps one "
                             "tile (docs/tiling.md#weight-double-buffering)"));
    t.push_back(choice_param("compiler.column_pieces", &H::column_pieces,
                             {ColumnPieces::Auto, ColumnPieces::Off},
                             "The cost mapper may cut output rows along their width where no "
                             "piece of whole rows fits a k-tile, or never "
                             "(docs/tiling.md#column-pieces)"));
    t.push_back(choice_param("compiler.kernel_parts", &H::kernel_parts,
                             {KernelParts::Auto, KernelParts::Off},
                             "The cost mapper may cut the input channels into parts, a piece's "
                             "sums building up over one compute per part, where whole kernels do "
                             "not fit or fit only in k-tiles below the array's rows, or never "
                             "(docs/tiling.md#kernel-parts)"));
    t.push_back(choice_param("compiler.residency", &H::residency, {Residency::Off, Residency::Auto},
                             "Every operator's output goes to DRAM and its consumers read it "
                             "back; or the memory planner keeps an output in the cache from its "
                             "producer to its last consumer where it fits beside their buffers, "
                             "and a weight block loaded more than once (decode steps) from its "
                             "first load on (docs/memory-plan.md)"));
    t.push_back(uint_param("compiler.units", &H::compiler, &CompilerConfig::units, "", 0, 64,
                           "Compute units the cost mapper gives pieces to, at most "
                           "compute.units; 0: it chooses the count "
                           "(docs/compile-trials.md#the-partition-and-the-units-in-use)"));
    t.push_back(uint_param(
        "compiler.cache_kib", &H::compiler, &CompilerConfig::cache_kib, "KiB", 0, 1048576,
        "The part of the cache the compiler lays its buffers out in, above "
        "cache.kv_kib and at most cache.size_kib (the rest holds only what the memory plan "
        "keeps under compiler.residency auto); 0: all of it, or what compiler.trials "
        "settles (docs/compile-trials.md#compile-trials)"));
    t.push_back(uint_param("compiler.array_rows", &H::compiler, &CompilerConfig::array_rows, "", 0,
                           1024,
                           "MAC array rows the program uses, at most compute.array_rows (the "
                           "rest idle); 0: all, or what compiler.trials settles "
                           "(docs/compile-trials.md#array-in-use)"));
    t.push_back(uint_param("compiler.array_cols", &H::compiler, &CompilerConfig::array_cols, "", 0,
                           1024,
                           "MAC array columns the program uses, at most compute.array_cols (the "
                           "rest idle); 0: all, or what compiler.trials settles "
                           "(docs/compile-trials.md#array-in-use)"));
    t.push_back(bounded_number_param(
        "compiler.traffic_margin", &H::compiler, &CompilerConfig::traffic_margin, 0.5, "0.5",
        "fraction",
        "Of the mappings the cost mapper estimates within this fraction of the fewest cycles, "
        "take the one with the least DRAM bus time (less energy); 0: the fewest cycles "
        "(docs/compile-trials.md#traffic-margin)"));
    t.push_back(choice_param(
        "compiler.trials", &H::trial_mode, {TrialMode::Simulate, TrialMode::Off},
        "Before compiling, simulate (timing only) the cost mapper's program for each unit count "
        "and for the halved cache budgets and smaller parts of the array estimated within 5 %, "
        "and compile the fastest (one more unit then never takes more cycles); or compile the "
        "estimate's choice (docs/compile-trials.md#compile-trials)"));
    t.push_back(choice_param("compiler.array_parts", &H::array_parts,
                             {ArrayParts::Auto, ArrayParts::Whole},
                             "Whether the compile trials also try parts of the MAC array 8, 16, "
                             "... rows and columns smaller, or only the whole array (fewer "
                             "simulations) (docs/compile-trials.md#array-in-use)"));
    t.push_back(choice_param("scheduler.compute_start", &H::compute_start,
                             {ComputeStart::Unit, ComputeStart::Tile},
                             "Seed 004 rule 1 under the early policy: a compute starts with the "
                             "first array_rows kernels' weights, or with the whole weight tile "
                             "(docs/scheduler.md#rule-1)"));
    t.push_back(choice_param("scheduler.policy", &H::policy,
                             {SchedulerPolicy::Strict, SchedulerPolicy::Early},
                             "Dependencies wait for full completion or for stage-end flags"));
    return t;
  }();
  return params;
}

// "compute.units" -> {"compute", "units"}; "name" -> {"", "name"}.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto dot = path.find('.');
  if (dot == std::string::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

}  // namespace

const char* to_string(DramModel m) { return m == DramModel::Bus ? "bus" : "banked"; }
const char* to_string(PagePolicy p) { return p == PagePolicy::Open ? "open" : "closed"; }

const char* to_string(Buffering b) { return b == Buffering::PingPong ? "pingpong" : "single"; }

const char* to_string(ComputeMode m) { return m == ComputeMode::ZeroSkip ? "zero_skip" : "dense"; }

const char* to_string(Dataflow d) { return d == Dataflow::Lockstep ? "lockstep" : "broadcast"; }
const char* to_string(ArrayFold f) {
  return f == ArrayFold::Matmul ? "matmul" : f == ArrayFold::Stages ? "stages" : "auto";
}

bool folds_stages(const HardwareConfig& hw) {
  return hw.fold == ArrayFold::Stages ||
         (hw.fold == ArrayFold::Auto && hw.data_registers == DataRegisters::InPlace);
}

bool splits_coefficients(const HardwareConfig& hw) {
  return hw.spare_fold_groups == SpareFoldGroups::SplitCoefficients &&
         hw.data_registers == DataRegisters::InPlace;
}

const char* to_string(SpareFoldGroups s) {
  return s == SpareFoldGroups::SplitCoefficients ? "split_coefficients" : "idle";
}

const char* to_string(StoreBatchFloor f) {
  return f == StoreBatchFloor::ComputeStage ? "compute_stage" : "row";
}

const char* to_string(Requantiser r) {
  return r == Requantiser::Float32 ? "float32" : "fixed_point";
}

const char* to_string(LoadAccess a) {
  return a == LoadAccess::Im2col ? "im2col" : a == LoadAccess::HostIm2col ? "host_im2col" : "mec";
}

const char* to_string(Mapper m) { return m == Mapper::Cost ? "cost" : "greedy"; }

const char* to_string(PieceSplit p) { return p == PieceSplit::Equal ? "equal" : "greedy"; }

const char* to_string(ComputeStart c) { return c == ComputeStart::Unit ? "unit" : "tile"; }

const char* to_string(InputLoads i) {
  return i == InputLoads::AnyTime ? "any_time" : "after_weights";
}

const char* to_string(LoadAfterStore l) {
  return l == LoadAfterStore::AnyTime ? "any_time" : "write_buffer";
}

const char* to_string(WeightBuffers w) { return w == WeightBuffers::Auto ? "auto" : "single"; }

const char* to_string(ColumnPieces c) { return c == ColumnPieces::Auto ? "auto" : "off"; }
const char* to_string(KernelParts k) { return k == KernelParts::Auto ? "auto" : "off"; }
const char* to_string(Residency r) { return r == Residency::Auto ? "auto" : "off"; }

const char* to_string(LoopOrder o) {
  switch (o) {
    case LoopOrder::WeightStationary:
      return "weight_stationary";
    case LoopOrder::FeatureStationary:
      return "feature_stationary";
    case LoopOrder::Auto:
      return "auto";
  }
  return "?";
}

const char* to_string(TrialMode u) { return u == TrialMode::Simulate ? "simulate" : "off"; }

const char* to_string(ArrayParts a) { return a == ArrayParts::Auto ? "auto" : "whole"; }

const char* to_string(DataRegisters d) {
  return d == DataRegisters::InPlace  ? "in_place"
         : d == DataRegisters::Double ? "double"
                                      : "single";
}

const char* to_string(SchedulerPolicy p) {
  return p == SchedulerPolicy::Strict ? "strict" : "early";
}

HardwareConfig parse_hardware_config(const json& j, const std::string& file) {
  check_json_depth(j, file);  // callers copy it (sweeps, program headers)
  HardwareConfig hw;
  JsonReader root(j, file);
  // Sections are read lazily; an absent section keeps all its defaults.
  std::map<std::string, std::optional<JsonReader>> sections;
  std::vector<std::string> section_order;
  for (const auto& param : hardware_params()) {
    const auto [section, key] = split_path(param.path);
    JsonReader* reader = &root;
    if (!section.empty()) {
      auto it = sections.find(section);
      if (it == sections.end()) {
        std::optional<JsonReader> child;
        if (const json* value = root.find(section)) {
          child.emplace(*value, file, root.pointer_to(section));
        }
        it = sections.emplace(section, std::move(child)).first;
        section_order.push_back(section);
      }
      if (!it->second) continue;
      reader = &*it->second;
    }
    param.read(*reader, key, hw);
  }
  // Seed 004's "data loads wait for the last weight load" orders input loads
  // after weights, which a feature-stationary loop (rows first) cannot do.
  if (hw.loop_order == LoopOrder::FeatureStationary && hw.input_loads == InputLoads::AfterWeights)
    sections.at("compiler")
        ->fail("loop_order",
               "\"weight_stationary\" with input_loads \"after_weights\" (a "
               "feature-stationary loop loads a piece's rows before its weights)",
               "\"feature_stationary\"");
  // Seed 001's register sets fetch a pass's pixels for every array row: a
  // folded pass would need other rows' pixels (register_fed_stage_cycles).
  // ("auto" folds stages only without them.)
  if (hw.fold == ArrayFold::Stages && hw.data_registers != DataRegisters::InPlace)
    sections.at("compute")->fail("fold",
                                 "\"matmul\" with data_registers \"" +
                                     std::string(to_string(hw.data_registers)) +
                                     "\" (folded stages read the tile in place)",
                                 "\"stages\"");
  // What the compiler is told may not exceed what the hardware has.
  const auto at_most = [&](const char* key, uint32_t value, const char* limit_key, uint32_t limit,
                           const char* why) {
    if (value > limit)
      sections.at("compiler")
          ->fail(
              key,
              "0 .. " + std::string(limit_key) + " = " + std::to_string(limit) + " (" + why + ")",
              std::to_string(value));
  };
  at_most("units", hw.compiler.units, "compute.units", hw.compute.units,
          "the compiler gives pieces to at most the units the hardware has");
  at_most("array_rows", hw.compiler.array_rows, "compute.array_rows", hw.compute.array_rows,
          "a program uses at most the array the hardware has");
  at_most("array_cols", hw.compiler.array_cols, "compute.array_cols", hw.compute.array_cols,
          "a program uses at most the array the hardware has");
  if (hw.compiler.cache_kib != 0 &&
      (hw.compiler.cache_kib > hw.cache.size_kib || hw.compiler.cache_kib <= hw.cache.kv_kib))
    sections.at("compiler")
        ->fail("cache_kib",
               "0, or above cache.kv_kib = " + std::to_string(hw.cache.kv_kib) +
                   " and at most cache.size_kib = " + std::to_string(hw.cache.size_kib),
               std::to_string(hw.compiler.cache_kib));
  if (hw.cache.kv_kib >= hw.cache.size_kib)
    sections.at("cache")->fail("kv_kib",
                               "less than cache.size_kib = " + std::to_string(hw.cache.size_kib) +
                                   " (the tiles need the rest of the cache)",
                               std::to_string(hw.cache.kv_kib));
  {
    const auto dram = sections.find("dram");
    finish_dram_config(hw, dram != sections.end() && dram->second ? &*dram->second : nullptr);
  }
  for (const auto& section : section_order) {
    if (sections.at(section)) sections.at(section)->finish();
  }
  root.finish();
  return hw;
}

HardwareConfig array_in_use(const HardwareConfig& hw) {
  HardwareConfig out = hw;
  out.compute.array_rows = hw.rows_in_use();
  out.compute.array_cols = hw.cols_in_use();
  return out;
}

HardwareConfig load_hardware_config(const std::string& path) {
  return parse_hardware_config(load_json_file(path), path);
}

json to_json(const HardwareConfig& hw) {
  json j = json::object();
  for (const auto& param : hardware_params()) {
    const auto [section, key] = split_path(param.path);
    json value = param.write(hw);
    if (value.is_null()) continue;  // a key that does not apply (the banked DRAM's, on a bus)
    if (section.empty()) {
      j[key] = std::move(value);
    } else {
      j[section][key] = std::move(value);
    }
  }
  return j;
}

std::string hardware_parameter_reference() {
  const HardwareConfig defaults;
  HardwareConfig banked;  // the banked DRAM's keys show their defaults under it
  banked.dram.model = DramModel::Banked;
  std::ostringstream out;
  out << "| Key | Default | Unit | Accepted | Meaning |\n";
  out << "|---|---|---|---|---|\n";
  for (const auto& param : hardware_params()) {
    const json value = param.write(defaults);
    out << "| `" << param.path << "` | `" << (value.is_null() ? param.write(banked) : value).dump()
        << "` | " << param.unit << " | " << param.range << " | " << param.help << " |\n";
  }
  return out.str();
}

}  // namespace npusim
