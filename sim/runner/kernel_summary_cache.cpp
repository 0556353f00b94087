#include "sim/runner/kernel_summary_cache.h"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim {
namespace {

// Raise when the seeded generator, the sparsity patterns or summarise_kernels change meaning:
// entries of another version are never read.
constexpr int kCacheFormat = 1;

// Counted straight from the seeded draws where the weights are plain bytes, else drawn.
KernelStream compute(const LayerConfig& layer, ComputeMode mode) {
  std::vector<uint32_t> counts = count_seeded_kernel_nonzeros(layer, kernel_zeros(layer));
  if (counts.empty()) return summarise_layer_kernels(layer, make_layer_weights(layer), mode);
  return summary_from_counts(std::move(counts), layer.R, layer.S, layer.group_channels(), mode);
}

// The entry file: the key line, then the format and K counts, as text. Read
// with strtoul rather than operator>>, which cost a sweep point over 1 M
// instructions for ResNet-18's 20 layers (docs/performance.md).
bool read_entry(const std::string& path, const std::string& key, uint32_t K, KernelStream& out) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || line != key) return false;
  const std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* p = rest.c_str();
  // One unsigned decimal number after white space; false when there is none.
  const auto number = [&p](uint64_t& value) {
    while (std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
    char* end = nullptr;
    value = std::strtoull(p, &end, 10);
    p = end;
    return value <= UINT32_MAX;
  };
  uint64_t format = 0;
  if (!number(format) ||
      (format != uint64_t(WeightFormat::Raw) && format != uint64_t(WeightFormat::Entries)))
    return false;
  std::vector<uint32_t> counts(K);
  for (uint32_t& c : counts) {
    uint64_t v = 0;
    if (!number(v)) return false;
    c = uint32_t(v);
  }
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (std::strncmp(p, "end", 3) != 0) return false;
  out.format = WeightFormat(format);
  out.nonzeros = std::move(counts);
  out.bytes.clear();
  return true;
}

void write_entry(const std::string& path, const std::string& key, const KernelStream& s) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << key << '\n' << int(s.format) << '\n';
    for (uint32_t c : s.nonzeros) out << c << ' ';
    out << "\nend\n";
    if (!out) {
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

std::string kernel_summary_key(const LayerConfig& L, ComputeMode mode) {
  const std::string weights = seeded_weights_key(L);
  if (weights.empty()) return "";
  return "npusim kernel summary " + std::to_string(kCacheFormat) + " " + NPUSIM_VERSION + " mode " +
         to_string(mode) + " " + weights;
}

std::string kernel_summary_cache_dir() {
  const char* dir = std::getenv("NPUSIM_KERNEL_CACHE");
  return dir == nullptr ? std::string() : std::string(dir);
}

KernelStream timing_kernel_summary(const LayerConfig& layer, ComputeMode mode,
                                   const std::string& cache_dir) {
  if (layer.is_binary()) return KernelStream{};                // raw, no counts: nothing to draw
  if (layer.op == OpKind::BatchMatMul) return KernelStream{};  // kernels come at run time
  const std::string key = cache_dir.empty() ? "" : kernel_summary_key(layer, mode);
  if (key.empty()) return compute(layer, mode);
  const std::string path = cache_dir + "/" + digest_hex(key.data(), key.size()) + ".txt";
  KernelStream s;
  if (read_entry(path, key, layer.K, s)) return s;
  s = compute(layer, mode);
  write_entry(path, key, s);
  return s;
}

}  // namespace npusim
