// The scalar rules shared by every quantised operator: element ranges, rounding,
// saturation, requantisation, QuantizeLinear and the pooled output size, plus the
// argument checks. docs/quantization.md gives the derivations.
#include "sim/reference/qops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace npusim::reference::qops {

namespace detail {

void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string("qops::") + op + ": " + what);
}

std::string dims(const std::vector<uint32_t>& shape) {
  std::string r = "[";
  for (size_t i = 0; i < shape.size(); ++i) r += (i ? "," : "") + std::to_string(shape[i]);
  return r + "]";
}

uint64_t element_count(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

void check_8bit(const char* op, const char* name, ElemType t) {
  if (t != ElemType::Int8 && t != ElemType::Uint8)
    fail(op, std::string(name) + " must be int8 or uint8, not " + type_name(t));
}

void check_tensor(const char* op, const char* name, const QTensor& t, size_t rank,
                  bool allow_int32) {
  if (!allow_int32) check_8bit(op, name, t.type);
  if (rank != 0 && t.shape.size() != rank)
    fail(op, std::string(name) + " must have rank " + std::to_string(rank) + ", has shape " +
                 dims(t.shape));
  if (t.data.size() != element_count(t.shape))
    fail(op, std::string(name) + " has " + std::to_string(t.data.size()) + " values for shape " +
                 dims(t.shape));
  const int32_t lo = type_min(t.type), hi = type_max(t.type);
  // The range as a min/max reduction (it vectorises); the offending index only on failure.
  int32_t least = lo, most = hi;
  for (int32_t v : t.data) least = std::min(least, v), most = std::max(most, v);
  if (least >= lo && most <= hi) return;
  for (size_t i = 0; i < t.data.size(); ++i)
    if (t.data[i] < lo || t.data[i] > hi)
      fail(op, std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(t.data[i]) +
                   " is outside " + type_name(t.type));
}

void check_zero_point(const char* op, const char* name, int32_t zp, ElemType t) {
  if (zp < type_min(t) || zp > type_max(t))
    fail(op,
         std::string(name) + " zero point " + std::to_string(zp) + " is outside " + type_name(t));
}

void check_scale(const char* op, const char* name, float scale) {
  if (!std::isfinite(scale) || !(scale > 0.0f))
    fail(op, std::string(name) + " scale must be finite and positive, is " + std::to_string(scale));
}

Single single(const char* op, const char* name, const Quant& q, ElemType t) {
  if (q.scale.size() != 1 || q.zero_point.size() != 1)
    fail(op, std::string(name) + " needs exactly one scale and one zero point (has " +
                 std::to_string(q.scale.size()) + " and " + std::to_string(q.zero_point.size()) +
                 ")");
  check_scale(op, name, q.scale[0]);
  check_zero_point(op, name, q.zero_point[0], t);
  return {q.scale[0], q.zero_point[0]};
}

std::vector<float> channel_scales(const char* op, const char* name, const Quant& q,
                                  uint32_t count) {
  if (q.scale.size() != 1 && q.scale.size() != count)
    fail(op, std::string(name) + " needs 1 or " + std::to_string(count) + " scales, has " +
                 std::to_string(q.scale.size()));
  for (float s : q.scale) check_scale(op, name, s);
  return q.scale.size() == 1 ? std::vector<float>(count, q.scale[0]) : q.scale;
}

std::vector<int32_t> channel_zero_points(const char* op, const char* name,
                                         const std::vector<int32_t>& zp, ElemType t,
                                         uint32_t count) {
  if (zp.size() != 1 && zp.size() != count)
    fail(op, std::string(name) + " needs 1 or " + std::to_string(count) + " zero points, has " +
                 std::to_string(zp.size()));
  for (int32_t z : zp) check_zero_point(op, name, z, t);
  return zp.size() == 1 ? std::vector<int32_t>(count, zp[0]) : zp;
}

}  // namespace detail

int32_t type_min(ElemType t) {
  switch (t) {
    case ElemType::Int8:
      return -128;
    case ElemType::Uint8:
      return 0;
    case ElemType::Int32:
      return INT32_MIN;
  }
  throw std::invalid_argument("qops: unknown ElemType");
}

int32_t type_max(ElemType t) {
  switch (t) {
    case ElemType::Int8:
      return 127;
    case ElemType::Uint8:
      return 255;
    case ElemType::Int32:
      return INT32_MAX;
  }
  throw std::invalid_argument("qops: unknown ElemType");
}

const char* type_name(ElemType t) {
  switch (t) {
    case ElemType::Int8:
      return "int8";
    case ElemType::Uint8:
      return "uint8";
    case ElemType::Int32:
      return "int32";
  }
  return "unknown";
}

double round_half_to_even(float v) {
  const double d = v;  // exact
  if (std::isnan(d)) throw std::invalid_argument("qops: rounding a NaN");
  if (!std::isfinite(d)) return d;
  const double lower = std::floor(d);
  // d - lower is exact for |d| >= 1 (Sterbenz); for |d| < 1 it can round only when |d|
  // is below 2^-29, far from any tie, and then still on the correct side of 0.5.
  const double frac = d - lower;
  if (frac < 0.5) return lower;
  if (frac > 0.5) return lower + 1.0;
  return std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;  // a tie: the even neighbour
}

int32_t saturate(int64_t v, ElemType type, Clamp clamp) {
  if (clamp.lo > clamp.hi)
    throw std::invalid_argument("qops: clamp range [" + std::to_string(clamp.lo) + ", " +
                                std::to_string(clamp.hi) + "] is empty");
  const int64_t lo = std::max<int64_t>(type_min(type), clamp.lo);
  const int64_t hi = std::min<int64_t>(type_max(type), clamp.hi);
  if (lo > hi)
    throw std::invalid_argument(std::string("qops: clamp range lies outside ") + type_name(type));
  return int32_t(v < lo ? lo : (v > hi ? hi : v));
}

int32_t detail::round_add_saturate(float v, int32_t zero_point, ElemType type, Clamp clamp) {
  double r = round_half_to_even(v);
  // v may be huge or infinite: clamp in double first (ORT clamps in float before
  // converting), which changes nothing else because the bounds are integers.
  constexpr double kBig = 1099511627776.0;  // 2^40: beyond any int32 + zero point
  r = r < -kBig ? -kBig : (r > kBig ? kBig : r);
  return saturate(int64_t(r) + zero_point, type, clamp);
}

int32_t requantize(int32_t acc, float multiplier, int32_t zero_point, ElemType type, Clamp clamp) {
  detail::check_8bit("requantize", "output type", type);
  detail::check_zero_point("requantize", "output", zero_point, type);
  if (!std::isfinite(multiplier) || !(multiplier > 0.0f))
    detail::fail("requantize", "multiplier must be finite and positive");
  // float(acc) rounds to nearest even above 2^24, as cvtdq2ps does; one float32 product.
  const float scaled = detail::f32(float(acc) * multiplier);
  return detail::round_add_saturate(scaled, zero_point, type, clamp);
}

int32_t detail::requantize_wide(int64_t acc, float multiplier, int32_t zero_point, ElemType type) {
  // The document saturates the integer result to int32 before the float32 product.
  const int64_t lo = INT32_MIN, hi = INT32_MAX;
  return requantize(int32_t(acc < lo ? lo : acc > hi ? hi : acc), multiplier, zero_point, type);
}

void detail::requantize_run(const char* op, const int64_t* acc, size_t n, int64_t add,
                            float multiplier, int32_t zero_point, ElemType type, Clamp clamp,
                            int32_t* out) {
  // The checks requantize() makes on every call, once.
  detail::check_8bit("requantize", "output type", type);
  detail::check_zero_point("requantize", "output", zero_point, type);
  if (!std::isfinite(multiplier) || !(multiplier > 0.0f))
    detail::fail("requantize", "multiplier must be finite and positive");
  saturate(0, type, clamp);  // throws on an empty clamp range
  const int64_t lo = std::max<int64_t>(type_min(type), clamp.lo);
  const int64_t hi = std::min<int64_t>(type_max(type), clamp.hi);
  // Every sum must fit int32: a min/max pass, then the first offender named.
  int64_t least = 0, most = 0;
  for (size_t i = 0; i < n; ++i) least = std::min(least, acc[i]), most = std::max(most, acc[i]);
  if (n > 0 && (least + add < INT32_MIN || most + add > INT32_MAX))
    for (size_t i = 0; i < n; ++i)
      if (acc[i] + add < INT32_MIN || acc[i] + add > INT32_MAX)
        detail::fail(op, "accumulator " + std::to_string(acc[i] + add) + " overflows int32");
  constexpr double kBig = 1099511627776.0;  // 2^40, as round_add_saturate clamps
  for (size_t i = 0; i < n; ++i) {
    // One float32 product (the build does not contract it with anything); never NaN, since
    // float(total) and the multiplier are finite. Clamping before rounding instead of after
    // changes nothing: the bounds are integers.
    double d = float(int32_t(acc[i] + add)) * multiplier;
    d = d < -kBig ? -kBig : (d > kBig ? kBig : d);
    int64_t below = int64_t(d);  // truncated; the floor after the next line (|d| <= 2^40)
    below -= double(below) > d;
    const double frac = d - double(below);  // as in round_half_to_even
    // Up past the half, and at the half (a tie) to the even neighbour; without branches,
    // which the rounding of varied values would mispredict.
    const int64_t r = below + int64_t(frac > 0.5) + (int64_t(frac == 0.5) & below & 1) + zero_point;
    out[i] = int32_t(r < lo ? lo : (r > hi ? hi : r));
  }
}

int32_t quantize_linear(float value, float scale, int32_t zero_point, ElemType type) {
  detail::check_8bit("quantize_linear", "output type", type);
  detail::check_scale("quantize_linear", "output", scale);
  detail::check_zero_point("quantize_linear", "output", zero_point, type);
  return detail::round_add_saturate(detail::f32(value / scale), zero_point, type, Clamp{});
}

uint32_t pooled_size(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                     uint32_t pad_begin, uint32_t pad_end, bool ceil_mode) {
  if (kernel == 0 || stride == 0 || dilation == 0)
    throw std::invalid_argument("qops: kernel, stride and dilation must be >= 1");
  const int64_t span = int64_t(dilation) * (kernel - 1) + 1;  // the dilated kernel
  const int64_t room = int64_t(in) + pad_begin + pad_end - span;
  if (room < 0)
    throw std::invalid_argument("qops: dilated kernel " + std::to_string(span) +
                                " is larger than the padded input " +
                                std::to_string(int64_t(in) + pad_begin + pad_end));
  int64_t out = room / stride + 1;
  if (ceil_mode) {
    out = (room + stride - 1) / stride + 1;
    // ORT (onnx/onnx#5741): the last window must start inside the input or the begin pad.
    if ((out - 1) * int64_t(stride) >= int64_t(in) + pad_begin) --out;
  }
  return uint32_t(out);
}

}  // namespace npusim::reference::qops
