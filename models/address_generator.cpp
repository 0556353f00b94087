#include "models/address_generator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace npusim {

namespace {

uint64_t dense_row_bits(const AddressGeneratorInit& init) {
  const uint64_t components = init.input_layout == InputLayout::kNchw ? 1 : init.channels;
  return uint64_t(init.input_w) * components * init.element_bits;
}

// Count of (output index o, filter tap k) pairs whose input coordinate
// o*stride + k - padding lands inside [0, size): the taps that read real data.
uint64_t real_taps(uint32_t outputs, uint32_t taps, uint32_t stride, uint32_t padding,
                   uint32_t size) {
  uint64_t count = 0;
  for (uint32_t o = 0; o < outputs; ++o) {
    for (uint32_t k = 0; k < taps; ++k) {
      const int64_t at = int64_t(o) * stride + k - int64_t(padding);
      if (at >= 0 && at < int64_t(size)) ++count;
    }
  }
  return count;
}

ElementAddress from_bits(uint64_t bit_address) {
  ElementAddress a;
  a.byte = int64_t(bit_address / 8);
  a.bit = uint32_t(bit_address % 8);
  return a;
}

}  // namespace

void validate(const AddressGeneratorInit& init) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("address generator init: " + what);
  };
  if (init.input_w == 0 || init.input_h == 0 || init.channels == 0) fail("empty input");
  if (init.filters == 0 || init.filter_w == 0 || init.filter_h == 0) fail("empty filter");
  if (init.stride == 0) fail("stride 0");
  if (init.element_bits == 0 || init.element_bits > 64) fail("element width outside 1..64 bits");
  if (init.output_bits == 0 || init.output_bits > 64) fail("output width outside 1..64 bits");
  if (init.filter_w > init.input_w + 2 * init.padding ||
      init.filter_h > init.input_h + 2 * init.padding) {
    fail("filter larger than the padded input");
  }
  if (init.row_stride != 0 && init.row_stride * 8 < dense_row_bits(init)) {
    fail("row stride " + std::to_string(init.row_stride) + " B shorter than one input row");
  }
}

uint32_t output_width(const AddressGeneratorInit& init) {
  const uint32_t step = init.stride_x != 0 ? init.stride_x : init.stride;
  return (init.input_w + 2 * init.padding - init.filter_w) / step + 1;
}

uint32_t output_height(const AddressGeneratorInit& init) {
  return (init.input_h + 2 * init.padding - init.filter_h) / init.stride + 1;
}

InputAddressGenerator::InputAddressGenerator(const AddressGeneratorInit& init, LoweringKind kind)
    : init_(init), kind_(kind) {
  validate(init_);
  row_stride_bits_ = init_.row_stride != 0 ? init_.row_stride * 8 : dense_row_bits(init_);
}

void InputAddressGenerator::restart() {
  oy_ = ox_ = ky_ = kx_ = c_ = 0;
  done_ = false;
}

void InputAddressGenerator::seek(uint64_t element) {
  restart();
  if (element >= elements()) {
    done_ = true;
    return;
  }
  const uint32_t y_taps =
      kind_ == LoweringKind::kMec ? init_.input_h + 2 * init_.padding : init_.filter_h;
  c_ = uint32_t(element % init_.channels);
  element /= init_.channels;
  kx_ = uint32_t(element % init_.filter_w);
  element /= init_.filter_w;
  ky_ = uint32_t(element % y_taps);
  element /= y_taps;
  ox_ = uint32_t(element % output_width(init_));
  oy_ = uint32_t(element / output_width(init_));
}

uint64_t InputAddressGenerator::rows() const {
  if (kind_ == LoweringKind::kMec) return output_width(init_);
  return uint64_t(output_height(init_)) * output_width(init_);
}

uint64_t InputAddressGenerator::columns() const {
  // MEC keeps the whole padded height of each strip; im2col only the filter's.
  const uint64_t height =
      kind_ == LoweringKind::kMec ? init_.input_h + 2 * init_.padding : init_.filter_h;
  return height * init_.filter_w * init_.channels;
}

uint64_t InputAddressGenerator::padding_elements() const {
  const uint64_t real_x =
      real_taps(output_width(init_), init_.filter_w, stride_x(), init_.padding, init_.input_w);
  const uint64_t real_y = kind_ == LoweringKind::kMec
                              ? init_.input_h
                              : real_taps(output_height(init_), init_.filter_h, init_.stride,
                                          init_.padding, init_.input_h);
  return elements() - real_x * real_y * init_.channels;
}

ElementAddress InputAddressGenerator::current() const {
  // MEC strips start at the top of the padded input: oy_ is always 0 there.
  const int64_t y = int64_t(oy_) * init_.stride + ky_ - int64_t(init_.padding);
  const int64_t x = int64_t(ox_) * stride_x() + kx_ - int64_t(init_.padding);
  if (y < 0 || y >= int64_t(init_.input_h) || x < 0 || x >= int64_t(init_.input_w)) {
    return ElementAddress{};
  }
  return input_element(uint32_t(y), uint32_t(x), c_);
}

ElementAddress InputAddressGenerator::input_element(uint32_t y, uint32_t x, uint32_t c) const {
  // NHWC: row y, then component x*C + c. NCHW: plane c (H rows), row y, then x.
  const bool planar = init_.input_layout == InputLayout::kNchw;
  const uint64_t row = planar ? uint64_t(c) * init_.input_h + y : y;
  const uint64_t element = planar ? x : uint64_t(x) * init_.channels + c;
  return from_bits(init_.input_base * 8 + row * row_stride_bits_ + element * init_.element_bits);
}

void InputAddressGenerator::advance() {
  // Innermost first: channel, filter x, filter y (MEC: padded height), output x, output y.
  if (++c_ < init_.channels) return;
  c_ = 0;
  if (++kx_ < init_.filter_w) return;
  kx_ = 0;
  carry_filter_row();
}

void InputAddressGenerator::carry_filter_row() {
  const uint32_t y_taps =
      kind_ == LoweringKind::kMec ? init_.input_h + 2 * init_.padding : init_.filter_h;
  if (++ky_ < y_taps) return;
  ky_ = 0;
  if (++ox_ < output_width(init_)) return;
  ox_ = 0;
  const uint32_t y_outputs = kind_ == LoweringKind::kMec ? 1 : output_height(init_);
  if (++oy_ < y_outputs) return;
  oy_ = 0;
  done_ = true;
}

uint32_t InputAddressGenerator::run_length() const {
  const uint64_t C = init_.channels;
  const uint64_t row_left = (init_.filter_w - kx_) * C - c_;  // entries left in this filter row
  const int64_t y = int64_t(oy_) * init_.stride + ky_ - int64_t(init_.padding);
  if (y < 0 || y >= int64_t(init_.input_h)) return uint32_t(row_left);    // a padding row
  const int64_t x0 = int64_t(ox_) * stride_x() - int64_t(init_.padding);  // x of kx = 0
  const int64_t x = x0 + kx_;
  if (x < 0)  // padding up to the first real column
    return uint32_t(std::min<uint64_t>(row_left, uint64_t(-x) * C - c_));
  if (x >= int64_t(init_.input_w)) return uint32_t(row_left);  // padding to the row's end
  if (init_.input_layout == InputLayout::kNchw) return 1;      // c steps a plane
  // Real columns up to the input's right edge or the filter row's end.
  const int64_t last_kx = std::min<int64_t>(init_.filter_w - 1, int64_t(init_.input_w) - 1 - x0);
  return uint32_t((uint64_t(last_kx) - kx_ + 1) * C - c_);
}

void InputAddressGenerator::fetch_runs(uint64_t count, std::vector<AddressRun>& runs) {
  while (count > 0 && !done_) {
    const uint32_t length = uint32_t(std::min<uint64_t>(count, run_length()));
    runs.push_back({current(), length});
    count -= length;
    // Advance `length` entries inside the filter row, then carry at its end.
    const uint64_t position = uint64_t(kx_) * init_.channels + c_ + length;
    kx_ = uint32_t(position / init_.channels);
    c_ = uint32_t(position % init_.channels);
    if (kx_ == init_.filter_w) {
      kx_ = 0;
      carry_filter_row();
    }
  }
}

std::vector<ElementAddress> InputAddressGenerator::fetch(uint32_t count) {
  std::vector<ElementAddress> out;
  out.reserve(count);
  while (out.size() < count && !done_) {
    out.push_back(current());
    advance();
  }
  return out;
}

LoweringFootprint lowering_footprint(const AddressGeneratorInit& init) {
  validate(init);
  LoweringFootprint f;
  f.input_elements = uint64_t(init.input_h) * init.input_w * init.channels;
  f.im2col_elements = InputAddressGenerator(init, LoweringKind::kIm2col).elements();
  f.mec_elements = InputAddressGenerator(init, LoweringKind::kMec).elements();
  return f;
}

OutputAddressGenerator::OutputAddressGenerator(const AddressGeneratorInit& init,
                                               OutputLayout layout)
    : init_(init), layout_(layout) {
  validate(init_);
  out_h_ = output_height(init_);
  out_w_ = output_width(init_);
}

ElementAddress OutputAddressGenerator::address(uint32_t n, uint32_t h, uint32_t w,
                                               uint32_t c) const {
  const uint64_t base_bits = init_.output_base * 8;
  const uint64_t K = init_.filters;
  switch (layout_) {
    case OutputLayout::kNhwc:
      return from_bits(base_bits +
                       (((uint64_t(n) * out_h_ + h) * out_w_ + w) * K + c) * init_.output_bits);
    case OutputLayout::kNchw:
      return from_bits(base_bits +
                       (((uint64_t(n) * K + c) * out_h_ + h) * out_w_ + w) * init_.output_bits);
    case OutputLayout::kPacked32:
    case OutputLayout::kPacked64: {
      // Seed 000: bit c % b of word (n, c / b, h, w); the tail group is padded.
      const uint64_t b = layout_ == OutputLayout::kPacked32 ? 32 : 64;
      const uint64_t groups = (K + b - 1) / b;
      const uint64_t word = ((uint64_t(n) * groups + c / b) * out_h_ + h) * out_w_ + w;
      return from_bits(base_bits + word * b + c % b);
    }
  }
  throw std::logic_error("unknown output layout");
}

uint64_t OutputAddressGenerator::channel_step_bits() const {
  switch (layout_) {
    case OutputLayout::kNhwc:
      return init_.output_bits;
    case OutputLayout::kNchw:
      return uint64_t(out_h_) * out_w_ * init_.output_bits;
    case OutputLayout::kPacked32:
    case OutputLayout::kPacked64:
      return 0;
  }
  throw std::logic_error("unknown output layout");
}

std::vector<ElementAddress> OutputAddressGenerator::stream(uint32_t n) const {
  std::vector<ElementAddress> out;
  out.reserve(uint64_t(out_h_) * out_w_ * init_.filters);
  for (uint32_t h = 0; h < out_h_; ++h) {
    for (uint32_t w = 0; w < out_w_; ++w) {
      for (uint32_t c = 0; c < init_.filters; ++c) out.push_back(address(n, h, w, c));
    }
  }
  return out;
}

}  // namespace npusim
