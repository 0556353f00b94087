// The cache of kernel summaries that a sweep's timing-only points share
// (sim/runner/kernel_summary_cache.h): an entry gives exactly what drawing the weights gives, its
// key moves with everything the weights and the summary depend on, and a damaged or foreign
// entry is never believed.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/runner/kernel_summary_cache.h"
#include "sim/workload/layer_data.h"
#include "tests/support/test_support.h"

using namespace npusim;
namespace fs = std::filesystem;

namespace {

LayerConfig layer(const std::string& extra = "") {
  return test::workload(R"({"type": "conv2d", "name": "l", "C": 19, "H": 8, "W": 8, "K": 7, )"
                        R"("R": 3, "S": 3, "seed": 5)" +
                        extra + "}")
      .layers.at(0);
}

KernelStream direct(const LayerConfig& L, ComputeMode mode) {
  return summarise_layer_kernels(L, make_layer_weights(L), mode);
}

bool same(const KernelStream& a, const KernelStream& b) {
  return a.format == b.format && a.nonzeros == b.nonzeros && a.bytes.empty() && b.bytes.empty();
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = test::temp_dir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE(
    "a cached kernel summary equals the one drawn from the weights, on the first and later "
    "reads, for dense, unstructured and n:m weights in both compute modes",
    "[kernel_summary_cache]") {
  const std::string dir = fresh_dir("ksc-equal");
  for (const std::string& extra :
       {std::string(), std::string(R"(, "sparsity": {"pattern": "unstructured", "density": 0.2})"),
        std::string(R"(, "sparsity": {"pattern": "nm", "n": 1, "m": 4})")})
    for (ComputeMode mode : {ComputeMode::ZeroSkip, ComputeMode::Dense}) {
      const LayerConfig L = layer(extra);
      INFO(extra << " " << to_string(mode));
      const KernelStream want = direct(L, mode);
      CHECK(same(timing_kernel_summary(L, mode, dir), want));  // computed and written
      CHECK(same(timing_kernel_summary(L, mode, dir), want));  // read back
    }
  // Six distinct keys, six entries; the sparse zero-skip ones chose the entries format.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 6);
  CHECK(direct(layer(R"(, "sparsity": {"pattern": "unstructured", "density": 0.2})"),
               ComputeMode::ZeroSkip)
            .format == WeightFormat::Entries);
}

TEST_CASE(
    "a summary counted from the seeded draws without storing the weights equals the drawn one, "
    "for a plain int8 layer and uint8 and int8 graph operators with per-channel zero points",
    "[kernel_summary_cache]") {
  LayerConfig q = layer();
  q.quantized = true;
  q.quant.weight_type = QuantType::Uint8;
  q.quant.weight_zero_point = {0, 7, 128, 255, 3, 200, 1};  // one per kernel, K = 7
  LayerConfig s = q;
  s.quant.weight_type = QuantType::Int8;
  s.quant.weight_zero_point = {0, 7, -127, 127, 3, -1, 1};
  for (const LayerConfig& L : {layer(), q, s}) {
    REQUIRE_FALSE(count_seeded_kernel_nonzeros(L, kernel_zeros(L)).empty());  // the counting path
    for (ComputeMode mode : {ComputeMode::ZeroSkip, ComputeMode::Dense}) {
      INFO((L.quantized ? "operator, " : "int8 layer, ") << to_string(mode));
      CHECK(same(timing_kernel_summary(L, mode, ""), direct(L, mode)));
    }
  }
}

TEST_CASE(
    "the cache key changes with the compute mode, seed, shape, sparsity and weight zero points, "
    "and weights from a file are not cached",
    "[kernel_summary_cache]") {
  const std::string base = kernel_summary_key(layer(), ComputeMode::ZeroSkip);
  CHECK_FALSE(base.empty());
  CHECK(kernel_summary_key(layer(), ComputeMode::Dense) != base);
  CHECK(kernel_summary_key(layer(R"(, "seed": 6)"), ComputeMode::ZeroSkip) != base);
  LayerConfig wider = layer();
  wider.C = 20;
  CHECK(kernel_summary_key(wider, ComputeMode::ZeroSkip) != base);
  CHECK(kernel_summary_key(layer(R"(, "sparsity": {"pattern": "unstructured", "density": 0.2})"),
                           ComputeMode::ZeroSkip) !=
        kernel_summary_key(layer(R"(, "sparsity": {"pattern": "unstructured", "density": 0.3})"),
                           ComputeMode::ZeroSkip));
  LayerConfig q = layer();
  q.quantized = true;
  q.quant.weight_zero_point = {3};
  const std::string zp3 = kernel_summary_key(q, ComputeMode::ZeroSkip);
  q.quant.weight_zero_point = {4};
  CHECK(kernel_summary_key(q, ComputeMode::ZeroSkip) != zp3);
  LayerConfig from_file = layer();
  from_file.weights_npy = "w.npy";
  CHECK(kernel_summary_key(from_file, ComputeMode::ZeroSkip).empty());
}

TEST_CASE("a truncated entry or one written for another key is recomputed, not believed",
          "[kernel_summary_cache]") {
  const std::string dir = fresh_dir("ksc-damaged");
  const LayerConfig L = layer();
  const KernelStream want = direct(L, ComputeMode::ZeroSkip);
  timing_kernel_summary(L, ComputeMode::ZeroSkip, dir);
  REQUIRE(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  const std::string entry = fs::directory_iterator(dir)->path().string();
  std::string text;
  {
    std::ifstream in(entry);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // Cut off before its end marker: recomputed, and rewritten whole.
  std::ofstream(entry) << text.substr(0, text.size() / 2);
  CHECK(same(timing_kernel_summary(L, ComputeMode::ZeroSkip, dir), want));
  {
    std::ifstream in(entry);
    CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == text);
  }
  // Another key's line (as after a hash collision), with counts of all zeros.
  std::string foreign = "npusim kernel summary of another layer\n0\n";
  for (uint32_t k = 0; k < L.K; ++k) foreign += "0 ";
  std::ofstream(entry) << foreign << "\nend\n";
  CHECK(same(timing_kernel_summary(L, ComputeMode::ZeroSkip, dir), want));
}

TEST_CASE(
    "an entry with a count above a kernel's R*S*C taps is recomputed, not believed (a poisoned "
    "count gave 51.5 G cycles)",
    "[kernel_summary_cache][robustness]") {
  const std::string dir = fresh_dir("ksc-poisoned");
  const LayerConfig L = layer();
  const KernelStream want = direct(L, ComputeMode::ZeroSkip);
  timing_kernel_summary(L, ComputeMode::ZeroSkip, dir);
  const std::string entry = fs::directory_iterator(dir)->path().string();
  std::string text;
  {
    std::ifstream in(entry);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The first count (after the key line and the format) becomes 3*3*19 + 1 = 172.
  const std::size_t format_end = text.find('\n', text.find('\n') + 1);
  const std::size_t first = text.find_first_of("0123456789", format_end);
  const std::size_t first_end = text.find_first_not_of("0123456789", first);
  std::string poisoned = text;
  poisoned.replace(first, first_end - first, std::to_string(3 * 3 * 19 + 1));
  std::ofstream(entry) << poisoned;
  CHECK(same(timing_kernel_summary(L, ComputeMode::ZeroSkip, dir), want));
  // At the bound itself (every tap non-zero) the entry is read as written.
  std::string full = text;
  full.replace(first, first_end - first, std::to_string(3 * 3 * 19));
  std::ofstream(entry) << full;
  CHECK(timing_kernel_summary(L, ComputeMode::ZeroSkip, dir).nonzeros.at(0) == 3 * 3 * 19);
}
