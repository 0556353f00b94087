// The seed 001 address-generation state machine (models/address_generator.h)
// against materialised references built here independently: a zero-padded
// copy of the input's address map, from which the im2col and MEC matrices are
// cut the textbook way, compared index by index. Then the lowered matrices
// are multiplied with real data and checked against the reference
// convolution, and the output layouts against their offset formulas.
//
// The patent's example (seed 001): a 5x5x3 input, two 3x3 filters, stride 1,
// no padding. Output 3x3, so im2col has 9 rows of 3*3*3 = 27 elements: 243
// elements, while the input footprint is 5 rows of 5*3 = 15: 75 elements,
// 75 / 243 = 30.9 % of the unrolled data. MEC (Cho & Brand 2017): 3 output
// columns x (5 * 3 * 3 = 45) = 135 elements.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "models/address_generator.h"
#include "sim/reference/reference_conv.h"
#include "sim/tensor/layout.h"

using namespace npusim;

namespace {

AddressGeneratorInit make_init(uint32_t h, uint32_t w, uint32_t c, uint32_t r, uint32_t s,
                               uint32_t stride, uint32_t pad, uint64_t base = 0x1000,
                               uint64_t row_stride = 0, uint32_t bits = 8) {
  AddressGeneratorInit init;
  init.input_h = h;
  init.input_w = w;
  init.channels = c;
  init.filter_h = r;
  init.filter_w = s;
  init.filters = 2;
  init.stride = stride;
  init.padding = pad;
  init.input_base = base;
  init.row_stride = row_stride;
  init.element_bits = bits;
  return init;
}

// The bit address of every element of the zero-padded input, -1 for padding,
// as a plain (Hp, Wp, C) array: the "padded copy in DRAM" a host would make.
struct PaddedAddressMap {
  uint32_t hp, wp, c;
  std::vector<int64_t> bit_address;
  int64_t at(uint32_t y, uint32_t x, uint32_t ch) const {
    return bit_address[(uint64_t(y) * wp + x) * c + ch];
  }
};

PaddedAddressMap padded_map(const AddressGeneratorInit& in) {
  PaddedAddressMap m{in.input_h + 2 * in.padding, in.input_w + 2 * in.padding, in.channels, {}};
  m.bit_address.assign(uint64_t(m.hp) * m.wp * m.c, -1);
  // Sub-byte rows are bit-contiguous when no stride is given. An NHWC row
  // holds W pixels of C components; an NCHW row W components of one plane,
  // and plane ch starts ch * H rows in.
  const bool nchw = in.input_layout == InputLayout::kNchw;
  const uint64_t row_bits = in.row_stride
                                ? in.row_stride * 8
                                : uint64_t(in.input_w) * (nchw ? 1 : in.channels) * in.element_bits;
  for (uint32_t y = 0; y < in.input_h; ++y) {
    for (uint32_t x = 0; x < in.input_w; ++x) {
      for (uint32_t ch = 0; ch < in.channels; ++ch) {
        const uint64_t pos = (uint64_t(y + in.padding) * m.wp + x + in.padding) * m.c + ch;
        const uint64_t offset_bits =
            nchw ? (uint64_t(ch) * in.input_h + y) * row_bits + uint64_t(x) * in.element_bits
                 : y * row_bits + (uint64_t(x) * in.channels + ch) * in.element_bits;
        m.bit_address[pos] = int64_t(in.input_base * 8 + offset_bits);
      }
    }
  }
  return m;
}

// The output step in x: stride_x when set.
uint32_t step_x(const AddressGeneratorInit& in) { return in.stride_x ? in.stride_x : in.stride; }

std::vector<int64_t> reference_im2col(const AddressGeneratorInit& in) {
  const PaddedAddressMap m = padded_map(in);
  const uint32_t sx = step_x(in);
  std::vector<int64_t> out;
  for (uint32_t oy = 0; (oy * in.stride + in.filter_h) <= m.hp; ++oy)
    for (uint32_t ox = 0; (ox * sx + in.filter_w) <= m.wp; ++ox)
      for (uint32_t ky = 0; ky < in.filter_h; ++ky)
        for (uint32_t kx = 0; kx < in.filter_w; ++kx)
          for (uint32_t ch = 0; ch < in.channels; ++ch)
            out.push_back(m.at(oy * in.stride + ky, ox * sx + kx, ch));
  return out;
}

std::vector<int64_t> reference_mec(const AddressGeneratorInit& in) {
  const PaddedAddressMap m = padded_map(in);
  std::vector<int64_t> out;
  const uint32_t sx = step_x(in);
  for (uint32_t ox = 0; (ox * sx + in.filter_w) <= m.wp; ++ox)
    for (uint32_t y = 0; y < m.hp; ++y)
      for (uint32_t kx = 0; kx < in.filter_w; ++kx)
        for (uint32_t ch = 0; ch < in.channels; ++ch) out.push_back(m.at(y, ox * sx + kx, ch));
  return out;
}

// Drains the generator in fetches of `chunk`, as bit addresses (-1 = padding).
std::vector<int64_t> drain(InputAddressGenerator& gen, uint32_t chunk) {
  std::vector<int64_t> out;
  while (!gen.done()) {
    for (const ElementAddress& a : gen.fetch(chunk))
      out.push_back(a.is_padding() ? -1 : a.byte * 8 + a.bit);
  }
  return out;
}

void require_same(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("index " << i);
    REQUIRE(got[i] == want[i]);
  }
}

uint64_t count_padding(const std::vector<int64_t>& v) {
  uint64_t n = 0;
  for (int64_t a : v) n += a < 0;
  return n;
}

}  // namespace

TEST_CASE("patent example: 5x5x3 input, two 3x3 filters: 243 unrolled vs 75 fetched",
          "[address_generator]") {
  const AddressGeneratorInit init = make_init(5, 5, 3, 3, 3, 1, 0);
  InputAddressGenerator im2col(init, LoweringKind::kIm2col);
  CHECK(output_height(init) == 3);
  CHECK(output_width(init) == 3);
  CHECK(im2col.rows() == 9);
  CHECK(im2col.columns() == 27);
  CHECK(im2col.elements() == 243);
  CHECK(im2col.padding_elements() == 0);
  const LoweringFootprint f = lowering_footprint(init);
  CHECK(f.input_elements == 75);  // 5 rows x 15 (5 x 3 channels)
  CHECK(f.im2col_elements == 243);
  CHECK(f.mec_elements == 135);  // 3 columns x 5 x 3 x 3
  // 75 / 243 = 0.3086: "about 30 %" of the unrolled data is fetched.
  CHECK(double(f.input_elements) / double(f.im2col_elements) == Approx(0.3086).epsilon(1e-3));

  // The 243 addresses touch exactly the 75 distinct input bytes.
  std::vector<int64_t> seq = drain(im2col, 27);
  require_same(seq, reference_im2col(init));
  std::vector<bool> seen(75, false);
  for (int64_t a : seq) seen[uint64_t(a / 8 - 0x1000)] = true;
  for (bool s : seen) CHECK(s);
}

TEST_CASE("im2col and MEC address streams equal the materialised references in NHWC and NCHW",
          "[address_generator]") {
  // h, w, c, r, s, stride, pad, row_stride (0 = dense), element bits
  using Shape = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                           uint64_t, uint32_t>;
  const std::vector<Shape> shapes = {
      {5, 5, 3, 3, 3, 1, 0, 0, 8},  {5, 5, 3, 3, 3, 1, 1, 0, 8},  {7, 6, 4, 3, 3, 2, 1, 0, 8},
      {8, 8, 1, 5, 5, 1, 2, 0, 8},  {9, 7, 5, 3, 2, 2, 0, 0, 8},  {6, 6, 2, 1, 1, 1, 0, 0, 8},
      {4, 4, 3, 3, 3, 3, 2, 0, 8},  {6, 5, 3, 3, 3, 1, 1, 64, 8}, {5, 5, 4, 3, 3, 1, 1, 0, 16},
      {5, 6, 33, 3, 3, 2, 1, 0, 1}, {3, 3, 2, 7, 7, 1, 3, 0, 8},  {10, 3, 2, 4, 2, 3, 1, 0, 32},
  };
  const InputLayout layout = GENERATE(InputLayout::kNhwc, InputLayout::kNchw);
  for (const Shape& sh : shapes) {
    const auto [h, w, c, r, s, stride, pad, row_stride, bits] = sh;
    INFO("H" << h << " W" << w << " C" << c << " R" << r << " S" << s << " stride " << stride
             << " pad " << pad << " row stride " << row_stride << " bits " << bits
             << (layout == InputLayout::kNchw ? " NCHW" : " NHWC"));
    AddressGeneratorInit init = make_init(h, w, c, r, s, stride, pad, 0x40, row_stride, bits);
    init.input_layout = layout;
    // A column step of its own (how the compute engine views a MEC tile), when it fits.
    const uint32_t sx = GENERATE(0u, 2u, 3u);
    if (sx != 0 && s > w + 2 * pad) continue;
    init.stride_x = sx;
    INFO("stride_x " << sx);
    for (uint32_t chunk : {1u, 7u, 32u}) {
      InputAddressGenerator im2col(init, LoweringKind::kIm2col);
      const std::vector<int64_t> want = reference_im2col(init);
      const std::vector<int64_t> got = drain(im2col, chunk);
      require_same(got, want);
      CHECK(im2col.elements() == want.size());
      CHECK(im2col.padding_elements() == count_padding(want));

      InputAddressGenerator mec(init, LoweringKind::kMec);
      const std::vector<int64_t> want_mec = reference_mec(init);
      require_same(drain(mec, chunk), want_mec);
      CHECK(mec.elements() == want_mec.size());
      CHECK(mec.padding_elements() == count_padding(want_mec));
    }
  }
}

// The runs of fetch_runs, spelled out entry by entry as bit addresses.
std::vector<int64_t> drain_runs(InputAddressGenerator& gen, uint64_t chunk, uint32_t bits,
                                size_t& run_count) {
  std::vector<int64_t> out;
  std::vector<AddressRun> runs;
  while (!gen.done()) gen.fetch_runs(chunk, runs);
  run_count = runs.size();
  for (const AddressRun& r : runs) {
    for (uint32_t i = 0; i < r.length; ++i)
      out.push_back(r.start.is_padding() ? -1
                                         : (r.start.byte * 8 + r.start.bit) + int64_t(i) * bits);
  }
  return out;
}

TEST_CASE("fetch_runs streams the same entries as fetch, as runs of consecutive addresses",
          "[address_generator]") {
  for (InputLayout layout : {InputLayout::kNhwc, InputLayout::kNchw}) {
    for (uint32_t sx : {0u, 3u}) {
      for (uint32_t pad : {0u, 1u, 2u}) {
        AddressGeneratorInit init = make_init(6, 7, 5, 3, 3, 2, pad, 0x40);
        init.input_layout = layout;
        init.stride_x = sx;
        for (LoweringKind kind : {LoweringKind::kIm2col, LoweringKind::kMec}) {
          for (uint64_t chunk : {uint64_t(1), uint64_t(4), uint64_t(45), uint64_t(1000)}) {
            INFO("NCHW " << (layout == InputLayout::kNchw) << " stride_x " << sx << " pad " << pad
                         << " mec " << (kind == LoweringKind::kMec) << " chunk " << chunk);
            InputAddressGenerator by_entry(init, kind), by_run(init, kind);
            size_t runs = 0;
            require_same(drain_runs(by_run, chunk, 8, runs), drain(by_entry, 7));
          }
        }
      }
    }
  }
  // Hand count: NHWC, 5x5x4 input, 3x3 filter, stride 1, no padding: 9 outputs
  // x 3 filter rows, each one run of S*C = 12 bytes; a chunk of one output
  // (36 entries) never splits a run.
  InputAddressGenerator gen(make_init(5, 5, 4, 3, 3, 1, 0), LoweringKind::kIm2col);
  std::vector<AddressRun> runs;
  for (int i = 0; i < 9; ++i) gen.fetch_runs(36, runs);
  CHECK(gen.done());
  REQUIRE(runs.size() == 27);
  CHECK(runs[0].length == 12);
  CHECK(runs[0].start.byte == 0x1000);
  CHECK(runs[1].start.byte == 0x1000 + 5 * 4);  // the next input row
  CHECK(runs[3].start.byte == 0x1000 + 4);      // output 1 starts one pixel right
}

TEST_CASE("restart replays the stream, a finished generator fetches nothing",
          "[address_generator]") {
  InputAddressGenerator gen(make_init(4, 4, 2, 3, 3, 1, 1), LoweringKind::kIm2col);
  const std::vector<int64_t> first = drain(gen, 5);
  CHECK(gen.fetch(4).empty());
  gen.restart();
  CHECK(drain(gen, 9) == first);
}

TEST_CASE("seek starts the stream at any entry", "[address_generator]") {
  const AddressGeneratorInit init = make_init(6, 5, 3, 3, 3, 2, 1);
  for (LoweringKind kind : {LoweringKind::kIm2col, LoweringKind::kMec}) {
    InputAddressGenerator gen(init, kind);
    const std::vector<int64_t> all = drain(gen, 64);
    for (uint64_t at : {uint64_t(0), uint64_t(1), uint64_t(28), uint64_t(all.size() - 1)}) {
      gen.seek(at);
      const std::vector<int64_t> rest = drain(gen, 5);
      REQUIRE(rest.size() == all.size() - at);
      CHECK(std::equal(rest.begin(), rest.end(), all.begin() + int64_t(at)));
    }
    gen.seek(all.size());
    CHECK(gen.done());
  }
}

TEST_CASE("invalid init records are refused", "[address_generator]") {
  CHECK_THROWS_AS(InputAddressGenerator(make_init(0, 5, 3, 3, 3, 1, 0), LoweringKind::kIm2col),
                  std::invalid_argument);
  CHECK_THROWS_AS(InputAddressGenerator(make_init(2, 2, 3, 3, 3, 1, 0), LoweringKind::kMec),
                  std::invalid_argument);
  CHECK_THROWS_AS(InputAddressGenerator(make_init(5, 5, 3, 3, 3, 0, 0), LoweringKind::kIm2col),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      InputAddressGenerator(make_init(5, 5, 3, 3, 3, 1, 0, 0, 14), LoweringKind::kIm2col),
      std::invalid_argument);  // row stride 14 B < 5 * 3 B
  CHECK_THROWS_AS(
      InputAddressGenerator(make_init(5, 5, 3, 3, 3, 1, 0, 0, 0, 65), LoweringKind::kIm2col),
      std::invalid_argument);
}

TEST_CASE(
    "convolution through the streamed im2col and MEC matrices equals the reference from NHWC and "
    "NCHW inputs",
    "[address_generator]") {
  const bool nchw = GENERATE(false, true);
  INFO((nchw ? "input stored NCHW" : "input stored NHWC"));
  for (uint32_t pad : {0u, 1u}) {
    for (uint32_t stride : {1u, 2u}) {
      const uint32_t H = 7, W = 6, C = 3, R = 3, S = 3, K = 2;
      AddressGeneratorInit init = make_init(H, W, C, R, S, stride, pad, 16);
      init.filters = K;
      init.input_layout = nchw ? InputLayout::kNchw : InputLayout::kNhwc;
      TensorI8 input({1, H, W, C});
      TensorI8 weights({K, R, S, C});
      for (uint64_t i = 0; i < input.size(); ++i) input.data[i] = int8_t(int(i * 7 % 5) - 2);
      for (uint64_t i = 0; i < weights.size(); ++i) weights.data[i] = int8_t(int(i * 3 % 5) - 2);
      // The reference convolution reads NHWC; DRAM holds the chosen layout.
      const TensorI8 stored = nchw ? nhwc_to_nchw(input) : input;
      std::vector<int8_t> dram(16 + stored.size());
      std::copy(stored.data.begin(), stored.data.end(), dram.begin() + 16);
      auto load = [&](const ElementAddress& a) -> int32_t {
        return a.is_padding() ? 0 : dram[uint64_t(a.byte)];
      };

      reference::ConvParams p;
      p.stride = stride;
      p.padding = pad;
      p.relu = false;
      p.bias.assign(K, 0);
      p.scale.assign(K, 1);
      const TensorI8 want = reference::conv2d_int8(input, weights, p);
      const uint32_t OH = output_height(init), OW = output_width(init), RSC = R * S * C;
      REQUIRE(want.size() == uint64_t(OH) * OW * K);

      InputAddressGenerator im2col(init, LoweringKind::kIm2col);
      for (uint32_t row = 0; row < OH * OW; ++row) {
        const std::vector<ElementAddress> patch = im2col.fetch(RSC);
        for (uint32_t k = 0; k < K; ++k) {
          int32_t acc = 0;
          for (uint32_t j = 0; j < RSC; ++j) acc += load(patch[j]) * weights.data[k * RSC + j];
          CHECK(reference::requantize(acc, 0, 1, 0, false) == want.data[row * K + k]);
        }
      }
      CHECK(im2col.done());

      // MEC: output (oy, ox) is row ox of the lowered matrix, columns from
      // oy * stride * S * C on, R * S * C long (overlapping windows).
      InputAddressGenerator mec(init, LoweringKind::kMec);
      const uint64_t cols = mec.columns();
      for (uint32_t ox = 0; ox < OW; ++ox) {
        const std::vector<ElementAddress> strip = mec.fetch(uint32_t(cols));
        for (uint32_t oy = 0; oy < OH; ++oy) {
          for (uint32_t k = 0; k < K; ++k) {
            int32_t acc = 0;
            for (uint32_t j = 0; j < RSC; ++j)
              acc += load(strip[oy * stride * S * C + j]) * weights.data[k * RSC + j];
            CHECK(reference::requantize(acc, 0, 1, 0, false) == want.data[(oy * OW + ox) * K + k]);
          }
        }
      }
      CHECK(mec.done());
    }
  }
}

TEST_CASE("output addresses: NHWC, NCHW and packed N(C/b)HWb", "[address_generator]") {
  AddressGeneratorInit init = make_init(5, 4, 3, 3, 3, 1, 1);  // output 5 x 4
  init.filters = 33;
  init.output_base = 0x2000;
  init.output_bits = 32;
  const uint32_t OH = 5, OW = 4, K = 33;
  for (uint32_t n : {0u, 2u}) {
    const OutputAddressGenerator nhwc(init, OutputLayout::kNhwc);
    const OutputAddressGenerator nchw(init, OutputLayout::kNchw);
    const std::vector<ElementAddress> stream = nhwc.stream(n);
    REQUIRE(stream.size() == uint64_t(OH) * OW * K);
    uint64_t i = 0;
    for (uint32_t h = 0; h < OH; ++h) {
      for (uint32_t w = 0; w < OW; ++w) {
        for (uint32_t c = 0; c < K; ++c, ++i) {
          // offset = n*HWC + h*WC + w*C + c (seed 001), 4 bytes each.
          const int64_t nhwc_off = int64_t(n) * OH * OW * K + h * OW * K + w * K + c;
          CHECK(stream[i].byte == 0x2000 + 4 * nhwc_off);
          CHECK(stream[i].bit == 0);
          const int64_t nchw_off = int64_t(n) * K * OH * OW + c * OH * OW + h * OW + w;
          CHECK(nchw.address(n, h, w, c).byte == 0x2000 + 4 * nchw_off);
          for (uint32_t b : {32u, 64u}) {
            const OutputAddressGenerator packed(
                init, b == 32 ? OutputLayout::kPacked32 : OutputLayout::kPacked64);
            const uint32_t groups = (K + b - 1) / b;  // 2 for b = 32, 1 for b = 64
            const int64_t word = ((int64_t(n) * groups + c / b) * OH + h) * OW + w;
            const ElementAddress a = packed.address(n, h, w, c);
            CHECK(a.byte == 0x2000 + word * (b / 8) + (c % b) / 8);
            CHECK(a.bit == (c % b) % 8);
          }
        }
      }
    }
  }
}

TEST_CASE("output channel step: one element in NHWC, one 5 x 4 plane in NCHW, none when packed",
          "[address_generator]") {
  AddressGeneratorInit init = make_init(5, 4, 3, 3, 3, 1, 1);  // output 5 x 4
  init.filters = 33;
  init.output_base = 0x2000;
  init.output_bits = 8;
  const OutputAddressGenerator nhwc(init, OutputLayout::kNhwc);
  const OutputAddressGenerator nchw(init, OutputLayout::kNchw);
  CHECK(nhwc.channel_step_bits() == 8);
  CHECK(nchw.channel_step_bits() == 5 * 4 * 8);
  CHECK(OutputAddressGenerator(init, OutputLayout::kPacked32).channel_step_bits() == 0);
  // The store adds the step to a pixel's first channel: it must land where
  // address() places every later channel.
  for (const OutputAddressGenerator* g : {&nhwc, &nchw})
    for (uint32_t c = 0; c < 33; ++c)
      CHECK(g->address(1, 3, 2, c).byte ==
            g->address(1, 3, 2, 0).byte + int64_t(c * g->channel_step_bits() / 8));
}
