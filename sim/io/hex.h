// Bytes as lower-case hex, two digits a byte, high nibble first: the build ID's folder name
// (build_id.h), SHA-256 digests (sha256.h) and file digests (file_digest.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace npusim {

inline std::string hex_bytes(const uint8_t* bytes, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) hex += {digits[bytes[i] >> 4], digits[bytes[i] & 15]};
  return hex;
}

}  // namespace npusim
