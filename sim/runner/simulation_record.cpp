#include "sim/runner/simulation_record.h"

#include <iterator>
#include <stdexcept>
#include <string_view>

namespace npusim {
namespace {

constexpr uint64_t kRecordVersion = 2;

// LayerTiling's places, as codes: the report's words are literals.
const char* const kOutputIn[] = {"dram", "cache", "kv_region"};
const char* const kWeightsIn[] = {"", "dram", "cache"};

template <size_t N>
uint64_t code_of(const char* const (&words)[N], const char* word, const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (std::string_view(words[i]) == word) return i;
  throw std::logic_error(std::string("simulation record: no code for ") + what + " '" + word + "'");
}

void put(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(uint8_t(v)));
}

void put(std::string& out, const std::string& s) {
  put(out, uint64_t(s.size()));
  out += s;
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  uint64_t number() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at_ == bytes_.size()) fail("it ends inside a number");
      const uint8_t b = uint8_t(bytes_[at_++]);
      v |= uint64_t(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("a number runs past 64 bits");
  }
  std::string text() {
    const uint64_t n = number();
    if (n > bytes_.size() - at_) fail("it ends inside a string");
    std::string s(bytes_.substr(at_, n));
    at_ += n;
    return s;
  }
  bool done() const { return at_ == bytes_.size(); }
  [[noreturn]] static void fail(const std::string& why) {
    throw std::runtime_error("a compile trial's simulation record is malformed: " + why);
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace

std::string encode_simulation(const StatsRegistry& stats, const RunOutcome& outcome,
                              const std::vector<LayerTiling>& tiling, uint64_t instructions) {
  std::string out;
  put(out, kRecordVersion);
  put(out, stats.layers());
  const std::vector<const Counter*> counters = stats.counters();
  put(out, counters.size());
  for (const Counter* c : counters) {
    put(out, c->name());
    put(out, c->unit());
    put(out, c->meaning());
    put(out, c->reduce() == Counter::Reduce::Max ? 1 : 0);
    for (uint32_t l = 0; l < stats.layers(); ++l) put(out, c->at(l));
  }
  put(out, uint64_t(outcome.status));
  put(out, outcome.message);
  put(out, outcome.cycles);
  put(out, outcome.dram_channels.size());
  for (const DramChannelFigures& f : outcome.dram_channels)
    for (uint64_t v : {f.read_bytes, f.write_bytes, f.activates, f.row_hits, f.row_conflicts,
                       f.refreshes, f.busy_cycles, f.refresh_cycles})
      put(out, v);
  put(out, tiling.size());
  for (const LayerTiling& t : tiling) {
    for (uint64_t v :
         {uint64_t(t.k_tile), uint64_t(t.pieces), uint64_t(t.rows_per_piece), t.half_bytes,
          uint64_t(t.weight_buffers), uint64_t(t.units), uint64_t(t.input_channel_tiles),
          uint64_t(t.cols_per_piece), uint64_t(t.feature_stationary), uint64_t(t.channels_per_part),
          t.estimate_cycles})
      put(out, v);
    put(out, code_of(kOutputIn, t.output_in, "output_in"));
    put(out, code_of(kWeightsIn, t.weights_in, "weights_in"));
  }
  put(out, instructions);
  return out;
}

DecodedSimulation decode_simulation(std::string_view bytes, uint32_t layers) {
  Reader in(bytes);
  if (in.number() != kRecordVersion) Reader::fail("another version");
  if (in.number() != layers) Reader::fail("it was made for another number of operators");
  DecodedSimulation d;
  d.stats = std::make_unique<StatsRegistry>(layers);
  const uint64_t counters = in.number();
  for (uint64_t i = 0; i < counters; ++i) {
    const std::string name = in.text(), unit = in.text(), meaning = in.text();
    const uint64_t reduce = in.number();
    if (reduce > 1) Reader::fail("counter " + name + " has no reduction " + std::to_string(reduce));
    Counter& c = d.stats->declare(name, unit, meaning,
                                  reduce == 1 ? Counter::Reduce::Max : Counter::Reduce::Sum);
    for (uint32_t l = 0; l < layers; ++l) c.add(l, in.number());
  }
  const uint64_t status = in.number();
  if (status > uint64_t(RunOutcome::Status::Deadlocked))
    Reader::fail("no outcome status " + std::to_string(status));
  d.outcome.status = RunOutcome::Status(status);
  d.outcome.message = in.text();
  d.outcome.cycles = in.number();
  const uint64_t channels = in.number();
  if (channels > bytes.size()) Reader::fail("more DRAM channels than bytes");
  d.outcome.dram_channels.resize(channels);
  for (DramChannelFigures& f : d.outcome.dram_channels)
    for (uint64_t* v : {&f.read_bytes, &f.write_bytes, &f.activates, &f.row_hits, &f.row_conflicts,
                        &f.refreshes, &f.busy_cycles, &f.refresh_cycles})
      *v = in.number();
  const uint64_t tilings = in.number();
  if (tilings != layers) Reader::fail("its tilings are not one per operator");
  d.tiling.resize(layers);
  const auto u32 = [&in]() {
    const uint64_t v = in.number();
    if (v > UINT32_MAX) Reader::fail("a tiling field past 32 bits");
    return uint32_t(v);
  };
  const auto word = [&in](const auto& words) {
    const uint64_t v = in.number();
    if (v >= std::size(words)) Reader::fail("no place of code " + std::to_string(v));
    return words[v];
  };
  for (LayerTiling& t : d.tiling) {
    t.k_tile = u32();
    t.pieces = u32();
    t.rows_per_piece = u32();
    t.half_bytes = in.number();
    t.weight_buffers = u32();
    t.units = u32();
    t.input_channel_tiles = in.number() != 0;
    t.cols_per_piece = u32();
    t.feature_stationary = in.number() != 0;
    t.channels_per_part = u32();
    t.estimate_cycles = in.number();
    t.output_in = word(kOutputIn);
    t.weights_in = word(kWeightsIn);
  }
  d.instructions = in.number();
  if (!in.done()) Reader::fail("bytes are left over");
  return d;
}

}  // namespace npusim
