#include "models/cost/cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace npusim::cost {

uint64_t dram_burst_bytes(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes) {
  return segments * ceil_div(segment_bytes, dram.burst_bytes) * dram.burst_bytes;
}

uint64_t dram_data_cycles(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes) {
  // Exact for a whole bytes_per_cycle: a quotient of integers below 2^53 that is
  // not whole lies at least 1 / bytes_per_cycle from the next integer.
  return uint64_t(
      std::ceil(double(dram_burst_bytes(dram, segments, segment_bytes)) / dram.bytes_per_cycle));
}

uint64_t cache_access_cycles(const CacheConfig& cache, uint64_t bytes) {
  return ceil_div(bytes, cache.port_bytes_per_cycle);
}

uint32_t cache_parallel_accesses(const CacheConfig& cache) {
  const uint64_t by_banks = std::max<uint64_t>(
      1, uint64_t(cache.banks) * cache.bank_bytes_per_cycle / cache.port_bytes_per_cycle);
  return static_cast<uint32_t>(std::min<uint64_t>(cache.ports, by_banks));
}

uint64_t compute_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                              uint64_t coefficients_per_kernel) {
  return ceil_div(k_count, compute.array_rows) * coefficients_per_kernel *
         ceil_div(pixels, compute.array_cols);
}

uint64_t binary_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                             uint64_t taps, uint64_t words_per_tap) {
  return compute_stage_cycles(compute, pixels, k_count, taps * words_per_tap);
}

uint64_t broadcast_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                const uint32_t* counts, uint32_t k_count) {
  uint64_t coefficients = 0;
  for (uint32_t k = 0; k < k_count; ++k) coefficients += counts[k];
  const uint64_t multipliers = uint64_t(compute.array_rows) * compute.array_cols;
  return coefficients * ceil_div(pixels, multipliers);
}

uint64_t last_pass_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t array_cycles) {
  if (pixels == 0) return 0;
  const uint64_t passes = ceil_div(pixels, compute.array_cols);
  return array_cycles - (passes - 1) * array_cycles / passes;
}

uint64_t register_fed_stage_cycles(const ComputeConfig& compute, DataRegisters sets,
                                   uint64_t pixels, uint64_t row_bytes, uint64_t array_cycles,
                                   uint64_t overlap) {
  if (sets == DataRegisters::InPlace || pixels == 0) return array_cycles;
  const uint64_t passes = ceil_div(pixels, compute.array_cols);
  const uint64_t rate = compute.register_fetch_rate();
  const auto fetch = [&](uint64_t i) {  // f_i; 0 past the last pass
    if (i >= passes) return uint64_t(0);
    const uint64_t set_pixels =
        i + 1 < passes ? compute.array_cols : pixels - (passes - 1) * compute.array_cols;
    return ceil_div(set_pixels * row_bytes, rate);
  };
  const auto multiply = [&](uint64_t i) {  // m_i
    return (i + 1) * array_cycles / passes - i * array_cycles / passes;
  };
  uint64_t cycles = sets == DataRegisters::Double ? fetch(0) - std::min(fetch(0), overlap) : 0;
  for (uint64_t i = 0; i < passes; ++i)
    cycles += sets == DataRegisters::Double ? std::max(multiply(i), fetch(i + 1))
                                            : fetch(i) + multiply(i);
  return cycles;
}

uint64_t zero_skip_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                const uint32_t* nonzeros, uint32_t k_count) {
  uint64_t coefficient_passes = 0;
  for (uint32_t g = 0; g < k_count; g += compute.array_rows) {
    const uint32_t end = std::min(k_count, g + compute.array_rows);
    coefficient_passes += *std::max_element(nonzeros + g, nonzeros + end);
  }
  return coefficient_passes * ceil_div(pixels, compute.array_cols);
}

uint64_t folded_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                             const uint32_t* nonzeros, uint32_t k_count, uint32_t fold,
                             uint32_t split) {
  const uint64_t lockstep = uint64_t(compute.array_rows) * fold;
  uint64_t coefficient_passes = 0;
  for (uint64_t g = 0; g < k_count; g += lockstep) {
    const uint64_t end = std::min<uint64_t>(k_count, g + lockstep);
    coefficient_passes += ceil_div(*std::max_element(nonzeros + g, nonzeros + end), split);
  }
  return coefficient_passes * ceil_div(pixels, compute.array_cols / fold) +
         split_tree_cycles(split);
}

uint64_t uniform_folded_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                     uint64_t coefficients, uint32_t k_count, uint32_t fold,
                                     uint32_t split) {
  return ceil_div(k_count, uint64_t(compute.array_rows) * fold) * ceil_div(coefficients, split) *
             ceil_div(pixels, compute.array_cols / fold) +
         split_tree_cycles(split);
}

uint32_t coefficient_split(const HardwareConfig& hw, uint32_t fold, uint64_t tile_k) {
  if (!splits_coefficients(hw)) return 1;
  const uint64_t kernel_groups =
      std::min<uint64_t>(fold, ceil_div(std::max<uint64_t>(tile_k, 1), hw.compute.array_rows));
  return uint32_t(fold / kernel_groups);
}

uint64_t split_tree_cycles(uint32_t split) {
  uint64_t depth = 0;
  while ((uint64_t(1) << depth) < split) ++depth;
  return depth;
}

namespace {

StageFold search_stage_fold(const HardwareConfig& hw, uint64_t pixels, uint32_t k_count,
                            uint64_t coefficients) {
  const ComputeConfig& compute = hw.compute;
  StageFold best;
  uint64_t best_cycles = UINT64_MAX;
  // No fold beats every multiplier busy: stop once one reaches that.
  const uint64_t all_busy = ceil_div(uint64_t(k_count) * pixels * coefficients,
                                     uint64_t(compute.array_rows) * compute.array_cols);
  for (uint32_t f = 1; f <= compute.array_cols; ++f) {
    const uint32_t split = coefficient_split(hw, f, k_count);
    const uint64_t cycles =
        uniform_folded_stage_cycles(compute, pixels, coefficients, k_count, f, split);
    if (cycles < best_cycles) best = {f, split}, best_cycles = cycles;
    if (best_cycles <= all_busy) break;
    if (uint64_t(compute.array_rows) * f >= k_count) {
      // More groups than kernels gain only by splitting coefficients, and
      // among the folds of one split the fewest groups have the most columns.
      if (coefficient_split(hw, compute.array_cols, k_count) == 1) break;
      const uint32_t kernel_groups = uint32_t(ceil_div(k_count, compute.array_rows));
      f = (split + 1) * kernel_groups - 1;
    }
  }
  return best;
}

}  // namespace

StageFold stage_fold(const HardwareConfig& hw, uint64_t pixels, uint32_t k_count,
                     uint64_t coefficients) {
  // The mapper asks for the same few shapes once per candidate: a small
  // direct-mapped memo of the search (per thread, so no locking) keeps it
  // from dominating a network's mapping search.
  struct Entry {
    uint64_t pixels = 0, coefficients = 0;
    uint32_t k_count = 0, rows = 0, cols = 0;
    bool split_allowed = false;
    StageFold fold;
  };
  static thread_local std::array<Entry, 4096> memo;
  // The search reads the array's shape and whether coefficients may split.
  const bool split_allowed = splits_coefficients(hw);
  const uint64_t hash = (pixels * 0x9E3779B97F4A7C15ull) ^ (coefficients * 0xC2B2AE3D27D4EB4Full) ^
                        (uint64_t(k_count) * 0x165667B19E3779F9ull) ^
                        (uint64_t(hw.compute.array_rows) << 20) ^ hw.compute.array_cols ^
                        (uint64_t(split_allowed) << 40);
  Entry& e = memo[(hash ^ (hash >> 29)) % memo.size()];
  if (e.rows != 0 && e.pixels == pixels && e.coefficients == coefficients && e.k_count == k_count &&
      e.rows == hw.compute.array_rows && e.cols == hw.compute.array_cols &&
      e.split_allowed == split_allowed)
    return e.fold;
  const StageFold fold = search_stage_fold(hw, pixels, k_count, coefficients);
  e = Entry{pixels,        coefficients, k_count, hw.compute.array_rows, hw.compute.array_cols,
            split_allowed, fold};
  return fold;
}

uint64_t grouped_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                              const uint32_t* nonzeros, uint32_t k_begin, uint32_t k_count,
                              uint32_t kernels_per_group) {
  uint64_t cycles = 0;
  for (uint32_t k = 0; k < k_count;) {
    // The run of the tile's kernels that share kernel k's group.
    const uint32_t group_end = ((k_begin + k) / kernels_per_group + 1) * kernels_per_group;
    const uint32_t run = std::min(k_count, group_end - k_begin) - k;
    cycles += zero_skip_stage_cycles(compute, pixels, nonzeros + k, run);
    k += run;
  }
  return cycles;
}

uint32_t matmul_fold(const ComputeConfig& compute, uint64_t rows_m) {
  return uint32_t(compute.array_cols / std::min<uint64_t>(rows_m, compute.array_cols));
}

uint64_t matmul_stage_cycles(const ComputeConfig& compute, uint64_t rows_m,
                             const uint32_t* nonzeros, uint32_t k_count, uint32_t split) {
  return folded_stage_cycles(compute, rows_m, nonzeros, k_count, matmul_fold(compute, rows_m),
                             split);
}

uint64_t uniform_grouped_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                      uint64_t coefficients, uint32_t k_begin, uint32_t k_count,
                                      uint32_t kernels_per_group) {
  const uint64_t rows = compute.array_rows;
  const uint64_t first =
      std::min<uint64_t>(k_count, kernels_per_group - k_begin % kernels_per_group);
  const uint64_t rest = k_count - first;
  const uint64_t blocks = ceil_div(first, rows) +
                          rest / kernels_per_group * ceil_div(kernels_per_group, rows) +
                          ceil_div(rest % kernels_per_group, rows);
  return blocks * coefficients * ceil_div(pixels, compute.array_cols);
}

uint64_t uniform_matmul_stage_cycles(const ComputeConfig& compute, uint64_t rows_m,
                                     uint64_t coefficients, uint32_t k_count, uint32_t split) {
  return uniform_folded_stage_cycles(compute, rows_m, coefficients, k_count,
                                     matmul_fold(compute, rows_m), split);
}

uint64_t uniform_broadcast_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                        uint64_t coefficients, uint32_t k_count) {
  return uint64_t(k_count) * coefficients *
         ceil_div(pixels, uint64_t(compute.array_rows) * compute.array_cols);
}

uint64_t vector_stage_cycles(const VectorConfig& vector, uint64_t element_ops) {
  return ceil_div(element_ops, vector.lanes);
}

uint64_t vector_special_cycles(const VectorConfig& vector, uint64_t special_ops) {
  return ceil_div(special_ops, vector.special_per_cycle);
}

VectorWork vector_row_work(OpKind op, uint64_t pixels, uint64_t channels, uint64_t window) {
  const uint64_t n = pixels * channels;
  const OpInfo& info = op_info(op);
  switch (info.family) {
    case OpFamily::Pool:  // every pool: one op per window tap
      return {n * window, 0};
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Add:  // one op per addend
        case ElementwiseKind::Mul:  // as add
          return {2 * n, 0};
      }
      break;
    case OpFamily::Concat:
      return {n, 0};
    case OpFamily::Gather:
      switch (info.gather) {
        case GatherKind::Channels:
          return {n, 0};
        case GatherKind::Resize:
          return {n * window, 0};
      }
      break;
    case OpFamily::Softmax:
      return {3 * n, n};
    case OpFamily::Norm:
      switch (info.norm) {
        case NormKind::Layer:
          return {4 * n, n + pixels};
        case NormKind::Rms:
          return {3 * n, n + pixels};
      }
      break;
    case OpFamily::Activation:  // every function: one table lookup per element
      return {n, 0};
    case OpFamily::Rope:
      return {3 * n, 0};
    case OpFamily::Conv:
    case OpFamily::Matmul:
      break;
  }
  return {0, 0};
}

}  // namespace npusim::cost
