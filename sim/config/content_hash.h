// A content hash for "has this input changed since?" checks (a resumed
// sweep's workload, the ONNX model a program file was compiled from):
// 64-bit FNV-1a in hexadecimal. Not cryptographic; it catches edits and
// regenerated files, not deliberate collisions.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace npusim {

inline std::string fnv1a64_hex(const std::string& bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001B3ULL;
  std::ostringstream s;
  s << std::hex << h;
  return s.str();
}

}  // namespace npusim
