#include "models/kernel_decompressor.h"

#include <cstring>
#include <string>

#include "models/sim_time.h"

namespace npusim {

void decompress_kernel(const int8_t* stream, WeightFormat format, uint32_t R, uint32_t S,
                       uint32_t C, uint64_t stream_bytes, int8_t* dense, int8_t zero) {
  const uint64_t taps = uint64_t(R) * S;
  if (format == WeightFormat::Raw) {
    std::memcpy(dense, stream, taps * C);
    return;
  }
  std::memset(dense, zero, taps * C);  // skipped coefficients equal the zero point
  uint64_t at = 0;
  auto next = [&]() -> uint8_t {
    if (at >= stream_bytes) throw SimulationError("kernel stream ends early");
    return static_cast<uint8_t>(stream[at++]);
  };
  for (uint32_t c = 0; c < C; ++c) {
    const uint32_t count = next();
    if (count > taps)
      throw SimulationError("kernel stream: channel " + std::to_string(c) + " claims " +
                            std::to_string(count) + " entries, more than its " +
                            std::to_string(taps) + " taps");
    for (uint32_t i = 0; i < count; ++i) {
      const int8_t value = static_cast<int8_t>(next());
      const uint32_t tap = next();
      if (tap >= taps)
        throw SimulationError("kernel stream: tap " + std::to_string(tap) + " out of range");
      dense[uint64_t(tap) * C + c] = value;
    }
  }
}

}  // namespace npusim
