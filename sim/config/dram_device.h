// A DRAM device as the banked memory model sees it (docs/dram.md): the
// geometry of one channel, its data rate, and the JEDEC timing constraints
// that decide bandwidth, in clocks of the DRAM's command clock (nCK). Presets
// by name (dram_presets.cpp) fill one; each field can then be overridden.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

struct DramDevice {
  std::string label;  // as a person names it: "DDR4-3200"
  // Geometry. Channels are independent (an HBM pseudo-channel counts as one).
  uint32_t channels = 0;
  uint32_t ranks = 0;            // per channel
  uint32_t bank_groups = 0;      // per rank (1: no bank groups)
  uint32_t banks_per_group = 0;  // banks in each bank group
  uint32_t channel_bits = 0;     // data bus width of one channel
  uint32_t burst_length = 0;     // beats per burst (BL)
  uint32_t row_bytes = 0;        // a row (page) of one bank, across the channel's devices
  double clock_mhz = 0;          // command clock (CK); every timing below counts its cycles
  uint32_t beats_per_clock = 0;  // data beats per command clock: 2 (DDR4/5, LPDDR4X, HBM2e),
                                 // 4 (HBM3's quarter-rate clock), 8 where a 4x data clock
                                 // runs double rate (LPDDR5, GDDR6)
  // Timing constraints, in command clocks (nCK).
  uint32_t cl = 0;      // read command to first data
  uint32_t cwl = 0;     // write command to first data
  uint32_t trcd = 0;    // activate to read/write
  uint32_t trp = 0;     // precharge to activate
  uint32_t tras = 0;    // activate to precharge
  uint32_t trrd_s = 0;  // activate to activate, different bank group
  uint32_t trrd_l = 0;  // activate to activate, same bank group
  uint32_t tfaw = 0;    // window in which at most four activates may issue (per rank)
  uint32_t tccd_s = 0;  // column command to column command, different bank group
  uint32_t tccd_l = 0;  // column command to column command, same bank group
  uint32_t twtr_s = 0;  // end of write data to read command, different bank group
  uint32_t twtr_l = 0;  // end of write data to read command, same bank group
  uint32_t trtw = 0;    // read command to write command (bus turnaround)
  uint32_t trtrs = 0;   // data of one rank to data of another on the channel (rank switch)
  uint32_t twr = 0;     // end of write data to precharge (write recovery)
  uint32_t trtp = 0;    // read command to precharge
  uint32_t trefi = 0;   // refresh interval (all-bank refresh, per rank)
  uint32_t trfc = 0;    // refresh cycle: the rank does nothing else
  // Energy per event (docs/dram.md#energy), from the device's IDD figures.
  double activate_pj = 0;  // one activate and its precharge
  double read_pj_per_byte = 0;
  double write_pj_per_byte = 0;

  // Bytes one burst moves: channel_bits / 8 x burst_length.
  uint32_t burst_bytes() const { return channel_bits / 8 * burst_length; }
  // Command clocks one burst holds the channel's data bus: burst_length /
  // beats_per_clock (the configuration requires a whole number).
  uint32_t burst_clocks() const { return burst_length / beats_per_clock; }
  // Data rate in mega-transfers per second: clock_mhz x beats_per_clock.
  double megatransfers() const { return clock_mhz * beats_per_clock; }
  // Peak bandwidth of all channels, in bytes per second.
  double peak_bytes_per_second() const {
    return double(channels) * channel_bits / 8.0 * megatransfers() * 1e6;
  }
};

struct DramPreset {
  std::string name;    // the key's value: "ddr4_3200"
  DramDevice device;   // one channel of it unless the standard names more (HBM: a stack)
  std::string source;  // where the figures come from (docs/dram.md cites them)
};

// Every preset, in the order docs/dram.md lists them.
const std::vector<DramPreset>& dram_presets();
// The preset named `name`, or nullptr.
const DramPreset* find_dram_preset(const std::string& name);

}  // namespace npusim
