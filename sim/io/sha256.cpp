#include "sim/io/sha256.h"

#include <nettle/sha2.h>

#include <cstdint>

#include "sim/io/hex.h"

namespace npusim {

std::string sha256_hex(std::initializer_list<std::string_view> parts) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  for (const std::string_view part : parts)
    sha256_update(&ctx, part.size(), reinterpret_cast<const uint8_t*>(part.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  return hex_bytes(digest, SHA256_DIGEST_SIZE);
}

}  // namespace npusim
