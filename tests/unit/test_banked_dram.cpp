// The banked DRAM's timing, worked by hand from the JEDEC constraints
// (docs/dram.md#the-banked-model). The device is DDR4-3200-like, written out
// here (not a preset), and the accelerator runs at the DRAM's command clock,
// so cycles are clocks.
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/banked_dram.h"

using namespace npusim;

namespace {

DramConfig hand_device(const std::string& mapping, uint32_t channels = 1) {
  DramConfig c;
  c.model = DramModel::Banked;
  DramDevice& d = c.device;
  d.channels = channels;
  d.ranks = 1;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.channel_bits = 64;
  d.burst_length = 8;  // 64 B bursts, 4 clocks each
  d.row_bytes = 8192;  // 128 bursts
  d.clock_mhz = 1600;
  d.beats_per_clock = 2;
  d.cl = 22;
  d.cwl = 16;
  d.trcd = 22;
  d.trp = 22;
  d.tras = 52;
  d.trrd_s = 4;
  d.trrd_l = 8;
  d.tfaw = 34;
  d.tccd_s = 4;
  d.tccd_l = 8;
  d.twtr_s = 4;
  d.twtr_l = 12;
  d.trtw = 14;
  d.twr = 24;
  d.trtp = 12;
  d.trefi = 12480;
  d.trfc = 560;
  c.mapping = mapping;
  c.write_queue = 0;  // each write placed when asked; the queue's own cases set it
  return c;
}

// Consecutive bursts walk one bank's row: its columns are the low bits.
const char* kColumnsLow = "row:rank:bankgroup:bank:column:channel";

}  // namespace

TEST_CASE(
    "banked DRAM: a read to a closed bank waits tRCD after its activate, then CL and the burst",
    "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1600);
  const auto r = dram.transfer(0, false, {0, 1, 64});
  // ACT at 0, READ at tRCD = 22, data 22 + CL 22 = 44 .. 48.
  CHECK(r.first_data == 44);
  CHECK(r.last_data == 48);
  CHECK(r.misses == 1);
  CHECK(r.hits == 0);
}

TEST_CASE("banked DRAM: bursts to the open row follow tCCD_L apart in one bank group", "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1600);
  const auto r = dram.transfer(0, false, {0, 1, 4 * 64});
  // READs at 22, 30, 38, 46 (tCCD_L = 8 > the burst's 4): the last data ends at 46 + 22 + 4.
  CHECK(r.last_data == 72);
  CHECK(r.misses == 1);
  CHECK(r.hits == 3);
}

TEST_CASE("banked DRAM: another row of the open bank precharges after tRAS, then tRP and tRCD",
          "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1600);
  dram.transfer(0, false, {0, 1, 64});
  // Row 1 of the same bank: the row field sits above 4 x 4 banks x 128 bursts x 64 B.
  const uint64_t next_row = uint64_t(16) * 8192;
  REQUIRE(dram.decode(next_row).row == 1);
  REQUIRE(dram.decode(next_row).bank == 0);
  const auto r = dram.transfer(0, false, {next_row, 1, 64});
  // PRE at max(ACT 0 + tRAS 52, READ 22 + tRTP 12) = 52; ACT at 52 + tRP = 74;
  // READ at 74 + tRCD = 96; data ends 96 + CL 22 + 4 = 122.
  CHECK(r.conflicts == 1);
  CHECK(r.last_data == 122);
}

TEST_CASE("banked DRAM: a fifth activate in a rank waits for the tFAW window", "[dram]") {
  // Consecutive bursts rotate the bank groups, then the banks: five bursts open five banks.
  BankedDramTiming dram(hand_device("row:column:rank:bank:bankgroup:channel"), 1600);
  const auto r = dram.transfer(0, false, {0, 1, 5 * 64});
  // ACTs at 0, 4, 8, 12 (tRRD_S); READs at 22, 26, 30, 34, data to 60. The fifth ACT
  // would go at 16 but waits for the first + tFAW = 34: READ at 56, data ends 56 + 26 = 82.
  CHECK(r.misses == 5);
  CHECK(r.last_data == 82);
}

TEST_CASE("banked DRAM: a refresh due mid-stream closes the row and stalls the rank for tRFC",
          "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  c.device.trefi = 200;
  c.device.trfc = 50;
  BankedDramTiming dram(c, 1600);
  const auto r = dram.transfer(0, false, {0, 1, 21 * 64});
  // Hits end at 48 + 8 i; burst 20 finds the bus free only at 200, when refresh 1 is
  // due. The bank closes at max(ACT + tRAS = 52, READ 174 + tRTP = 186) + tRP = 208;
  // the refresh holds the rank to 258; ACT 258, READ 280, data ends 280 + 26 = 306.
  CHECK(r.refreshes == 1);
  CHECK(r.misses == 2);
  CHECK(r.hits == 19);
  CHECK(r.last_data == 306);
}

TEST_CASE("banked DRAM: the lowest address bits pick the channel, so a stream splits across them",
          "[dram]") {
  BankedDramTiming two(hand_device(kColumnsLow, 2), 1600);
  BankedDramTiming one(hand_device(kColumnsLow, 1), 1600);
  REQUIRE(two.decode(64).channel == 1);
  REQUIRE(two.decode(128).column == 1);
  // Two channels: each takes two bursts of one row, READs at 22 and 30: data to 56.
  CHECK(two.transfer(0, false, {0, 1, 4 * 64}).last_data == 56);
  // One channel: four READs 8 apart, data to 72.
  CHECK(one.transfer(0, false, {0, 1, 4 * 64}).last_data == 72);
}

TEST_CASE("banked DRAM: a read after a write to the same bank group waits tWTR_L after its data",
          "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1600);
  const auto w = dram.transfer(0, true, {0, 1, 64});
  // ACT 0, WRITE at 22, data 22 + CWL 16 = 38 .. 42.
  CHECK(w.last_data == 42);
  const auto r = dram.transfer(0, false, {64, 1, 64});
  // A hit, but the READ waits for 42 + tWTR_L 12 = 54: data ends 54 + 26 = 80.
  CHECK(r.hits == 1);
  CHECK(r.last_data == 80);
}

TEST_CASE("banked DRAM: under the closed page policy every access activates its row again",
          "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  c.page_policy = PagePolicy::Closed;
  BankedDramTiming dram(c, 1600);
  const auto r = dram.transfer(0, false, {0, 1, 2 * 64});
  // READ 22 auto-precharges at max(22 + tRTP, 0 + tRAS) = 52; ACT 74, READ 96, data to 122.
  CHECK(r.misses == 2);
  CHECK(r.hits == 0);
  CHECK(r.last_data == 122);
}

TEST_CASE("banked DRAM: segments of a strided transfer each move the bursts they touch, once",
          "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1600);
  // 8-byte runs 16 B apart: 8 runs touch bursts 0 and 1 only.
  CHECK(dram.transfer(0, false, {0, 8, 8, 16}).bursts == 2);
  // A run that straddles a burst boundary moves both.
  CHECK(dram.transfer(0, false, {60, 1, 8}).bursts == 2);
}

TEST_CASE("banked DRAM: accelerator cycles convert to command clocks and back, rounding up",
          "[dram]") {
  BankedDramTiming dram(hand_device(kColumnsLow), 1000);  // 1.6 clocks per cycle
  CHECK(dram.to_clocks(10) == 16);
  CHECK(dram.to_clocks(1) == 2);
  CHECK(dram.to_cycles(48) == 30);
  CHECK(dram.to_cycles(49) == 31);
  // One read, requested at cycle 0: data ends at clock 48, cycle 30.
  CHECK(dram.transfer(0, false, {0, 1, 64}).last_data == 30);
}

TEST_CASE(
    "banked DRAM: each channel counts its own bytes, activates, row hits, refreshes and data-bus "
    "cycles",
    "[dram]") {
  DramConfig c = hand_device(kColumnsLow, 2);
  c.device.trefi = 200;
  c.device.trfc = 50;
  BankedDramTiming dram(c, 1600);
  // Six bursts: channel 0 takes 0, 2, 4 and channel 1 takes 1, 3, 5, each one miss
  // then two hits in bank 0's row 0.
  dram.transfer(0, false, {0, 1, 6 * 64});
  // A write to channel 1's open row: a hit.
  dram.transfer(0, true, {64, 1, 64});
  // Row 1 of channel 0's bank 0 (above 2 channels x 128 columns x 16 banks of 64 B): a conflict.
  const uint64_t next_row = uint64_t(2) * 128 * 16 * 64;
  REQUIRE(dram.decode(next_row).channel == 0);
  REQUIRE(dram.decode(next_row).row == 1);
  REQUIRE(dram.decode(next_row).bank == 0);
  dram.transfer(0, false, {next_row, 1, 64});
  // Channel 1 at clock 1000: refreshes due at 200, 400, 600 and 800 passed while it was
  // idle, and the one due at 1000 runs before the burst: five of tRFC = 50 each.
  dram.transfer(1000, false, {3 * 64, 1, 64});
  const DramChannelTable t = dram.channel_figures();
  REQUIRE(t.size() == 2);
  CHECK(t[0].read_bytes == 4 * 64);
  CHECK(t[0].write_bytes == 0);
  CHECK(t[0].activates == 2);
  CHECK(t[0].row_hits == 2);
  CHECK(t[0].row_conflicts == 1);
  CHECK(t[0].refreshes == 0);
  CHECK(t[0].busy_cycles == 4 * 4);  // 4 bursts of 4 clocks; one clock per cycle here
  CHECK(t[1].read_bytes == 4 * 64);
  CHECK(t[1].write_bytes == 64);
  CHECK(t[1].activates == 2);  // its first row, and again after the refresh closed it
  CHECK(t[1].row_hits == 3);
  CHECK(t[1].row_conflicts == 0);
  CHECK(t[1].refreshes == 5);
  CHECK(t[1].refresh_cycles == 5 * 50);
  CHECK(t[1].busy_cycles == 5 * 4);
}

TEST_CASE(
    "banked DRAM: a long read stream sustains the peak less refresh and row changes, and timing "
    "one channel gives the whole stream's figure",
    "[dram]") {
  // Bank groups rotate under each channel's bursts: tCCD_S = 4 clocks = one burst, so
  // only refresh (tRFC of every tREFI) and the activates of new rows keep the bus idle.
  const DramConfig c = hand_device("row:rank:bank:column:bankgroup:channel", 2);
  const double peak = 2 * 16.0;  // two channels of 64 B per 4 clocks; 1 clock per cycle
  const double refresh_share = 560.0 / 12480.0;
  const double sustained = sustained_read_bytes_per_cycle(c, 1600);
  CHECK(sustained <= peak * (1 - refresh_share));
  CHECK(sustained >= 0.97 * peak * (1 - refresh_share));
  // The same stream through both channels, timed whole.
  BankedDramTiming whole(c, 1600);
  const uint64_t bursts = 2 * std::max<uint64_t>(4096, 16 * 12480 / 4);
  const auto r = whole.transfer(0, false, {0, 1, bursts * 64});
  CHECK(sustained == Approx(double(bursts * 64) / double(r.last_data)).epsilon(1e-12));
}

TEST_CASE("banked DRAM: a burst of another rank waits tRTRS after the last burst's data",
          "[dram]") {
  // The rank is the field above the channel: consecutive bursts alternate the two ranks.
  DramConfig c = hand_device("row:bankgroup:bank:column:rank:channel");
  c.device.ranks = 2;
  c.device.trtrs = 2;
  BankedDramTiming dram(c, 1600);
  REQUIRE(dram.decode(64).rank == 1);
  const auto r = dram.transfer(0, false, {0, 1, 2 * 64});
  // Rank 0: ACT 0, READ 22, data 44 .. 48. Rank 1 activates at 0 too (tRRD and tFAW are
  // per rank) and could READ at 26 (tCCD_S); its data may start only 48 + tRTRS = 50:
  // READ at 28, data ends 28 + 22 + 4 = 54.
  CHECK(r.misses == 2);
  CHECK(r.last_data == 54);
  c.device.trtrs = 0;
  BankedDramTiming no_switch(c, 1600);
  CHECK(no_switch.transfer(0, false, {0, 1, 2 * 64}).last_data == 52);
}

TEST_CASE(
    "banked DRAM write queue: with no read in flight a write goes at once, its grant ending when "
    "the "
    "controller took it",
    "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  c.write_queue = 2;
  BankedDramTiming dram(c, 1600);
  const auto w = dram.transfer(0, true, {0, 1, 64});
  // Taken at 0, its 4 data clocks into the controller ...
  CHECK(w.first_data == 0);
  CHECK(w.last_data == 4);
  CHECK(w.bursts == 1);
  // ... and on the DRAM as when asked: ACT 0, WRITE 22, data 38 .. 42.
  REQUIRE(w.writes_placed.size() == 1);
  CHECK(w.writes_placed[0].transfer == w.id);
  CHECK(w.writes_placed[0].counts.misses == 1);
  CHECK(w.writes_placed[0].last_data == 42);
  CHECK(w.writes_placed[0].last);
  CHECK(dram.channel_figures()[0].write_bytes == 64);
}

TEST_CASE(
    "banked DRAM write queue: a write to another row of a bank a read is using waits, so the "
    "next read of that row does not switch rows twice",
    "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  const uint64_t row1 = 8192 * 16;  // bank 0, row 1 (128 columns of 64 B, then 16 banks)
  const auto run = [&](uint32_t queue, BankedDramTiming::Result* flushed) {
    c.write_queue = queue;
    BankedDramTiming dram(c, 1600);
    REQUIRE(dram.decode(row1).row == 1);
    REQUIRE(dram.decode(row1).bank == 0);
    dram.transfer(0, false, {0, 1, 64});  // ACT 0, READ 22, data 44 .. 48
    dram.transfer(0, true, {row1, 1, 64});
    const uint64_t second = dram.transfer(0, false, {64, 1, 64}).last_data;
    *flushed = dram.flush();
    return second;
  };
  BankedDramTiming::Result held, asked;
  // Held: the second read hits row 0, READ 30 (tCCD_L), data 52 .. 56. The
  // write then precharges at max(tRAS 52, 30 + tRTP 12) = 52, ACT 74, WRITE 96,
  // data 112 .. 116, at the end of the run.
  CHECK(run(32, &held) == 56);
  REQUIRE(held.writes_placed.size() == 1);
  CHECK(held.writes_placed[0].counts.conflicts == 1);
  CHECK(held.writes_placed[0].last_data == 116);
  // Placed when asked: the write switches to row 1 (data 112 .. 116), and the
  // read switches back: precharge at max(ACT 74 + tRAS 52, 116 + tWR 24) =
  // 140, ACT 162, READ 184, data 206 .. 210.
  CHECK(run(0, &asked) == 210);
  CHECK(asked.writes_placed.empty());
}

TEST_CASE("banked DRAM write queue: a read of a burst a held write holds places the write first",
          "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  c.write_queue = 32;
  BankedDramTiming dram(c, 1600);
  dram.transfer(0, false, {128, 1, 64});  // ACT 0, READ 22, data 44 .. 48: a read in flight
  const auto w = dram.transfer(0, true, {0, 1, 64});
  CHECK(w.writes_placed.empty());  // held
  CHECK(dram.channel_figures()[0].write_bytes == 0);
  const auto r = dram.transfer(0, false, {0, 1, 64});
  // The write first, a hit: WRITE at READ 22 + tRTW 14 = 36, data 52 .. 56;
  // the read after it waits 56 + tWTR_L 12 = 68: data 68 + CL 22 = 90 .. 94.
  REQUIRE(r.writes_placed.size() == 1);
  CHECK(r.writes_placed[0].transfer == w.id);
  CHECK(r.writes_placed[0].counts.hits == 1);
  CHECK(r.writes_placed[0].last_data == 56);
  CHECK(r.last_data == 94);
  CHECK(dram.channel_figures()[0].write_bytes == 64);
}

TEST_CASE(
    "banked DRAM write queue: a write finding its channel's queue full waits until the first "
    "held write's data is on the DRAM",
    "[dram]") {
  DramConfig c = hand_device(kColumnsLow);
  c.write_queue = 2;
  BankedDramTiming dram(c, 1600);
  // A read of bank 1 in flight: ACT 0, READ 22, data 44 .. 48.
  REQUIRE(dram.decode(8192).bank == 1);
  dram.transfer(0, false, {8192, 1, 64});
  const auto a = dram.transfer(0, true, {0, 1, 64});
  const auto b = dram.transfer(0, true, {64, 1, 64});
  CHECK(a.first_data == 0);
  CHECK(b.first_data == 4);  // the controller takes one burst every 4 clocks
  const auto third = dram.transfer(0, true, {128, 1, 64});
  // The queue is full: the two held writes go as a batch, no command before
  // the read's data end 48 - (CWL 16 + 4) = 28: bank 0's ACT at 28, WRITE 50
  // (data 66 .. 70) and 58 (tCCD_L, data 74 .. 78); the third is taken once
  // the first is on the DRAM, at 70.
  REQUIRE(third.writes_placed.size() == 2);
  CHECK(third.writes_placed[0].transfer == a.id);
  CHECK(third.writes_placed[0].last_data == 70);
  CHECK(third.writes_placed[1].transfer == b.id);
  CHECK(third.writes_placed[1].last_data == 78);
  CHECK(third.first_data == 70);
  CHECK(third.last_data == 74);
  const auto end = dram.flush();
  REQUIRE(end.writes_placed.size() == 1);
  CHECK(end.writes_placed[0].transfer == third.id);
  // WRITE at 70 (taken; past 58 + tCCD_L and the batch's 78 - 20 = 58): data 86 .. 90.
  CHECK(end.writes_placed[0].last_data == 90);
}
