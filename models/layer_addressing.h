// Seed 001's address generators configured for one layer, from the registers
// its AGU_INIT writes (agu_registers in sim/program). Users, in
// models/load_engine.cpp and models/store_engine.cpp:
//  - AGU_INIT (LoadEngine::agu_init): validate() of the init record, for
//    every layer but a graph operator (whose general geometry the config
//    parser checked), in timing-only runs too;
//  - functional runs only: the input generator gives the start of each
//    (row, channel) run of an NCHW input copied into an im2col tile
//    (copy_planar_rows, input_element), and its fetch stream is the host's
//    lowering of a host_im2col or mec layer (host_lower); the output
//    generator places every output element of a plain or binary layer (NHWC,
//    NCHW or a packed bit).
// Every other input load (NHWC rows, graph operators, column pieces, kernel
// parts, input channel tiles, packed binary rows, rows of a lowered matrix)
// is copied at offsets the load engine computes itself, graph operators
// store NHWC at direct addresses, and no load's or store's time comes from
// a generator.
#pragma once

#include "models/address_generator.h"
#include "sim/program/program.h"

namespace npusim {

// The init record the layer's registers spell (input_base: image 0).
AddressGeneratorInit agu_config(const LayerDescriptor& layer);

// The layout the layer's store writes, decoded from the "layouts" register.
OutputLayout output_layout_of(const LayerDescriptor& layer);

}  // namespace npusim
