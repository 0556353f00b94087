// Seed 001's address generators configured for one layer, from the registers
// its AGU_INIT writes (agu_registers in sim/program): the load engine fetches
// the input through the input generator, the store engine writes every
// output element where the output generator says (NHWC, NCHW or packed).
#pragma once

#include "models/address_generator.h"
#include "sim/program/program.h"

namespace npusim {

// The init record the layer's registers spell (input_base: image 0).
AddressGeneratorInit agu_config(const LayerDescriptor& layer);

// The layout the layer's store writes, decoded from the "layouts" register.
OutputLayout output_layout_of(const LayerDescriptor& layer);

}  // namespace npusim
