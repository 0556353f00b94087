// Nodes that copy a quantised feature map's values (docs/onnx.md#channel-picks):
// Slice and Split on the channel axis and ShuffleNet's channel shuffle
// (Reshape to [N, g, C / g, H, W], Transpose [0, 2, 1, 3, 4], Reshape back),
// each output one gather operator (a pick of every channel in order is the
// input itself); and a Resize (nearest, or linear in QDQ form) to any size,
// one resize operator.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/checked_size.h"
#include "sim/frontend/onnx/onnx_importer.h"
#include "sim/frontend/onnx/onnx_shapes.h"

namespace npusim::onnx_detail {
namespace {

bool is_map(const Activation& a) {
  return !a.flat && !a.sequence && a.heads == 0 && a.shuffle_groups == 0;
}

// The indices ONNX's Slice takes on an axis of `dim` from start, end and step.
std::vector<uint32_t> slice_indices(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<uint32_t> picked;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    for (int64_t i = start; i < end; i += step) picked.push_back(uint32_t(i));
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    for (int64_t i = start; i > end; i += step) picked.push_back(uint32_t(i));
  }
  return picked;
}

bool every_channel_in_order(const std::vector<uint32_t>& channels, uint32_t C) {
  if (channels.size() != C) return false;
  for (uint32_t c = 0; c < C; ++c)
    if (channels[c] != c) return false;
  return true;
}

}  // namespace

LayerConfig Importer::copying_layer(const onnx::NodeProto& n, int index, const Activation& a,
                                    OpKind op) {
  if (!a.quant_known)
    fail(n, "a map whose quantisation an earlier quantised node states",
         "a tensor with no stated scale (a float graph input)");
  LayerConfig L = base_layer(n, index, a, op);
  L.K = L.C;
  L.R = L.S = 1;
  L.quant.inputs.push_back(a.quant);
  L.quant.output = a.quant;
  return L;
}

void Importer::add_gather(const onnx::NodeProto& n, int index, int output, const Activation& a,
                          std::vector<uint32_t> channels) {
  const std::string& out = n.output(output);
  if (every_channel_in_order(channels, a.C)) {  // the same tensor under another name
    activations_[out] = a;
    return;
  }
  LayerConfig L = copying_layer(n, index, a, OpKind::Gather);
  if (n.output_size() > 1) {  // a Split: an operator per output, "NODE/OUTPUT"
    L.name = (n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name()) + "/" +
             std::to_string(output);
    if (!layer_names_.insert(L.name).second) L.name += "_" + std::to_string(index);
  }
  L.K = uint32_t(channels.size());
  L.gather_channels = std::move(channels);
  add_layer(n, std::move(L), {&a}, false, output);
}

void Importer::import_slice(const onnx::NodeProto& n, int index) {
  const Activation a = activation(n, 0);
  if (!is_map(a))
    fail(n, "a Slice of a [N, C, H, W] feature map", "a Slice of " + dims_text(onnx_dims(a)));
  if (n.input_size() < 3) fail(n, "starts and ends as inputs (opset 10 and later)", "attributes");
  const std::vector<int64_t> dims{a.N, a.C, a.H, a.W};
  const Constant& starts = constant(n, 1);
  const Constant& ends = constant(n, 2);
  const uint64_t count = starts.count();
  if (ends.count() != count)
    fail(n, "starts and ends of one length",
         std::to_string(count) + " and " + std::to_string(ends.count()));
  const bool has_axes = n.input_size() > 3 && !n.input(3).empty();
  const bool has_steps = n.input_size() > 4 && !n.input(4).empty();
  const Constant* axes = has_axes ? &constant(n, 3) : nullptr;
  const Constant* steps = has_steps ? &constant(n, 4) : nullptr;
  if ((axes && axes->count() != count) || (steps && steps->count() != count))
    fail(n, "axes and steps as long as starts", "another length");
  std::vector<uint32_t> channels;
  for (uint32_t c = 0; c < a.C; ++c) channels.push_back(c);
  for (uint64_t i = 0; i < count; ++i) {
    int64_t axis = axes ? axes->int_at(i) : int64_t(i);
    if (axis < 0) axis += 4;
    const int64_t step = steps ? steps->int_at(i) : 1;
    if (axis < 0 || axis > 3 || step == 0)
      fail(n, "axes within the rank 4 and non-zero steps",
           "axis " + std::to_string(axis) + ", step " + std::to_string(step));
    const int64_t dim = dims[size_t(axis)];
    std::vector<uint32_t> picked = slice_indices(starts.int_at(i), ends.int_at(i), step, dim);
    if (axis == 1) {
      if (picked.empty()) fail(n, "at least one channel", "an empty slice");
      channels = std::move(picked);
    } else if (!every_channel_in_order(picked, uint32_t(dim))) {
      fail(n, "a Slice of channels (axis 1); other axes whole",
           std::to_string(picked.size()) + " of the " + std::to_string(dim) + " entries of axis " +
               std::to_string(axis));
    }
  }
  add_gather(n, index, 0, a, std::move(channels));
}

void Importer::import_split(const onnx::NodeProto& n, int index) {
  const Activation a = activation(n, 0);
  if (!is_map(a))
    fail(n, "a Split of a [N, C, H, W] feature map", "a Split of " + dims_text(onnx_dims(a)));
  int64_t axis = int_attr(n, "axis", 0);
  if (axis < 0) axis += 4;
  if (axis != 1) fail(n, "a Split of channels (axis 1)", "axis " + std::to_string(axis));
  std::vector<int64_t> sizes;
  if (n.input_size() > 1 && !n.input(1).empty()) {
    const Constant& split = constant(n, 1);
    for (uint64_t i = 0; i < split.count(); ++i) sizes.push_back(split.int_at(i));
  } else {
    sizes = ints_attr(n, "split");
  }
  const int64_t outputs = n.output_size();
  if (sizes.empty()) {  // equal parts, the last smaller (ONNX: ceil(C / outputs) each)
    const int64_t part = (int64_t(a.C) + outputs - 1) / outputs;
    for (int64_t o = 0, left = a.C; o < outputs; ++o, left -= part)
      sizes.push_back(std::min(part, std::max<int64_t>(left, 0)));
  }
  int64_t total = 0;
  bool positive = true;
  for (int64_t s : sizes) total += s, positive &= s > 0;
  if (int64_t(sizes.size()) != outputs || total != a.C || !positive)
    fail(n,
         std::to_string(outputs) + " positive sizes that sum to the " + std::to_string(a.C) +
             " channels",
         std::to_string(sizes.size()) + " sizes summing to " + std::to_string(total));
  uint32_t first = 0;
  for (int o = 0; o < outputs; ++o) {
    std::vector<uint32_t> channels;
    for (int64_t c = 0; c < sizes[size_t(o)]; ++c) channels.push_back(first + uint32_t(c));
    first += uint32_t(sizes[size_t(o)]);
    add_gather(n, index, o, a, std::move(channels));
  }
}

bool Importer::import_shuffle_step(const onnx::NodeProto& n, int index) {
  if (n.op_type() != "Reshape" && n.op_type() != "Transpose") return false;
  const auto found = activations_.find(input(n, 0));
  if (found == activations_.end()) return false;
  Activation a = found->second;
  const bool grouped = a.shuffle_groups > 0;
  if (n.op_type() == "Transpose") {
    if (!grouped) return false;
    if (ints_attr(n, "perm") != std::vector<int64_t>{0, 2, 1, 3, 4})
      fail(n, "perm [0, 2, 1, 3, 4] (a channel shuffle's)",
           "another perm of the 5-D view " + dims_text(onnx_dims(a)));
    a.shuffle_transposed = !a.shuffle_transposed;
    activations_[n.output(0)] = a;
    return true;
  }
  if (!grouped && !is_map(a)) return false;
  const Constant& shape = constant(n, 1);
  std::vector<int64_t> want(shape.count());
  for (uint64_t i = 0; i < shape.count(); ++i) want[i] = shape.int_at(i);
  // ONNX Reshape: 0 copies the input's dimension, -1 is what remains.
  const std::vector<int64_t> from = onnx_dims(a);
  int64_t known = 1, free_at = -1;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == 0 && i < from.size()) want[i] = from[i];
    if (want[i] == -1)
      free_at = int64_t(i);
    else
      known *= want[i];
  }
  const int64_t elements = int64_t(a.N) * a.C * a.H * a.W;
  if (free_at >= 0 && known > 0) want[size_t(free_at)] = elements / known;
  if (!grouped) {  // [N, C, H, W] -> [N, g, C / g, H, W] starts a shuffle
    if (want.size() != 5 || want[0] != a.N || want[3] != a.H || want[4] != a.W || want[1] <= 0 ||
        want[2] <= 0 || want[1] * want[2] != a.C)
      return false;
    a.shuffle_groups = uint32_t(want[1]);
    a.shuffle_transposed = false;
    activations_[n.output(0)] = a;
    return true;
  }
  if (want != std::vector<int64_t>{a.N, a.C, a.H, a.W})
    fail(n,
         "a Reshape of the channel shuffle's view back to [N, C, H, W] " +
             dims_text({a.N, a.C, a.H, a.W}),
         "a Reshape of " + dims_text(from) + " to " + dims_text(want));
  const uint32_t g = a.shuffle_groups, per = a.C / g;
  const bool transposed = a.shuffle_transposed;
  a.shuffle_groups = 0;
  a.shuffle_transposed = false;
  std::vector<uint32_t> channels;
  // Transposed, output channel b * g + j is input channel j * (C / g) + b.
  for (uint32_t o = 0; o < a.C; ++o) channels.push_back(transposed ? (o % g) * per + o / g : o);
  add_gather(n, index, 0, a, std::move(channels));
  return true;
}

void Importer::import_resize(const onnx::NodeProto& n, int index) {
  const Activation a = activation(n, 0);
  // npusim's QLinearResize (a linear Resize between DequantizeLinear and
  // QuantizeLinear, qdq_lowering.h): x, x_scale, x_zero_point, y_scale,
  // y_zero_point, then the Resize's own inputs from its second on.
  const bool qlinear = n.op_type() == "QLinearResize";
  const int shift = qlinear ? 4 : 0;
  if (!is_map(a))
    fail(n, "a Resize of a [N, C, H, W] feature map", "a Resize of " + dims_text(onnx_dims(a)));
  const auto text = [&](const char* name, const char* fallback) {
    const onnx::AttributeProto* v = typed_attr(n, name, onnx::AttributeProto_AttributeType_STRING);
    return v ? v->s() : std::string(fallback);
  };
  const std::string mode = text("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    fail(n, "mode nearest, linear (bilinear) or cubic (bicubic)", "mode " + mode);
  if (qlinear && mode == "nearest")
    fail(n,
         "a QLinearResize of mode linear or cubic (npusim's own node for an interpolating Resize "
         "in QDQ form)",
         "mode " + mode);
  if (mode != "nearest" && !qlinear)
    fail(n,
         "a " + mode +
             " Resize between DequantizeLinear and QuantizeLinear (QDQ form: ONNX Runtime "
             "interpolates the dequantised values in float)",
         "a " + mode + " Resize of a quantised tensor");
  if (int_attr(n, "antialias", 0) != 0)
    fail(n, "antialias 0 (ONNX Runtime's plain interpolation)", "antialias 1");
  if (const onnx::AttributeProto* axes =
          typed_attr(n, "axes", onnx::AttributeProto_AttributeType_INTS))
    if (ints_attr(n, "axes") != std::vector<int64_t>{0, 1, 2, 3})
      fail(n, "no axes attribute (scales or sizes for all four axes)",
           "axes of " + std::to_string(axes->ints_size()) + " values");
  const std::string policy = text("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch")
    fail(n, "keep_aspect_ratio_policy stretch (sizes as given)",
         "keep_aspect_ratio_policy " + policy);
  // Opset 10: (X, scales); 11 and later: (X, roi, scales, sizes), one of the last two.
  // As ONNX Runtime takes them (upsamplebase.h): scales give the output
  // floor(scale * in) in float32 and keep the scale; sizes give the output
  // and the scale float(out) / float(in).
  const int scales_at = (opset_ < 11 ? 1 : 2) + shift, sizes_at = 3 + shift;
  const std::vector<int64_t> dims{a.N, a.C, a.H, a.W};
  std::vector<float> scales;
  std::vector<int64_t> out;
  if (n.input_size() > scales_at && !n.input(scales_at).empty() &&
      constant(n, scales_at).count() > 0) {
    const Constant& c = constant(n, scales_at);
    for (size_t i = 0; i < c.floats.size(); ++i) {
      scales.push_back(c.floats[i]);
      // A NaN, infinite or out-of-range product is no size: -1, refused below.
      const float o = c.floats[i] * float(dims[i]);
      if (i < 4) out.push_back(std::isfinite(o) && o >= 0 && o < 1e18f ? int64_t(o) : -1);
    }
  } else if (opset_ >= 11 && n.input_size() > sizes_at && !n.input(sizes_at).empty()) {
    const Constant& sizes = constant(n, sizes_at);
    for (uint64_t i = 0; i < sizes.count(); ++i) {
      out.push_back(sizes.int_at(i));
      scales.push_back(i < 4 ? float(out.back()) / float(dims[i]) : 0.0f);
    }
  }
  if (scales.size() != 4 || out.size() != 4 || scales[0] != 1 || scales[1] != 1)
    fail(n, "scales (or sizes) for [N, C, H, W] that keep N and C",
         std::to_string(scales.size()) + " values" + (scales.size() == 4 ? " scaling N or C" : ""));
  for (int axis = 0; axis < 2; ++axis) {
    const float s = scales[size_t(axis) + 2];
    const int64_t o = out[size_t(axis) + 2];
    if (!(s > 0.0f) || !std::isfinite(s) || o < 1 || o > int64_t(kMaxDim))
      fail(n,
           "a positive scale of " + std::string(axis == 0 ? "H" : "W") + " whose output is 1 to " +
               std::to_string(kMaxDim) + " long",
           "scale " + std::to_string(s) + " of " + std::to_string(dims[size_t(axis) + 2]) +
               ", output " + std::to_string(o));
  }
  // ONNX Runtime copies a map whose size stays, whatever its scales.
  if (out[2] == dims[2] && out[3] == dims[3]) scales[2] = scales[3] = 1;
  LayerConfig L = qlinear ? base_layer(n, index, a, OpKind::Resize)
                          : copying_layer(n, index, a, OpKind::Resize);
  L.resize_out_h = uint32_t(out[2]), L.resize_out_w = uint32_t(out[3]);
  L.resize_scale_h = scales[2], L.resize_scale_w = scales[3];
  if (qlinear) {  // interpolated values, quantised as the node says
    L.K = L.C, L.R = L.S = 1;
    L.quant.inputs.push_back(quantised_input(n, 0));
    L.quant.output = output_quant(n, 3, 4);
  }
  L.resize_mode = mode == "linear"  ? ResizeMode::Linear
                  : mode == "cubic" ? ResizeMode::Cubic
                                    : ResizeMode::Nearest;
  if (L.resize_mode == ResizeMode::Cubic) {
    L.resize_cubic_a = float_attr(n, "cubic_coeff_a", -0.75f);
    if (!std::isfinite(L.resize_cubic_a))
      fail(n, "a finite cubic_coeff_a", "cubic_coeff_a " + std::to_string(L.resize_cubic_a));
    const int64_t exclude = int_attr(n, "exclude_outside", 0);
    if (exclude != 0 && exclude != 1)
      fail(n, "exclude_outside 0 or 1", "exclude_outside " + std::to_string(exclude));
    L.resize_exclude_outside = exclude == 1;
  }
  if (opset_ < 11 && mode == "cubic")
    fail(n, "a cubic Resize at opset 11 or later (opset 10's Resize has no cubic mode)",
         "opset " + std::to_string(opset_));
  if (opset_ < 11) {
    // Opset 10 has no modes: ONNX Runtime maps asymmetrically and, nearest,
    // rounds down where an axis upsamples and up where it downsamples.
    L.resize_coordinates = ResizeCoordinates::Asymmetric;
    const bool up = scales[2] > 1 || scales[3] > 1, down = scales[2] < 1 || scales[3] < 1;
    if (mode == "nearest" && up && down)
      fail(n, "an opset 10 nearest Resize that upsamples both axes or downsamples both",
           "scales " + std::to_string(scales[2]) + " and " + std::to_string(scales[3]));
    L.resize_rounding = down ? ResizeRounding::Ceil : ResizeRounding::Floor;
  } else {
    const std::string coordinates = text("coordinate_transformation_mode", "half_pixel");
    // The names are to_string's (sim/graph/workload.h), ONNX's own.
    const ResizeCoordinates known[] = {
        ResizeCoordinates::HalfPixel, ResizeCoordinates::PytorchHalfPixel,
        ResizeCoordinates::AlignCorners, ResizeCoordinates::Asymmetric,
        ResizeCoordinates::TfHalfPixelForNn};
    const auto c = std::find_if(std::begin(known), std::end(known),
                                [&](ResizeCoordinates k) { return to_string(k) == coordinates; });
    if (c == std::end(known) || (mode != "nearest" && *c == ResizeCoordinates::TfHalfPixelForNn))
      fail(n,
           mode != "nearest"
               ? "a " + mode +
                     " Resize with coordinate_transformation_mode half_pixel, "
                     "pytorch_half_pixel, align_corners or asymmetric"
               : "a nearest Resize with coordinate_transformation_mode half_pixel, "
                 "pytorch_half_pixel, align_corners, asymmetric or tf_half_pixel_for_nn",
           "coordinate_transformation_mode " + coordinates);
    L.resize_coordinates = *c;
    const std::string rounding = text("nearest_mode", "round_prefer_floor");
    const ResizeRounding modes[] = {ResizeRounding::RoundPreferFloor,
                                    ResizeRounding::RoundPreferCeil, ResizeRounding::Floor,
                                    ResizeRounding::Ceil};
    const auto r = std::find_if(std::begin(modes), std::end(modes),
                                [&](ResizeRounding m) { return to_string(m) == rounding; });
    if (mode == "nearest" && r == std::end(modes))
      fail(n, "nearest_mode round_prefer_floor, round_prefer_ceil, floor or ceil",
           "nearest_mode " + rounding);
    if (r != std::end(modes)) L.resize_rounding = *r;
  }
  add_layer(n, std::move(L), {&a});
}

}  // namespace npusim::onnx_detail
