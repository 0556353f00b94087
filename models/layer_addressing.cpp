#include "models/layer_addressing.h"

#include <map>
#include <string>

namespace npusim {
namespace {

std::map<std::string, uint64_t> registers_of(const LayerDescriptor& L) {
  std::map<std::string, uint64_t> reg;
  for (const AguRegister& r : agu_registers(L)) reg[r.name] = r.value;
  return reg;
}

}  // namespace

AddressGeneratorInit agu_config(const LayerDescriptor& L) {
  const std::map<std::string, uint64_t> reg = registers_of(L);
  const auto u32 = [&](const char* name) { return static_cast<uint32_t>(reg.at(name)); };
  AddressGeneratorInit init;
  init.input_w = u32("input_w"), init.input_h = u32("input_h"), init.channels = u32("channels");
  init.row_stride = reg.at("row_stride"), init.element_bits = u32("element_bits");
  init.filters = u32("filters"), init.filter_w = u32("filter_w"), init.filter_h = u32("filter_h");
  init.stride = u32("stride"), init.padding = u32("padding");
  init.input_base = reg.at("input_base"), init.output_base = reg.at("output_base");
  init.input_layout = (reg.at("layouts") & 15) == 1 ? InputLayout::kNchw : InputLayout::kNhwc;
  init.output_bits = 8;  // int8 outputs; packed ones address bits of b-bit words
  return init;
}

OutputLayout output_layout_of(const LayerDescriptor& L) {
  switch (layouts_register(L) >> 4) {
    case 1:
      return OutputLayout::kNchw;
    case 2:
      return OutputLayout::kPacked32;
    case 3:
      return OutputLayout::kPacked64;
    default:
      return OutputLayout::kNhwc;
  }
}

}  // namespace npusim
