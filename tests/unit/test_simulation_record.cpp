// The record a compile trial's process hands the run (sim/runner/simulation_record.h):
// every counter and the outcome come back as they were, and a damaged record is refused
// rather than read as other numbers.
#include <catch2/catch.hpp>
#include <string>

#include "sim/runner/simulation_record.h"

using namespace npusim;

namespace {

StatsRegistry record_stats() {
  StatsRegistry stats(3);
  Counter& cycles = stats.declare("layer.cycles", "cycles", "finish - start");
  Counter& finish =
      stats.declare("layer.finish_cycle", "cycle", "last finish", Counter::Reduce::Max);
  cycles.add(0, 127);
  cycles.add(1, 128);  // the first value of two varint bytes
  cycles.add(2, uint64_t(1) << 40);
  finish.raise_to(0, 5);
  finish.raise_to(2, UINT64_MAX);
  return stats;
}

std::vector<LayerTiling> record_tiling() {
  std::vector<LayerTiling> t(3);
  t[0].k_tile = 32, t[0].pieces = 4, t[0].rows_per_piece = 14, t[0].half_bytes = 65536;
  t[0].weight_buffers = 2, t[0].units = 3, t[0].input_channel_tiles = true;
  t[0].cols_per_piece = 480, t[0].feature_stationary = true, t[0].channels_per_part = 64;
  t[0].estimate_cycles = 123456789012, t[0].output_in = "kv_region", t[0].weights_in = "cache";
  t[1].output_in = "cache", t[1].weights_in = "dram";
  return t;
}

RunOutcome record_outcome() {
  RunOutcome o;
  o.status = RunOutcome::Status::Completed;
  o.message = "done";
  o.cycles = 4858939257;
  DramChannelFigures f;
  f.read_bytes = 1, f.write_bytes = 2, f.activates = 3, f.row_hits = 4;
  f.row_conflicts = 5, f.refreshes = 6, f.busy_cycles = 7, f.refresh_cycles = 8;
  o.dram_channels = {f, DramChannelFigures{}};
  return o;
}

}  // namespace

TEST_CASE(
    "simulation record: counters (names, units, meanings, reductions, every layer's value), the "
    "outcome, every layer's tiling and the instruction count come back as they were",
    "[trials]") {
  const StatsRegistry stats = record_stats();
  const RunOutcome outcome = record_outcome();
  const DecodedSimulation d =
      decode_simulation(encode_simulation(stats, outcome, record_tiling(), 3664694), 3);
  REQUIRE(d.stats->counters().size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const Counter& a = *stats.counters()[i];
    const Counter& b = *d.stats->counters()[i];
    CHECK(b.name() == a.name());
    CHECK(b.unit() == a.unit());
    CHECK(b.meaning() == a.meaning());
    CHECK(b.reduce() == a.reduce());
    for (uint32_t l = 0; l < 3; ++l) CHECK(b.at(l) == a.at(l));
  }
  CHECK(d.stats->get("layer.finish_cycle").at(2) == UINT64_MAX);
  CHECK(d.stats->get("layer.cycles").at(2) == uint64_t(1) << 40);
  CHECK(d.stats->get("layer.finish_cycle").reduce() == Counter::Reduce::Max);
  CHECK(d.outcome.status == outcome.status);
  CHECK(d.outcome.message == "done");
  CHECK(d.outcome.cycles == 4858939257);
  REQUIRE(d.outcome.dram_channels.size() == 2);
  const DramChannelFigures& f = d.outcome.dram_channels[0];
  CHECK(f.read_bytes == 1);
  CHECK(f.write_bytes == 2);
  CHECK(f.activates == 3);
  CHECK(f.row_hits == 4);
  CHECK(f.row_conflicts == 5);
  CHECK(f.refreshes == 6);
  CHECK(f.busy_cycles == 7);
  CHECK(f.refresh_cycles == 8);
  CHECK(d.instructions == 3664694);
  REQUIRE(d.tiling.size() == 3);
  const LayerTiling& t = d.tiling[0];
  CHECK(t.k_tile == 32);
  CHECK(t.pieces == 4);
  CHECK(t.rows_per_piece == 14);
  CHECK(t.half_bytes == 65536);
  CHECK(t.weight_buffers == 2);
  CHECK(t.units == 3);
  CHECK(t.input_channel_tiles);
  CHECK(t.cols_per_piece == 480);
  CHECK(t.feature_stationary);
  CHECK(t.channels_per_part == 64);
  CHECK(t.estimate_cycles == 123456789012);
  CHECK(std::string(t.output_in) == "kv_region");
  CHECK(std::string(t.weights_in) == "cache");
  CHECK(std::string(d.tiling[1].output_in) == "cache");
  CHECK(std::string(d.tiling[1].weights_in) == "dram");
  CHECK(std::string(d.tiling[2].output_in) == "dram");
  CHECK(std::string(d.tiling[2].weights_in).empty());
  CHECK_FALSE(d.tiling[2].feature_stationary);
}

TEST_CASE(
    "simulation record: one cut short, with bytes left over or made for another number of "
    "operators is refused with the reason",
    "[trials]") {
  const std::string bytes =
      encode_simulation(record_stats(), record_outcome(), record_tiling(), 60);
  CHECK_THROWS_WITH(decode_simulation(bytes.substr(0, bytes.size() - 1), 3),
                    Catch::Contains("malformed: it ends inside a number"));
  CHECK_THROWS_WITH(decode_simulation(bytes + "x", 3),
                    Catch::Contains("malformed: bytes are left over"));
  CHECK_THROWS_WITH(decode_simulation(bytes, 4),
                    Catch::Contains("made for another number of operators"));
}
