// The banked DRAM's keys (docs/dram.md): the model, the preset that fills the
// device, each field of the device, the page policy and the address mapping;
// and the checks that a device and mapping can be simulated.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "sim/config/hardware_param.h"

namespace npusim {
namespace {

using nlohmann::json;

// The banked model's keys are written only for a banked memory (null: left
// out), so that a bus config written out and given a preset later is not
// overridden by a device it never used.
json banked_only(const HardwareConfig& hw, json value) {
  return hw.dram.model == DramModel::Banked ? std::move(value) : json();
}

// A field of the device: a whole number in [min, max].
HardwareParam device_field(const std::string& key, uint32_t DramDevice::*field,
                           const std::string& unit, uint32_t min, uint32_t max,
                           const std::string& help) {
  HardwareParam p;
  p.path = "dram." + key;
  p.unit = unit;
  p.range = std::to_string(min) + ".." + std::to_string(max);
  p.help = help;
  p.read = [=](JsonReader& reader, const std::string& k, HardwareConfig& hw) {
    hw.dram.device.*field =
        static_cast<uint32_t>(reader.get_uint(k, min, max, hw.dram.device.*field));
  };
  p.write = [=](const HardwareConfig& hw) { return banked_only(hw, json(hw.dram.device.*field)); };
  return p;
}

// A timing constraint in command clocks.
HardwareParam device_timing(const std::string& key, uint32_t DramDevice::*field, uint32_t min,
                            const std::string& help) {
  return device_field(key, field, "nCK", min, 1000000, help);
}

constexpr const char* kMappingFields[] = {"row", "rank", "bankgroup", "bank", "column", "channel"};

// Empty when `mapping` names each field once, else what is wrong with it.
std::string mapping_problem(const std::string& mapping) {
  std::istringstream in(mapping);
  std::string field;
  std::vector<std::string> seen;
  while (std::getline(in, field, ':')) {
    bool known = false;
    for (const char* f : kMappingFields) known = known || field == f;
    if (!known) return "unknown field \"" + field + "\"";
    for (const std::string& s : seen)
      if (s == field) return "\"" + field + "\" twice";
    seen.push_back(field);
  }
  if (seen.size() != 6) return std::to_string(seen.size()) + " of the 6 fields";
  if (seen.front() != "row") return "row is not first";
  return "";
}

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void add_banked_dram_params(std::vector<HardwareParam>& t) {
  HardwareParam model;
  model.path = "dram.model";
  model.range = "`bus` \\| `banked`";
  model.help =
      "External memory: one ideal bus (bytes_per_cycle, latency_cycles), or channels of banks "
      "with row buffers and JEDEC timings (docs/dram.md); a preset means banked";
  model.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
    hw.dram.model = r.get_choice(key, {"bus", "banked"}, hw.dram.model == DramModel::Bus ? 0 : 1)
                        ? DramModel::Banked
                        : DramModel::Bus;
  };
  model.write = [](const HardwareConfig& hw) { return json(to_string(hw.dram.model)); };
  t.push_back(model);

  HardwareParam preset;
  preset.path = "dram.preset";
  for (const DramPreset& p : dram_presets())
    preset.range += (preset.range.empty() ? "`" : " \\| `") + p.name + "`";
  preset.help =
      "Memory device whose geometry and timings fill the keys below (docs/dram.md#presets)";
  preset.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
    if (r.find(key) == nullptr) return;
    std::vector<std::string> names;
    std::size_t current = 0;
    for (const DramPreset& p : dram_presets()) {
      if (p.name == hw.dram.preset) current = names.size();
      names.push_back(p.name);
    }
    const DramPreset& chosen = dram_presets()[r.get_choice(key, names, current)];
    hw.dram.preset = chosen.name;
    hw.dram.device = chosen.device;
    hw.dram.model = DramModel::Banked;  // a preset is a banked memory
  };
  preset.write = [](const HardwareConfig& hw) { return banked_only(hw, json(hw.dram.preset)); };
  t.push_back(preset);

  using D = DramDevice;
  t.push_back(device_field("channels", &D::channels, "", 1, 1024,
                           "Independent channels (HBM: pseudo-channels); power of two"));
  t.push_back(device_field("ranks", &D::ranks, "", 1, 16, "Ranks per channel; power of two"));
  t.push_back(device_field("bank_groups", &D::bank_groups, "", 1, 64,
                           "Bank groups per rank (1: none); power of two"));
  t.push_back(device_field("banks_per_group", &D::banks_per_group, "", 1, 64,
                           "Banks in each bank group; power of two"));
  t.push_back(device_field("channel_bits", &D::channel_bits, "bit", 8, 1024,
                           "Data bus width of one channel; a multiple of 8"));
  t.push_back(device_field("burst_length", &D::burst_length, "beats", 1, 64,
                           "Beats per burst (BL); a multiple of beats_per_clock"));
  t.push_back(device_field("row_bytes", &D::row_bytes, "B", 32, 1 << 20,
                           "A bank's row (page) across the channel's devices; a power-of-two "
                           "number of bursts"));
  {
    HardwareParam clock;
    clock.path = "dram.clock_mhz";
    clock.unit = "MHz";
    clock.range = "> 0, <= 100000";
    clock.help = "The device's command clock (CK); the timings below count its cycles";
    clock.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
      hw.dram.device.clock_mhz = r.get_positive_number(key, 100000, hw.dram.device.clock_mhz);
    };
    clock.write = [](const HardwareConfig& hw) {
      return banked_only(hw, json(hw.dram.device.clock_mhz));
    };
    t.push_back(clock);
  }
  t.push_back(device_field("beats_per_clock", &D::beats_per_clock, "", 1, 16,
                           "Data beats per command clock (2: DDR4, DDR5, LPDDR4X, HBM2e; 4: "
                           "HBM3's quarter-rate clock; 8: LPDDR5, GDDR6)"));
  t.push_back(device_timing("cl", &D::cl, 1, "Read command to first data"));
  t.push_back(device_timing("cwl", &D::cwl, 0, "Write command to first data"));
  t.push_back(device_timing("trcd", &D::trcd, 1, "Activate to read or write"));
  t.push_back(device_timing("trp", &D::trp, 1, "Precharge to activate"));
  t.push_back(device_timing("tras", &D::tras, 1, "Activate to precharge"));
  t.push_back(device_timing("trrd_s", &D::trrd_s, 1, "Activate to activate, another bank group"));
  t.push_back(device_timing("trrd_l", &D::trrd_l, 1, "Activate to activate, the same bank group"));
  t.push_back(
      device_timing("tfaw", &D::tfaw, 1, "Window holding at most four activates of a rank"));
  t.push_back(
      device_timing("tccd_s", &D::tccd_s, 1, "Column to column command, another bank group"));
  t.push_back(
      device_timing("tccd_l", &D::tccd_l, 1, "Column to column command, the same bank group"));
  t.push_back(device_timing("twtr_s", &D::twtr_s, 0, "Write data end to read, another bank group"));
  t.push_back(
      device_timing("twtr_l", &D::twtr_l, 0, "Write data end to read, the same bank group"));
  t.push_back(device_timing("trtw", &D::trtw, 0, "Read command to write command (turnaround)"));
  t.push_back(device_timing("trtrs", &D::trtrs, 0,
                            "Data of one rank to data of another on the channel (rank switch)"));
  t.push_back(device_timing("twr", &D::twr, 0, "Write data end to precharge (write recovery)"));
  t.push_back(device_timing("trtp", &D::trtp, 0, "Read command to precharge"));
  t.push_back(device_timing("trefi", &D::trefi, 1, "Refresh interval (all-bank, per rank)"));
  t.push_back(device_timing("trfc", &D::trfc, 1, "Refresh cycle time: the rank does nothing else"));

  for (const auto& [key, field, help] :
       {std::tuple{"activate_pj", &D::activate_pj, "Energy of one activate and its precharge"},
        std::tuple{"read_pj_per_byte", &D::read_pj_per_byte, "Energy per byte read, I/O included"},
        std::tuple{"write_pj_per_byte", &D::write_pj_per_byte,
                   "Energy per byte written, I/O included"}}) {
    HardwareParam e;
    e.path = std::string("dram.") + key;
    e.unit = "pJ";
    e.range = ">= 0, <= 1000000";
    e.help = help;
    double DramDevice::*f = field;
    e.read = [f](JsonReader& r, const std::string& k, HardwareConfig& hw) {
      hw.dram.device.*f = r.get_number(k, 0, 1e6, hw.dram.device.*f);
    };
    e.write = [f](const HardwareConfig& hw) { return banked_only(hw, json(hw.dram.device.*f)); };
    t.push_back(e);
  }

  HardwareParam page;
  page.path = "dram.page_policy";
  page.range = "`open` \\| `closed`";
  page.help =
      "Banked: a row stays open until its bank needs another (open), or each access closes it "
      "(closed)";
  page.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
    hw.dram.page_policy =
        r.get_choice(key, {"open", "closed"}, hw.dram.page_policy == PagePolicy::Open ? 0 : 1)
            ? PagePolicy::Closed
            : PagePolicy::Open;
  };
  page.write = [](const HardwareConfig& hw) {
    return banked_only(hw, json(to_string(hw.dram.page_policy)));
  };
  t.push_back(page);

  HardwareParam mapping;
  mapping.path = "dram.mapping";
  mapping.range = "the six fields row, rank, bankgroup, bank, column, channel joined by `:`";
  mapping.help =
      "Address bits from most to least significant, above the burst's offset "
      "(docs/dram.md#address-mapping)";
  mapping.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
    const std::string value = r.get_string(key, hw.dram.mapping);
    const std::string problem = mapping_problem(value);
    if (!problem.empty())
      r.fail(key,
             "the six fields row, rank, bankgroup, bank, column, channel, each once, joined by "
             "':', row first (most significant first)",
             "\"" + value + "\": " + problem);
    hw.dram.mapping = value;
  };
  mapping.write = [](const HardwareConfig& hw) { return banked_only(hw, json(hw.dram.mapping)); };
  t.push_back(mapping);

  HardwareParam queue;
  queue.path = "dram.write_queue";
  queue.unit = "bursts";
  queue.range = "0..1024";
  queue.help =
      "Banked: write bursts each channel's controller may hold while reads are in flight, "
      "placing them after the reads, grouped by row (docs/dram.md#the-write-queue); 0: each "
      "write placed when asked";
  queue.read = [](JsonReader& r, const std::string& key, HardwareConfig& hw) {
    hw.dram.write_queue = static_cast<uint32_t>(r.get_uint(key, 0, 1024, hw.dram.write_queue));
  };
  queue.write = [](const HardwareConfig& hw) { return banked_only(hw, json(hw.dram.write_queue)); };
  t.push_back(queue);
}

void finish_dram_config(HardwareConfig& hw, JsonReader* dram) {
  if (hw.dram.model != DramModel::Banked || dram == nullptr) return;
  const DramDevice& d = hw.dram.device;
  // dram is non-null: a banked model is chosen in the dram section.
  const auto refuse = [&](const char* key, const std::string& expected, const std::string& found) {
    dram->fail(key, expected, found);
  };
  const auto two_power = [&](const char* key, uint64_t value) {
    if (!power_of_two(value))
      refuse(key, "a power of two (the address mapping takes whole bits)", std::to_string(value));
  };
  two_power("channels", d.channels);
  two_power("ranks", d.ranks);
  two_power("bank_groups", d.bank_groups);
  two_power("banks_per_group", d.banks_per_group);
  if (d.channel_bits % 8 != 0)
    refuse("channel_bits", "a multiple of 8", std::to_string(d.channel_bits));
  if (d.burst_length % d.beats_per_clock != 0)
    refuse("burst_length",
           "a multiple of beats_per_clock = " + std::to_string(d.beats_per_clock) +
               " (a burst holds the bus for whole clocks)",
           std::to_string(d.burst_length));
  const uint32_t burst = d.burst_bytes();
  if (!power_of_two(burst))
    refuse("channel_bits",
           "a width whose burst (channel_bits / 8 x burst_length) is a power of two of bytes",
           std::to_string(d.channel_bits) + " bits: " + std::to_string(burst) + " B bursts");
  if (d.row_bytes % burst != 0 || !power_of_two(d.row_bytes / burst))
    refuse("row_bytes",
           "a power-of-two number of bursts of " + std::to_string(burst) +
               " B (channel_bits / 8 x burst_length)",
           std::to_string(d.row_bytes));
  if (d.tras + 0ull < d.trcd)
    refuse("tras", "at least trcd = " + std::to_string(d.trcd) + " (a row opens before it closes)",
           std::to_string(d.tras));
  if (d.trfc >= d.trefi)
    refuse("trfc", "less than trefi = " + std::to_string(d.trefi) + " (refresh would never end)",
           std::to_string(d.trfc));
  // What the rest of the simulator reads: bursts and the peak, per accelerator cycle.
  const double peak = d.peak_bytes_per_second() / (hw.clock_mhz * 1e6);
  const uint64_t derived = std::max<uint64_t>(1, uint64_t(std::llround(peak)));
  const auto derived_key = [&](const char* key, uint64_t value, auto& field,
                               const std::string& why) {
    if (dram->find(key) != nullptr && field != value) {
      std::ostringstream found;
      found << field;
      refuse(key,
             std::to_string(value) +
                 " or nothing (under dram.model banked it follows from the "
                 "device: " +
                 why + "; leave the key out)",
             found.str());
    }
    field = static_cast<std::remove_reference_t<decltype(field)>>(value);
  };
  if (derived > 65536)
    refuse("channels", "a peak of at most 65536 B per accelerator cycle",
           std::to_string(derived) + " B/cycle");
  derived_key("bytes_per_cycle", derived, hw.dram.bytes_per_cycle,
              "the channels' peak at clock_mhz, rounded");
  derived_key("burst_bytes", burst, hw.dram.burst_bytes,
              "the device's burst: channel_bits / 8 x burst_length");
}

}  // namespace npusim
