#include "sim/runner/kernel_summary_cache.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/graph/weight_nonzeros.h"
#include "sim/io/build_id.h"
#include "sim/io/keyed_file.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim {
namespace {

// Raise when the seeded generator, the sparsity patterns or summarise_kernels change meaning:
// entries of another version are never read.
constexpr int kCacheFormat = 1;

// Each seeded layer's non-zero counts by seeded_weights_key, for the life of the process: the
// compiler, the timing run and the compile trials (forked after warm_kernel_counts) all ask for
// them. An empty vector: the weights must be drawn (a sparsity pattern or a rejected draw).
std::mutex counts_mutex;
std::unordered_map<std::string, KernelCounts>& known_counts() {
  static std::unordered_map<std::string, KernelCounts> counts;
  return counts;
}

// The summaries warm_kernel_counts took from the disk cache (or wrote there), by their entry's
// key: the trials forked after it and the run find them here instead of reading the entry.
std::unordered_map<std::string, KernelStream>& known_summaries() {
  static std::unordered_map<std::string, KernelStream> summaries;
  return summaries;
}

KernelCounts seeded_counts(const LayerConfig& layer) {
  const std::string key = seeded_weights_key(layer);
  if (key.empty()) return {};
  {
    const std::lock_guard<std::mutex> lock(counts_mutex);
    const auto known = known_counts().find(key);
    if (known != known_counts().end()) return known->second;
  }
  KernelCounts counts = count_seeded_kernel_nonzeros(layer, kernel_zeros(layer));
  const std::lock_guard<std::mutex> lock(counts_mutex);
  known_counts().emplace(key, counts);
  return counts;
}

// Counted straight from the seeded draws where the weights are plain bytes, or
// from the model's own, else drawn.
KernelStream compute(const LayerConfig& layer, ComputeMode mode) {
  KernelCounts counts = seeded_counts(layer);
  if (counts.empty()) counts = model_weight_nonzeros(layer);  // a model's own, where they lie
  if (counts.empty()) return summarise_layer_kernels(layer, make_layer_weights(layer), mode);
  return summary_from_counts(std::move(counts), layer.R, layer.S, layer.group_channels(), mode);
}

// The entry file: the key line, then the format and K counts, as text. Read
// with strtoul rather than operator>>, which cost a sweep point over 1 M
// instructions for ResNet-18's 20 layers. A count above a
// kernel's `taps` (R * S * C / groups) makes the entry unreadable: the cache is a
// file anyone can edit, and a count of 2^32 - 1 once gave 51.5 G cycles, not 1,772.
// The entry file of `key` in `dir`: named by the key's hash.
std::string entry_path(const std::string& dir, const std::string& key) {
  return dir + "/" + digest_hex(key.data(), key.size()) + ".txt";
}

bool read_entry(const std::string& path, const std::string& key, uint32_t K, uint64_t taps,
                KernelStream& out) {
  const std::optional<std::string> rest = read_keyed_file(path, key);
  if (!rest) return false;
  const char* p = rest->c_str();
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
    if (!number(v) || v > taps) return false;
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
  std::string text = std::to_string(int(s.format)) + '\n';
  for (uint32_t c : s.nonzeros) text += std::to_string(c) + ' ';
  text += "\nend\n";
  write_keyed_file(path, key, text);  // one that cannot be written is counted again next time
}

}  // namespace

std::string kernel_summary_key(const LayerConfig& L, ComputeMode mode) {
  const std::string weights = seeded_weights_key(L);
  if (weights.empty()) return "";
  return "npusim kernel summary " + std::to_string(kCacheFormat) + " " + NPUSIM_VERSION + " mode " +
         to_string(mode) + " " + weights;
}

void warm_kernel_counts(const NetworkConfig& network, ComputeMode mode) {
  const std::string dir = kernel_summary_cache_dir();
  for (const LayerConfig& L : network.layers) {
    if (!runs_on_array(L.op) || L.op == OpKind::BatchMatMul || L.is_binary()) continue;
    // With a disk cache, the summary is read (or worked out and written) once, here, and kept
    // for the trials and the run; without one, the counts are.
    const std::string key = dir.empty() ? "" : kernel_summary_key(L, mode);
    if (key.empty()) {
      seeded_counts(L);
      continue;
    }
    KernelStream s = timing_kernel_summary(L, mode, dir);
    const std::lock_guard<std::mutex> lock(counts_mutex);
    known_summaries().emplace(key, std::move(s));
  }
}

namespace {

// $XDG_CACHE_HOME/npusim/kernel-counts/BUILD-ID, or "" (kernel_summary_cache_dir).
std::string default_kernel_summary_cache_dir() {
  const std::string& build = build_id_hex();
  if (build.empty()) return "";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base;
  if (xdg != nullptr && xdg[0] == '/')
    base = xdg;
  else if (home != nullptr && home[0] == '/')
    base = std::string(home) + "/.cache";
  else
    return "";
  return base + "/npusim/kernel-counts/" + build;
}

// A folder name a build ID gives (hex, at least 64 bits): the only folders pruning removes.
bool build_folder_name(const std::string& name) {
  return name.size() >= 16 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Removes the build folders beside `current` (just made) but for the kKeptBuildFolders - 1 last
// written to, so rebuilding npusim again and again does not fill the disk.
void prune_build_folders(const std::filesystem::path& current) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::pair<fs::file_time_type, fs::path>> others;
  for (fs::directory_iterator it(current.parent_path(), error), end; !error && it != end;
       it.increment(error)) {
    const fs::path& path = it->path();
    std::error_code ignored;
    if (path != current && build_folder_name(path.filename().string()) && it->is_directory(ignored))
      others.emplace_back(fs::last_write_time(path, ignored), path);
  }
  if (others.size() < kKeptBuildFolders) return;
  std::sort(others.begin(), others.end(), [](const auto& a, const auto& b) {
    return a.first > b.first;  // the last written first
  });
  for (size_t i = kKeptBuildFolders - 1; i < others.size(); ++i) {
    std::error_code ignored;
    fs::remove_all(others[i].second, ignored);
  }
}

}  // namespace

std::string kernel_summary_cache_dir() {
  if (const char* dir = std::getenv("NPUSIM_KERNEL_CACHE")) return dir;  // "": no cache
  std::string dir = default_kernel_summary_cache_dir();
  std::error_code error;
  if (!dir.empty() && !std::filesystem::is_directory(dir, error)) {
    // This build's first run: made, and the oldest other builds' folders removed.
    if (std::filesystem::create_directories(dir, error)) prune_build_folders(dir);
  }
  // A folder that cannot be made only costs the saving.
  return error ? std::string() : dir;
}

KernelStream timing_kernel_summary(const LayerConfig& layer, ComputeMode mode,
                                   const std::string& cache_dir) {
  if (layer.is_binary()) return KernelStream{};                // raw, no counts: nothing to draw
  if (layer.op == OpKind::BatchMatMul) return KernelStream{};  // kernels come at run time
  const std::string key = cache_dir.empty() ? "" : kernel_summary_key(layer, mode);
  if (key.empty()) return compute(layer, mode);
  {
    const std::lock_guard<std::mutex> lock(counts_mutex);
    const auto read = known_summaries().find(key);
    if (read != known_summaries().end()) return read->second;
  }
  const std::string path = entry_path(cache_dir, key);
  KernelStream s;
  if (read_entry(path, key, layer.K, uint64_t(layer.R) * layer.S * layer.group_channels(), s))
    return s;
  s = compute(layer, mode);
  write_entry(path, key, s);
  return s;
}

}  // namespace npusim
