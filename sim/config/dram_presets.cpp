// The DRAM presets by name (docs/dram.md#presets): one device, DIMM or stack
// of each standard, with its geometry, clock, timings and energy per event.
// A timing the standard gives in ns is rounded up to whole command clocks
// (nCK); tREFI, a maximum, is rounded down. Figures marked "derived" or
// "estimate" below are not read from a standard (docs/dram.md#sources).
#include "sim/config/dram_device.h"

namespace npusim {
namespace {

// Read to write is not one JEDEC parameter; each preset gives the formula it
// uses. The DDR-style one: CL + BL/2 (data clocks) + 2 - CWL.

DramPreset ddr4_3200() {
  DramPreset p;
  p.name = "ddr4_3200";
  p.source =
      "JESD79-4 DDR4-3200AA (22-22-22), x8 1 KB-page rules, 8 Gb tRFC 350 ns; checked against "
      "Ramulator2 DDR4_3200AA and DRAMsim3 DDR4_8Gb_x8_3200; energy from Micron 8 Gb x8 IDDs "
      "(TN-41-01 method) plus a POD12 termination estimate";
  DramDevice& d = p.device;
  d.label = "DDR4-3200";
  d.channels = 1;  // one 64-bit DIMM channel, one rank of eight x8 8 Gb devices
  d.ranks = 1;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.channel_bits = 64;
  d.burst_length = 8;
  d.row_bytes = 8192;  // 1 KB page per x8 device x 8
  d.clock_mhz = 1600;
  d.beats_per_clock = 2;
  d.cl = 22;
  d.cwl = 16;
  d.trcd = 22;
  d.trp = 22;
  d.tras = 52;   // 32 ns
  d.trrd_s = 4;  // max(4 nCK, 2.5 ns)
  d.trrd_l = 8;  // max(4 nCK, 4.9 ns)
  d.tfaw = 34;   // 21 ns
  d.tccd_s = 4;
  d.tccd_l = 8;                // max(4 nCK, 5 ns)
  d.twtr_s = 4;                // max(2 nCK, 2.5 ns)
  d.twtr_l = 12;               // max(4 nCK, 7.5 ns)
  d.trtw = 12;                 // derived: CL + BL/2 + 2 - CWL
  d.trtrs = 2;                 // a controller figure: Ramulator's DDR4 speed table
  d.twr = 24;                  // 15 ns
  d.trtp = 12;                 // max(4 nCK, 7.5 ns)
  d.trefi = 12480;             // 7.8 us
  d.trfc = 560;                // 350 ns, 8 Gb
  d.activate_pj = 4200;        // 525 pJ per device (IDD0 cycle less background) x 8
  d.read_pj_per_byte = 65.5;   // (IDD4R - IDD3N) x VDD: 43.5, termination estimate: 22
  d.write_pj_per_byte = 58.8;  // (IDD4W - IDD3N) x VDD: 36.8, termination estimate: 22
  return p;
}

DramPreset ddr5_4800() {
  DramPreset p;
  p.name = "ddr5_4800";
  p.source =
      "JESD79-5 DDR5-4800B (40-40-40), x8 16 Gb, tRFC1 295 ns; secondary timings per the Micron "
      "DDR5 core data sheet rules as in gem5 DDR5_4400_4x8, checked against Ramulator2 DDR5; "
      "energy an estimate: the DDR4 preset's IDD figures scaled by (1.1 V / 1.2 V)^2";
  DramDevice& d = p.device;
  d.label = "DDR5-4800";
  d.channels = 2;  // a DIMM's two 32-bit subchannels, each four x8 16 Gb devices
  d.ranks = 1;
  d.bank_groups = 8;
  d.banks_per_group = 4;
  d.channel_bits = 32;
  d.burst_length = 16;
  d.row_bytes = 4096;  // 1 KB page per x8 device x 4
  d.clock_mhz = 2400;
  d.beats_per_clock = 2;
  d.cl = 40;
  d.cwl = 38;  // CL - 2
  d.trcd = 40;
  d.trp = 40;
  d.tras = 77;           // 32 ns
  d.trrd_s = 8;          // 8 nCK
  d.trrd_l = 12;         // max(8 nCK, 5 ns)
  d.tfaw = 32;           // max(32 nCK, 13.333 ns), 1 KB page
  d.tccd_s = 8;          // BL16 on the bus
  d.tccd_l = 12;         // max(8 nCK, 5 ns)
  d.twtr_s = 6;          // max(4 nCK, 2.5 ns)
  d.twtr_l = 24;         // max(16 nCK, 10 ns)
  d.trtw = 14;           // derived: CL - CWL + BL/2 + 2 - 1 (DQS offset) + (tRPST - 0.5) + tWPRE 2
  d.trtrs = 2;           // estimate: the DDR4 figure
  d.twr = 72;            // 30 ns
  d.trtp = 18;           // max(12 nCK, 7.5 ns)
  d.trefi = 9360;        // 3.9 us
  d.trfc = 708;          // 295 ns, 16 Gb
  d.activate_pj = 1760;  // estimate: 441 pJ per device x 4
  d.read_pj_per_byte = 48.9;   // estimate: core 36.6, POD11 termination 12.3
  d.write_pj_per_byte = 43.2;  // estimate: core 30.9, POD11 termination 12.3
  return p;
}

DramPreset lpddr4x_4266() {
  DramPreset p;
  p.name = "lpddr4x_4266";
  p.source =
      "JESD209-4 LPDDR4/4X-4266 (RL 36, WL set A 18), 8 Gb per channel tRFCab 280 ns; checked "
      "against DRAMSys JEDEC_1Gbx16_LPDDR4-4266; energy from JEDEC 8 Gb LPDDR4 IDDs as in "
      "DRAMSys JEDEC_8Gb_LPDDR4-3200_16bit, VDDQ scaled to 0.6 V (estimate)";
  DramDevice& d = p.device;
  d.label = "LPDDR4X-4266";
  d.channels = 4;  // four x16 channels: a typical x64 package
  d.ranks = 1;
  d.bank_groups = 1;  // LPDDR4X has no bank groups: _s and _l timings are equal
  d.banks_per_group = 8;
  d.channel_bits = 16;
  d.burst_length = 16;
  d.row_bytes = 2048;
  d.clock_mhz = 6400.0 / 3;  // 2133.33 MHz, 4266.67 MT/s
  d.beats_per_clock = 2;
  d.cl = 36;  // RL, read DBI off
  d.cwl = 18;
  d.trcd = 39;    // 18 ns
  d.trp = 39;     // tRPpb 18 ns (tRPab 21 ns: 45)
  d.tras = 90;    // 42 ns
  d.trrd_s = 22;  // tRRD max(10 ns, 4 nCK)
  d.trrd_l = 22;
  d.tfaw = 86;   // 40 ns
  d.tccd_s = 8;  // tCCD: BL16 on the bus
  d.tccd_l = 8;
  d.twtr_s = 22;  // tWTR max(10 ns, 8 nCK)
  d.twtr_l = 22;
  d.trtw = 36;     // derived: RL + RU(tDQSCKmax 3.5 ns / tCK) + BL/2 - WL + tWPRE 2 + RD(tRPST)
  d.trtrs = 2;     // estimate: the DDR4 figure
  d.twr = 39;      // 18 ns
  d.trtp = 16;     // max(7.5 ns, 8 nCK)
  d.trefi = 8328;  // 3.904 us
  d.trfc = 598;    // tRFCab 280 ns, 8 Gb per channel
  d.activate_pj = 1205;        // VDD2 1060 + VDD1 145, per 2 KB row
  d.read_pj_per_byte = 49.8;   // core 42.1, I/O 7.7 (25.8 at 1.1 V VDDQ)
  d.write_pj_per_byte = 33.8;  // core 30.9, I/O 2.8
  return p;
}

DramPreset lpddr5_6400() {
  DramPreset p;
  p.name = "lpddr5_6400";
  p.source =
      "JESD209-5 LPDDR5-6400, WCK:CK 4:1, BG mode, RL set 0 17 / WL set A 9 (as tabulated in "
      "LiteDRAM's LPDDR5 PHY), 16 Gb per channel tRFCab 280 ns; timings checked against gem5 "
      "LPDDR5_6400_1x16_BG_BL16 and Ramulator2 LPDDR5_6400; energy an estimate (LPDDR4X figures "
      "scaled to VDD2H 1.05 V, VDDQ 0.5 V)";
  DramDevice& d = p.device;
  d.label = "LPDDR5-6400";
  d.channels = 4;  // four x16 channels: a typical x64 package
  d.ranks = 1;
  d.bank_groups = 4;  // BG mode: 4 bank groups of 4 banks (needed above 3200 MT/s)
  d.banks_per_group = 4;
  d.channel_bits = 16;
  d.burst_length = 16;
  d.row_bytes = 2048;  // 2 KB page in BG mode
  d.clock_mhz = 800;
  d.beats_per_clock = 8;  // WCK 3.2 GHz, double data rate
  d.cl = 17;
  d.cwl = 9;
  d.trcd = 15;   // 18 ns
  d.trp = 15;    // tRPpb 18 ns
  d.tras = 34;   // 42 ns
  d.trrd_s = 4;  // 5 ns in BG mode
  d.trrd_l = 4;
  d.tfaw = 16;                 // 20 ns in BG mode
  d.tccd_s = 2;                // BL16: 2 CK
  d.tccd_l = 4;                // BL16 same bank group: 4 CK
  d.twtr_s = 5;                // 6.25 ns
  d.twtr_l = 10;               // 12 ns
  d.trtw = 11;                 // derived: RL + BL/n + RU(tWCKDQO / tCK) (1) - WL
  d.trtrs = 2;                 // estimate: the DDR4 figure
  d.twr = 28;                  // 34 ns
  d.trtp = 6;                  // BL/n 2 + nRBTP 4 (7.5 ns)
  d.trefi = 3124;              // 3.906 us
  d.trfc = 224;                // tRFCab 280 ns, 16 Gb per channel
  d.activate_pj = 1110;        // estimate
  d.read_pj_per_byte = 43.7;   // estimate
  d.write_pj_per_byte = 30.1;  // estimate
  return p;
}

DramPreset gddr6_16() {
  DramPreset p;
  p.name = "gddr6_16";
  p.source =
      "JESD250 GDDR6 at 16 Gb/s (CK 2 GHz, data 8 x CK per Micron MT61K256M32 8 Gb brief: 2 KB "
      "page, 16 banks, 16k refreshes / 32 ms); AC timings are vendor-specific: Ramulator2 "
      "GDDR6_2000_1350mV figures taken as ns and re-rounded (estimate); energy from Micron's "
      "7.5 pJ/bit GDDR6 average (estimate)";
  DramDevice& d = p.device;
  d.label = "GDDR6 16 Gb/s";
  d.channels = 2;  // one x32 chip: two x16 channels
  d.ranks = 1;
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.channel_bits = 16;
  d.burst_length = 16;
  d.row_bytes = 2048;
  d.clock_mhz = 2000;
  d.beats_per_clock = 8;  // WCK 4 GHz, quad data rate
  d.cl = 28;              // 13.7 ns
  d.cwl = 7;              // 3.4 ns
  d.trcd = 30;            // tRCDRD 14.9 ns
  d.trp = 30;             // 14.9 ns
  d.tras = 61;            // 30.3 ns
  d.trrd_s = 8;           // 4 ns
  d.trrd_l = 8;
  d.tfaw = 32;                // 16 ns
  d.tccd_s = 2;               // BL16: 2 CK
  d.tccd_l = 3;               // estimate
  d.twtr_s = 11;              // 5.1 ns
  d.twtr_l = 13;              // 6.3 ns
  d.trtw = 25;                // derived: CL + BL/8 + 2 - CWL
  d.trtrs = 2;                // estimate: the DDR4 figure
  d.twr = 30;                 // 14.9 ns
  d.trtp = 5;                 // 2.3 ns
  d.trefi = 3800;             // 1.9 us
  d.trfc = 240;               // tRFCab 120 ns, 8 Gb device
  d.activate_pj = 1330;       // estimate: DDR4's 525 pJ per KB x (1.35 V / 1.2 V)^2 x 2 KB
  d.read_pj_per_byte = 39.2;  // 7.5 pJ/bit x 8 less one activation per 64 B
  d.write_pj_per_byte = 39.2;
  return p;
}

// HBM2E and HBM3 share core timings: HBM2 figures (DRAMSys HBM2; gem5
// HBM_2000_4H_1x64 but for CL) taken as ns and re-rounded at a 1.6 GHz CK.
void hbm_core(DramDevice& d) {
  d.ranks = 1;  // one stack ID: 8- and 12-high stacks add ranks
  d.bank_groups = 4;
  d.banks_per_group = 4;
  d.row_bytes = 1024;  // 1 KB page per pseudo-channel
  d.clock_mhz = 1600;
  d.cl = 28;            // 17 ns
  d.cwl = 12;           // 7 ns
  d.trcd = 20;          // tRCDRD 12 ns
  d.trp = 23;           // 14 ns
  d.tras = 45;          // 28 ns
  d.trrd_s = 7;         // 4 ns
  d.trrd_l = 10;        // 6 ns
  d.tfaw = 26;          // 16 ns per pseudo-channel
  d.tccd_s = 2;         // one burst
  d.tccd_l = 4;         // estimate (3 nCK at 1 GHz)
  d.twtr_s = 7;         // 4 ns
  d.twtr_l = 15;        // 9 ns
  d.trtw = 20;          // derived: CL + burst clocks + 2 - CWL
  d.trtrs = 2;          // estimate: the DDR4 figure
  d.twr = 23;           // 14 ns
  d.trtp = 8;           // 5 ns
  d.trefi = 6240;       // 3.9 us
  d.trfc = 720;         // 450 ns, 16 Gb layer
  d.activate_pj = 414;  // DRAMsim3 HBM2 IDDs: 828 pJ per 2 KB legacy-channel row, halved
}

DramPreset hbm2e() {
  DramPreset p;
  p.name = "hbm2e";
  p.source =
      "JESD235 HBM2E at 3.2 Gb/s, pseudo-channel mode (BL4, 1 KB page, 4x4 banks); core timings "
      "DRAMSys HBM2 (~ gem5 HBM_2000_4H_1x64) converted via ns, checked against DRAMsim3 "
      "HBM2_8Gb_x128; tRFC from Ramulator2's HBM table; energy from DRAMsim3 HBM2 IDDs plus an "
      "I/O estimate, checked against 3.9 pJ/bit (O'Connor et al., MICRO 2017)";
  DramDevice& d = p.device;
  d.label = "HBM2E";
  hbm_core(d);
  d.channels = 16;  // one stack: 8 channels x 2 pseudo-channels of 64 bits
  d.channel_bits = 64;
  d.burst_length = 4;
  d.beats_per_clock = 2;
  d.read_pj_per_byte = 20.6;   // (IDD4R - IDD3N) x VDD: 12.6, I/O estimate 1 pJ/bit
  d.write_pj_per_byte = 24.7;  // (IDD4W - IDD3N) x VDD: 16.7, I/O estimate 1 pJ/bit
  return p;
}

DramPreset hbm3() {
  DramPreset p;
  p.name = "hbm3";
  p.source =
      "JESD238 HBM3 at 6.4 Gb/s (16 channels x 2 pseudo-channels of 32 bits, BL8, 819 GB/s per "
      "stack; CK = data rate / 4); no public AC timings: HBM2 core timings carried over "
      "(estimate); energy an estimate (HBM2 core figures, I/O at 0.4 V VDDQ)";
  DramDevice& d = p.device;
  d.label = "HBM3";
  hbm_core(d);
  d.channels = 32;  // one stack: 16 channels x 2 pseudo-channels of 32 bits
  d.channel_bits = 32;
  d.burst_length = 8;
  d.beats_per_clock = 4;       // WDQS at 2 x CK, double data rate
  d.read_pj_per_byte = 13.5;   // estimate
  d.write_pj_per_byte = 17.6;  // estimate
  return p;
}

}  // namespace

const std::vector<DramPreset>& dram_presets() {
  static const std::vector<DramPreset> presets = {
      ddr4_3200(), ddr5_4800(), lpddr4x_4266(), lpddr5_6400(), gddr6_16(), hbm2e(), hbm3()};
  return presets;
}

const DramPreset* find_dram_preset(const std::string& name) {
  for (const DramPreset& p : dram_presets())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace npusim
