#include "sim/program/program_fit.h"

#include <optional>
#include <string>

#include "sim/program/batch_rows.h"
#include "sim/program/residency.h"
#include "sim/program/vector_tiling.h"

namespace npusim {

void check_program_fits(const Program& p, const NetworkConfig& net, const HardwareConfig& hw) {
  if (p.layers.size() != net.layers.size())
    throw ProgramError("the program has " + std::to_string(p.layers.size()) +
                       " layers but the workload has " + std::to_string(net.layers.size()));
  uint64_t on_chip = 0;  // key-value blocks placed in the cache's key-value region
  for (const LayerDescriptor& d : p.layers)
    if (d.output_on_chip) on_chip += d.output_bytes();
  if (on_chip > hw.kv_cache_bytes())
    throw ProgramError("the program places " + std::to_string(on_chip) +
                       " B of key-value blocks on chip, more than cache.kv_kib = " +
                       std::to_string(hw.cache.kv_kib) + " KiB holds");
  const uint32_t halves = hw.buffering == Buffering::PingPong ? 2 : 1;
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    const LayerConfig& L = net.layers[l];
    const ProgramImages images = program_images(L);  // a batched matmul: one image of rows
    if (d.N != images.N || d.C != L.C || d.H != images.H || d.W != L.W || d.K != L.K ||
        d.R != L.R || d.S != L.S || d.stride != L.stride || d.padding != L.padding)
      throw ProgramError("layer " + d.name + ": the program's shape differs from the workload's");
    const uint64_t buffers =
        d.weight_region_bytes + d.params_region_bytes +
        uint64_t(d.units ? d.units : hw.compute.units) * halves * d.half_bytes +
        d.vector_region_bytes;
    if (buffers > hw.tile_cache_bytes())
      throw ProgramError(
          "layer " + d.name + ": buffers over capacity: weights " +
          std::to_string(d.weight_region_bytes) + " + params " +
          std::to_string(d.params_region_bytes) + " + " +
          std::to_string((d.units ? d.units : hw.compute.units) * halves) + " halves x " +
          std::to_string(d.half_bytes) +
          (d.vector_region_bytes ? " + vector " + std::to_string(d.vector_region_bytes)
                                 : std::string()) +
          " = " + std::to_string(buffers) + " B > cache " + std::to_string(hw.tile_cache_bytes()) +
          " B" + (hw.cache.kv_kib ? " (less the key-value region)" : ""));
    // Kernel parts: a kernel's part of channels_per_part channels.
    const uint64_t kernel = d.binary                   ? uint64_t(d.R) * d.S * d.pixel_bytes()
                            : d.channels_per_part != 0 ? uint64_t(d.R) * d.S * d.channels_per_part
                                                       : d.kernel_coefficients();
    if (d.channels_per_part != 0 && hw.dataflow != Dataflow::Lockstep)
      throw ProgramError("layer " + d.name +
                         ": kernel parts (channels_per_part) need compute.dataflow \"lockstep\"");
    if (d.input_channel_tiles &&
        (!d.quantized || d.conv_groups < 2 || d.binary || d.access != LoadAccess::Im2col ||
         d.input_layout != TensorLayout::Nhwc || d.k_tile % (d.K / d.conv_groups) != 0))
      throw ProgramError("layer " + d.name +
                         ": input_channel_tiles needs a quantised grouped convolution with an "
                         "NHWC input, im2col access and k-tiles of whole groups");
    if (uint64_t(d.k_tile) * kernel * d.weight_buffers > d.weight_region_bytes)
      throw ProgramError(
          "layer " + d.name + ": a weight tile of " + std::to_string(d.k_tile) +
          " kernels exceeds the weight region" +
          (d.weight_buffers > 1 ? "'s slot (weight_buffers 2: half the region)" : std::string()));
  }
  LayerViews views;  // the layers as column pieces and kernel parts see them
  for (const Instruction& in : p.instructions) {
    if (in.unit >= hw.compute.units)
      throw ProgramError("instruction " + describe(in, p) + " uses compute unit " +
                         std::to_string(in.unit) + " but the hardware has " +
                         std::to_string(hw.compute.units));
    if (in.half >= halves && in.op != Opcode::LoadParams)
      throw ProgramError("instruction " + describe(in, p) + " uses half " +
                         std::to_string(in.half) + " but buffering is single");
    const LayerDescriptor& d = p.layers[in.layer];
    const bool per_unit =
        in.op == Opcode::LoadInput || in.op == Opcode::Compute || in.op == Opcode::Store;
    if (per_unit && d.units != 0 && in.unit >= d.units)
      throw ProgramError("instruction " + describe(in, p) + " uses compute unit " +
                         std::to_string(in.unit) + " but its layer's partition has " +
                         std::to_string(d.units) + " units");
    // A parameter bank is half the region: 8 B per channel it holds.
    if (in.op == Opcode::LoadParams && uint64_t(in.k_count()) * 8 * 2 > d.params_region_bytes)
      throw ProgramError("instruction " + describe(in, p) + " loads " +
                         std::to_string(in.k_count()) + " channels' parameters (" +
                         std::to_string(uint64_t(in.k_count()) * 8) + " B) but a bank holds " +
                         std::to_string(d.params_region_bytes / 2) +
                         " B (params_region_bytes / 2)");
    if (in.op == Opcode::LoadInput) {
      const uint64_t bytes = piece_bytes(in, d, views);
      if (bytes > d.half_bytes)
        throw ProgramError("instruction " + describe(in, p) +
                           ": buffers over capacity: its piece "
                           "needs " +
                           std::to_string(bytes) + " B, a half holds " +
                           std::to_string(d.half_bytes) + " B");
    }
    // With input channel tiles a compute reads the channels its input load
    // brought: the same kernels, whole groups.
    if (d.input_channel_tiles && (in.op == Opcode::LoadInput || in.op == Opcode::Compute)) {
      const uint32_t per_group = d.K / d.conv_groups;
      if (in.k_begin % per_group != 0 || in.k_count() % per_group != 0)
        throw ProgramError("instruction " + describe(in, p) +
                           " covers part of a group, but its layer loads input channel tiles");
      for (const Dependency& dep : in.deps) {
        const Instruction& load = p.instructions.at(dep.producer);
        if (in.op == Opcode::Compute && load.op == Opcode::LoadInput && load.layer == in.layer &&
            (load.k_begin != in.k_begin || load.k_end != in.k_end))
          throw ProgramError("instruction " + describe(in, p) + " reads the input channel tile " +
                             "of kernels [" + std::to_string(load.k_begin) + ", " +
                             std::to_string(load.k_end) + ") that " + describe(load, p) +
                             " loaded, not its own");
      }
    }
    if (in.op == Opcode::Vector) {
      if (in.k_count() < d.K && !vector_splits_channels(d))
        throw ProgramError("instruction " + describe(in, p) + " covers " +
                           std::to_string(in.k_count()) + " of " + std::to_string(d.K) +
                           " channels, but a " + to_string(d.op) +
                           " instruction takes every channel of its rows");
      const uint64_t bytes = vector_instruction_bytes(d, in.row_count(), in.k_count());
      if (bytes > d.vector_region_bytes)
        throw ProgramError("instruction " + describe(in, p) + ": buffers over capacity: it needs " +
                           std::to_string(bytes) + " B, the vector region holds " +
                           std::to_string(d.vector_region_bytes) + " B (vector_region_bytes)");
    }
    if (in.op == Opcode::LoadWeights && in.k_count() > d.k_tile)
      throw ProgramError("instruction " + describe(in, p) + ": " + std::to_string(in.k_count()) +
                         " kernels exceed the layer's weight tile of " + std::to_string(d.k_tile));
  }
  check_residency(p, net, hw);
}

}  // namespace npusim
