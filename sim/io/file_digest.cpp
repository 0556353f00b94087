#include "sim/io/file_digest.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "sim/io/hex.h"

namespace npusim {

std::string files_digest_hex(const std::vector<std::pair<std::string, std::string>>& labelled) {
  const std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                              &XXH3_freeState);
  if (!state || XXH3_128bits_reset(state.get()) != XXH_OK) return "";
  constexpr size_t kChunk = size_t(1) << 20;
  const std::unique_ptr<uint8_t[]> buffer(new uint8_t[kChunk]);
  for (const auto& [label, path] : labelled) {
    std::error_code error;
    const uint64_t size = std::filesystem::file_size(path, error);
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"),
                                                            &std::fclose);
    if (error || !f) return "";
    const std::string head = label + "\n" + std::to_string(size) + " bytes\n";
    XXH3_128bits_update(state.get(), head.data(), head.size());
    uint64_t read = 0;
    for (size_t n; (n = std::fread(buffer.get(), 1, kChunk, f.get())) > 0; read += n)
      XXH3_128bits_update(state.get(), buffer.get(), n);
    if (std::ferror(f.get()) || read != size) return "";  // changed while read
  }
  XXH128_canonical_t digest;
  XXH128_canonicalFromHash(&digest, XXH3_128bits_digest(state.get()));
  return hex_bytes(digest.digest, sizeof digest.digest);
}

}  // namespace npusim
