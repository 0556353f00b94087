#include "models/binary_array.h"

#include <bitset>
#include <cstring>

namespace npusim::binary_array {
namespace {

uint64_t read_word(const int8_t* bytes, uint32_t word_bytes) {
  uint64_t w = 0;
  std::memcpy(&w, bytes, word_bytes);  // little-endian host, as the DRAM image
  return w;
}

int popcount(uint64_t v) { return int(std::bitset<64>(v).count()); }

}  // namespace

std::vector<uint64_t> decode_kernels(const ByteTile& weights, const LayerDescriptor& L,
                                     uint32_t k_count) {
  const uint64_t words = uint64_t(L.R) * L.S * L.groups();
  const uint32_t word_bytes = L.bits / 8;
  std::vector<uint64_t> out(k_count * words);
  for (uint32_t k = 0; k < k_count; ++k)
    for (uint64_t i = 0; i < words; ++i)
      out[k * words + i] = read_word(weights.row(k) + i * word_bytes, word_bytes);
  return out;
}

void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                  int64_t tile_first_row, const std::vector<uint64_t>& kernels, SumTile& results,
                  uint32_t row_begin, uint32_t row_end) {
  const uint32_t groups = L.groups(), word_bytes = L.bits / 8;
  const uint64_t kernel_words = uint64_t(L.R) * L.S * groups;
  // Only the real channels of the last group count: its high bits are padding.
  std::vector<uint64_t> mask(groups, L.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << L.bits) - 1);
  const uint32_t tail = L.C - (groups - 1) * L.bits;
  if (tail < 64) mask[groups - 1] = (uint64_t(1) << tail) - 1;
  const uint64_t pad_word = L.pad_mode == BinaryPadMode::PlusOne ? ~uint64_t(0) : 0;
  std::vector<uint64_t> a(kernel_words);             // the input words one output pixel reads
  std::vector<uint8_t> inside(uint64_t(L.R) * L.S);  // per tap: inside the input?
  for (uint32_t oh = row_begin; oh < row_end; ++oh) {
    int32_t* out_row = results.row(oh - in.out_row_begin);
    for (uint32_t ow = 0; ow < L.out_w; ++ow) {
      for (uint32_t r = 0; r < L.R; ++r) {
        const int64_t iy = int64_t(oh) * L.stride - L.padding + r;
        for (uint32_t s = 0; s < L.S; ++s) {
          const int64_t ix = int64_t(ow) * L.stride - L.padding + s;
          const uint64_t tap = uint64_t(r) * L.S + s;
          inside[tap] = iy >= 0 && iy < int64_t(L.H) && ix >= 0 && ix < int64_t(L.W);
          const int8_t* px = inside[tap] ? input.row(uint32_t(iy - tile_first_row)) +
                                               uint64_t(ix + L.padding) * groups * word_bytes
                                         : nullptr;
          for (uint32_t g = 0; g < groups; ++g)
            a[tap * groups + g] =
                px ? read_word(px + uint64_t(g) * word_bytes, word_bytes) : pad_word;
        }
      }
      int32_t* sums = out_row + uint64_t(ow) * in.k_count();
      for (uint32_t k = 0; k < in.k_count(); ++k) {
        const uint64_t* w = kernels.data() + k * kernel_words;
        int32_t acc = 0;
        for (uint64_t tap = 0; tap < uint64_t(L.R) * L.S; ++tap) {
          if (!inside[tap] && L.pad_mode == BinaryPadMode::Skip) continue;
          for (uint32_t g = 0; g < groups; ++g) {
            const uint64_t i = tap * groups + g;
            acc += popcount(mask[g]) - 2 * popcount((a[i] ^ w[i]) & mask[g]);
          }
        }
        sums[k] = acc;
      }
    }
  }
}

}  // namespace npusim::binary_array
