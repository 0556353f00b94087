// The fast banked DRAM model against the command-level reference controller
// (tests/support/dram_command_model.h), which shares no code with it: each
// pattern's last data clock agrees within the bounds docs/dram.md states
// (5 % on streams and strides, 15 % on random accesses) on a DDR4 and an
// HBM3 device. NPUSIM_PRINT_DRAM_ERRORS=1 prints the table docs/dram.md quotes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "models/banked_dram.h"
#include "tests/support/dram_command_model.h"

using namespace npusim;

namespace {

// One transfer of a pattern, issued at clock 0 like all the others.
struct Piece {
  bool write;
  DramAccess access;
};

// The bursts of `pieces` as the reference's requests, in the same order.
std::vector<test::RefRequest> requests_of(const std::vector<Piece>& pieces, uint32_t burst) {
  std::vector<test::RefRequest> out;
  for (const Piece& p : pieces) {
    const uint64_t stride = p.access.stride ? p.access.stride : p.access.segment_bytes;
    uint64_t previous = ~uint64_t(0);
    for (uint64_t s = 0; s < p.access.segments; ++s) {
      const uint64_t a = p.access.address + s * stride;
      for (uint64_t b = a / burst; b <= (a + p.access.segment_bytes - 1) / burst; ++b)
        if (b != previous) out.push_back({b * burst, p.write, 0}), previous = b;
    }
  }
  return out;
}

struct Comparison {
  uint64_t fast = 0, reference = 0;
  double error() const { return std::fabs(double(fast) - double(reference)) / double(reference); }
};

Comparison compare_with_reference(const DramConfig& c, const std::vector<Piece>& pieces) {
  BankedDramTiming fast(c, c.device.clock_mhz);  // one accelerator cycle per command clock
  Comparison out;
  // The last data on the DRAM: a read's, or a held write's once placed.
  const auto track = [&](const BankedDramTiming::Result& r, bool write) {
    if (!write || c.write_queue == 0) out.fast = std::max(out.fast, r.last_data);
    for (const BankedDramTiming::WritesPlaced& w : r.writes_placed)
      out.fast = std::max(out.fast, w.last_data);
  };
  for (const Piece& p : pieces) track(fast.transfer(0, p.write, p.access), p.write);
  track(fast.flush(), false);
  const auto ref = test::simulate_commands(
      c.device,
      c.page_policy == PagePolicy::Open ? test::RefPagePolicy::Open : test::RefPagePolicy::Closed,
      c.mapping, requests_of(pieces, c.device.burst_bytes()), 32, false, c.write_queue);
  for (uint64_t end : ref.data_end) out.reference = std::max(out.reference, end);
  return out;
}

DramConfig device(const char* preset) {
  DramConfig c;
  c.model = DramModel::Banked;
  c.device = find_dram_preset(preset)->device;
  return c;
}

// Patterns an engine issues: one long stream, runs at a stride (a k-tile's
// pixels, an NCHW plane's rows), random bursts, reads and writes alternating.
std::vector<Piece> stream(uint64_t bytes) { return {{false, {0, 1, bytes, 0}}}; }
std::vector<Piece> strided(uint64_t runs, uint64_t run, uint64_t stride) {
  return {{false, {4096, runs, run, stride}}};
}
std::vector<Piece> random_bursts(uint64_t count, uint64_t span) {
  std::vector<Piece> out;
  uint64_t x = 12345;
  for (uint64_t i = 0; i < count; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back({false, {(x >> 20) % span / 64 * 64, 1, 64, 0}});
  }
  return out;
}
std::vector<Piece> read_write_mix(uint64_t pairs, uint64_t bytes) {
  std::vector<Piece> out;
  for (uint64_t i = 0; i < pairs; ++i) {
    out.push_back({false, {i * bytes, 1, bytes, 0}});
    out.push_back({true, {(1 << 24) + i * bytes, 1, bytes, 0}});
  }
  return out;
}

void print(const char* preset, const char* pattern, const Comparison& c) {
  if (std::getenv("NPUSIM_PRINT_DRAM_ERRORS"))
    std::printf("| %s | %s | %llu | %llu | %+.1f %% |\n", preset, pattern,
                (unsigned long long)c.fast, (unsigned long long)c.reference,
                100.0 * (double(c.fast) - double(c.reference)) / double(c.reference));
}

}  // namespace

TEST_CASE("banked DRAM vs the command-level reference: streams and strides within 5 percent",
          "[dram]") {
  for (const char* preset : {"ddr4_3200", "hbm3"}) {
    const DramConfig c = device(preset);
    INFO(preset);
    for (uint64_t bytes : {4096ull, 65536ull, 1048576ull}) {
      const Comparison s = compare_with_reference(c, stream(bytes));
      print(preset, ("stream " + std::to_string(bytes) + " B").c_str(), s);
      CHECK(s.error() < 0.05);
    }
    const Comparison rows = compare_with_reference(c, strided(256, 256, 2048));
    print(preset, "256 runs of 256 B, 2 KiB apart", rows);
    CHECK(rows.error() < 0.05);
    const Comparison pixels = compare_with_reference(c, strided(1024, 64, 512));
    print(preset, "1024 runs of 64 B, 512 B apart", pixels);
    CHECK(pixels.error() < 0.05);
  }
}

TEST_CASE(
    "banked DRAM vs the command-level reference: a stream over two ranks, switching every burst "
    "or once after 32 KiB, within 5 percent",
    "[dram]") {
  DramConfig c = device("ddr4_3200");
  c.device.ranks = 2;
  for (const char* mapping :
       {"row:bank:column:bankgroup:rank:channel", "row:bank:rank:column:bankgroup:channel"}) {
    c.mapping = mapping;
    INFO(mapping);
    const Comparison s = compare_with_reference(c, stream(65536));
    print("ddr4_3200, 2 ranks", (std::string("stream 65536 B, ") + mapping).c_str(), s);
    CHECK(s.error() < 0.05);
  }
}

// The fast model places each burst at the earliest clock every rule allows
// against the bursts already placed, so single-burst transfers interleave
// around each other's bank conflicts as the reference's queue does; a placed
// burst never moves, so an activate placed tRRD_L after one of its bank group
// keeps a later-requested activate of another group out of the tRRD_S slot
// before it, where the reference, issuing in clock order, takes that one
// first: the fast model stays slower, never faster. With tRRD_L = tRRD_S the
// order costs nothing and most of HBM3's gap closes. The bounds are the
// measured ones (HBM3 +14.4 %, +6.2 % with tRRD_L = tRRD_S; DDR4 +5.3 %),
// rounded up, so a change that widens the gap fails here.
TEST_CASE(
    "banked DRAM vs the command-level reference: random single-burst transfers within 15 "
    "percent, never faster, and HBM3's within 7 percent with tRRD_L equal to tRRD_S",
    "[dram]") {
  for (const char* preset : {"ddr4_3200", "hbm3"}) {
    const DramConfig c = device(preset);
    INFO(preset);
    const Comparison r = compare_with_reference(c, random_bursts(4096, uint64_t(1) << 30));
    print(preset, "4096 random 64 B reads in 1 GiB, one transfer each", r);
    CHECK(r.fast >= r.reference);
    CHECK(r.error() < 0.15);
  }
  DramConfig c = device("hbm3");
  c.device.trrd_l = c.device.trrd_s;
  const Comparison r = compare_with_reference(c, random_bursts(4096, uint64_t(1) << 30));
  print("hbm3, trrd_l = trrd_s = 7", "4096 random 64 B reads in 1 GiB, one transfer each", r);
  CHECK(r.fast >= r.reference);
  CHECK(r.error() < 0.07);
}

TEST_CASE(
    "banked DRAM vs the command-level reference: alternating read and write transfers within 5 "
    "percent on one channel, at most 5.5x on 32",
    "[dram]") {
  const Comparison ddr4 = compare_with_reference(device("ddr4_3200"), read_write_mix(16, 4096));
  print("ddr4_3200", "16 x (4 KiB read, 4 KiB write)", ddr4);
  CHECK(ddr4.error() < 0.05);
  // 32 pseudo-channels: a 4 KiB transfer is 4 bursts per channel, and the
  // reads and the writes fall in the same banks, other rows. The reference
  // serves the queued reads first and the writes in batches; the fast model
  // must place each write when it comes (its grant is final), so every
  // transfer switches each bank's row (tRAS + tRP), the known gap.
  const Comparison hbm3 = compare_with_reference(device("hbm3"), read_write_mix(16, 4096));
  print("hbm3", "16 x (4 KiB read, 4 KiB write)", hbm3);
  CHECK(hbm3.fast >= hbm3.reference);
  CHECK(hbm3.fast < 5.5 * double(hbm3.reference));
  const Comparison large = compare_with_reference(device("hbm3"), read_write_mix(4, 65536));
  print("hbm3", "4 x (64 KiB read, 64 KiB write)", large);
  CHECK(large.fast >= large.reference);
}

// With dram.write_queue 32 the reference holds writes in a queue of its own
// as well (tests/support/dram_command_model.h): reads go first, writes while
// no read is queued or when the queue is full. The fast model places a batch
// of held writes at the earliest clocks they fit after the channel's placed
// data, grouped by row, so it stays faster; the bound is the measured gap
// (-8.5 % on HBM3), rounded up.
TEST_CASE(
    "banked DRAM vs the command-level reference, both with a write queue: alternating read and "
    "write transfers within 10 percent on one channel and on 32",
    "[dram]") {
  for (const char* preset : {"ddr4_3200", "hbm3"}) {
    DramConfig c = device(preset);
    c.write_queue = 32;
    INFO(preset);
    const Comparison small = compare_with_reference(c, read_write_mix(16, 4096));
    print((std::string(preset) + ", write queue 32").c_str(), "16 x (4 KiB read, 4 KiB write)",
          small);
    CHECK(small.error() < 0.10);
    const Comparison large = compare_with_reference(c, read_write_mix(4, 65536));
    print((std::string(preset) + ", write queue 32").c_str(), "4 x (64 KiB read, 64 KiB write)",
          large);
    CHECK(large.error() < 0.10);
  }
}
