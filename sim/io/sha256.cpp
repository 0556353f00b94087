#include "sim/io/sha256.h"

#include <nettle/sha2.h>

#include <cstdint>

namespace npusim {

std::string sha256_hex(std::initializer_list<std::string_view> parts) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  for (const std::string_view part : parts)
    sha256_update(&ctx, part.size(), reinterpret_cast<const uint8_t*>(part.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * SHA256_DIGEST_SIZE);
  for (const uint8_t b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 0xF];
  }
  return hex;
}

}  // namespace npusim
