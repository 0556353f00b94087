// The compiler's entry point: a network and a hardware config become the
// instruction program (sim/program), each operator mapped by the cost mapper
// (mapper.h), its tensors placed in DRAM (dram_layout.h) and its loop nest
// emitted with exact dependencies (program_emitter.cpp).
#pragma once

#include <cstddef>

#include "sim/compiler/network_estimate.h"
#include "sim/compiler/tiler.h"

namespace npusim {

// Throws CompileError naming the first layer that does not fit and why.
// `estimate`, when given, is estimate_network(net, hw)'s result for this very
// network and hardware (compiler.cache_kib 0 and the whole cache alike): the
// program takes its partition and mappings instead of choosing them again.
Program compile_network(const NetworkConfig& net, const HardwareConfig& hw,
                        const NetworkEstimate* estimate = nullptr);

// The partition and mappings compile_network(net, hw) chooses for itself when it is given no
// estimate (no operators, no cycles; the same function chooses them): compile_network given
// this result builds the same program without mapping the network again. Throws as
// compile_network would where the partition cannot be chosen.
NetworkEstimate network_partition(const NetworkConfig& net, const HardwareConfig& hw);

// The checks of array operator `l` (of the program view of a network) that
// do not depend on its mapping: broadcast dataflow needs im2col access, and a
// chained operator reads its input in the layout its producer stores it.
// Throws CompileError; compile_network and the network estimate both call it.
void check_array_operator(const NetworkConfig& net, size_t l, const HardwareConfig& hw);

}  // namespace npusim
