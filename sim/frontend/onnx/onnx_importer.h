// The ONNX importer's internals (onnx_import.h is the interface): one
// Importer reads a model and turns its nodes into graph operators. Its
// methods live in four files: onnx_import.cpp (the model, its inputs and
// outputs, node dispatch), onnx_operands.cpp (reading a node's inputs,
// attributes and quantisation), onnx_nodes.cpp (one importer per kind of
// node) and onnx_sequence_nodes.cpp (transformer blocks). Not for use outside sim/frontend/.
#pragma once

#include <onnx/onnx_pb.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/frontend/onnx/onnx_constants.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/frontend/onnx/onnx_reader.h"
#include "sim/graph/workload.h"

namespace npusim::onnx_detail {

inline constexpr int64_t kMinOpset = 10, kMaxOpset = 19;

// The axes of a sequence tensor split into heads (onnx_sequence_nodes.cpp).
enum SeqAxis : uint8_t { kBatch, kToken, kHead, kFeature };

// An activation tensor the simulator computes (or a graph input).
struct Activation {
  TensorSource source;
  uint32_t N = 1, C = 0, H = 1, W = 1;
  bool flat = false;  // [N, C] (after Flatten/Reshape or a matmul)
  // [N, C * H * W]: a Flatten of an H x W map, features in NCHW order. Only a
  // matmul reads it (as the convolution whose kernel covers the map), or a graph output.
  bool flat_map = false;
  // An ONNX [1, T, F] tensor, held as the sequence tensor [N = 1, C = F, H =
  // T, W = 1] (docs/transformers.md). With heads > 0 it is the same bytes seen
  // as 4-D per head (a Reshape to [1, T, heads, F / heads] and Transposes):
  // `axes` says which axis of the sequence each ONNX dimension is.
  bool sequence = false;
  uint32_t heads = 0;
  std::array<SeqAxis, 4> axes{kBatch, kToken, kHead, kFeature};
  // A channel shuffle's 5-D view of a [N, C, H, W] map (onnx_channel_nodes.cpp):
  // [N, groups, C / groups, H, W], or after its Transpose [N, C / groups, groups, H, W].
  uint32_t shuffle_groups = 0;
  bool shuffle_transposed = false;
  bool quant_known = false;
  TensorQuant quant;
  int32_t graph_input = -1;  // its GraphInput, until first quantised by a consumer
  int onnx_type = 0;
};

// "float32", "uint8", ... for an ONNX element type, in messages.
const char* type_name(int t);

class Importer {
 public:
  Importer(std::string path, const std::map<std::string, std::string>& inputs,
           const OnnxImportOptions& options)
      : path_(std::move(path)), options_(options), input_files_(inputs) {}

  OnnxModel run();

 private:
  // ---- reading ------------------------------------------------------------
  void read_model();
  void run_onnx_checker();  // throws ConfigError naming the node when it finds one

  // ---- graph inputs read as constants --------------------------------------
  // The inputs of a node that carry activations; every other input is a
  // constant operand (weights, bias, scales, zero points, a Reshape's shape).
  static std::vector<int> data_slots(const onnx::NodeProto& n);

  // Graph inputs some node reads in a constant slot, with the first such use
  // ("node 'c' (QLinearConv) input 3") for messages. ONNX's node tests feed
  // weights, scales and zero points this way: they come from --input files.
  std::map<std::string, std::string> constant_slot_uses(const onnx::GraphProto& g) const;

  // A graph input read as a constant takes its values from its --input file,
  // in the input's declared dtype and shape.
  Constant constant_from_input_file(const onnx::ValueInfoProto& v, const std::string& use);

  void declare_input(const onnx::ValueInfoProto& v);

  // --input NAME=FILE.npy: the input's values in its type and ONNX shape.
  void load_input_file(const std::string& name, const std::string& file);

  // ---- nodes ---------------------------------------------------------------
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& expected,
                         const std::string& found) const;
  std::string node_where(const onnx::NodeProto& n) const;

  const std::string& input(const onnx::NodeProto& n, int i, bool required = true) const;

  const Constant& constant(const onnx::NodeProto& n, int i) const;
  // The constant `name` with its bytes read from the file if they were still there
  // (in_file_); null when there is no such constant. `n`: the node reading it, named
  // when the file no longer holds them.
  Constant* with_bytes(const std::string& name, const onnx::NodeProto& n) const;
  // Runs `read`, which reads constant `name`'s values at `span` of the model file; a
  // failure (the file changed since it was read) is `n`'s error, naming the bytes.
  void read_from_file(const onnx::NodeProto& n, const std::string& name, FileSpan span,
                      const std::function<void()>& read) const;
  // An 8-bit constant input's bytes as stored, for a node that puts them into its
  // own layout: moved out when `n` is its last reader (it would be dropped after
  // `n` anyway), so a model's weights are not held twice; copied otherwise. The
  // node reads no more of the constant after this.
  std::vector<int8_t> take_bytes(const onnx::NodeProto& n, int i);
  // Input i as a constant, its type and dims, with its bytes left where they are (in
  // the file when in_file_ holds them): for a node that only counts them.
  const Constant& stated_constant(const onnx::NodeProto& n, int i) const;
  // The non-zero counts of the K kernels of `taps` coefficients that the 8-bit
  // constant input i holds, one after another or (`by_column`) down the columns of
  // [taps, K] (weight_nonzeros.h), read from the file a chunk at a time when it is
  // still there: a timing-only import never holds a whole weight tensor.
  std::vector<uint32_t> kernel_counts(const onnx::NodeProto& n, int i, uint32_t K, uint64_t taps,
                                      bool by_column, const std::vector<int8_t>& zeros) const;

  float scale_of(const onnx::NodeProto& n, int i) const;
  std::vector<float> scales_of(const onnx::NodeProto& n, int i, uint64_t per_channel) const;
  // Zero points must have the type of the tensor they belong to.
  std::vector<int32_t> zero_points_of(const onnx::NodeProto& n, int i, int want_type,
                                      uint64_t per_channel) const;

  // Attributes by name; one of another type than the reader's is an error at the node.
  const onnx::AttributeProto* typed_attr(const onnx::NodeProto& n, const char* name,
                                         onnx::AttributeProto_AttributeType type) const;
  int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback) const;
  float float_attr(const onnx::NodeProto& n, const char* name, float fallback) const;
  std::vector<int64_t> ints_attr(const onnx::NodeProto& n, const char* name) const;
  void require_attr_absent_or(const onnx::NodeProto& n, const char* name,
                              const std::string& ok) const;

  Activation& activation(const onnx::NodeProto& n, int i);

  // The quantisation a consumer states for its input: the tensor's own, set
  // now if this is its first quantised reader (a graph input).
  void settle_quant(const onnx::NodeProto& n, Activation& a, const std::string& name, float scale,
                    int32_t zp, int onnx_type);

  // The element type an absent zero point takes: the activation's own (ONNX:
  // "default 0 of the input's type"), uint8 where nothing says otherwise.
  static int activation_type(const Activation& a);

  int type_of_zero_point_or(const onnx::NodeProto& n, int i, int fallback) const;

  // Reads activation input (x, scale, zp) at positions i, i+1, i+2.
  TensorQuant quantised_input(const onnx::NodeProto& n, int i);

  TensorQuant output_quant(const onnx::NodeProto& n, int scale_at, int zp_at);

  LayerConfig base_layer(const onnx::NodeProto& n, int index, const Activation& x, OpKind op);

  // The operator computing output `output` of node n from the tensors
  // `inputs`, in its input order; checked (sim/graph/operator_checks.h) first.
  void add_layer(const onnx::NodeProto& n, LayerConfig L,
                 const std::vector<const Activation*>& inputs, bool flat_output = false,
                 int output = 0);

  // Convolution geometry from ONNX attributes.
  void conv_geometry(const onnx::NodeProto& n, LayerConfig& L, bool dilations_allowed = true);

  // ConvInteger / MatMulInteger: the input's zero point (input 2, `x_type`
  // when absent), the weights' (input 3), no scales, raw int32 sums.
  void integer_operands(const onnx::NodeProto& n, Activation& xa, int x_type, int weight_type,
                        uint32_t K, OpQuant& q);

  // An optional int32 bias of K values at input `at` into `values`; false when absent.
  bool int32_bias(const onnx::NodeProto& n, int at, uint32_t K, const std::string& expected,
                  std::vector<int32_t>& values);

  void import_conv(const onnx::NodeProto& n, int index, bool integer);

  // QLinearMatMul, MatMulInteger, QGemm: a [M, K] activation times constant b.
  void import_matmul(const onnx::NodeProto& n, int index, const std::string& kind);

  void import_pool(const onnx::NodeProto& n, int index, OpKind op);

  // com.microsoft QLinearAdd and QLinearMul (the QDQ lowering's Add and Mul):
  // operands of one shape; with per_channel_operand (Mul) one of them may be a
  // per-channel [N, C, 1, 1] scale instead (squeeze-excitation).
  void import_elementwise(const onnx::NodeProto& n, int index, OpKind kind,
                          bool per_channel_operand);

  void import_concat(const onnx::NodeProto& n, int index);

  // ---- channel picks (onnx_channel_nodes.cpp) -------------------------------
  // Slice and Split of a quantised [N, C, H, W] map on its channels, and the
  // channel shuffle Reshape [N, g, C / g, H, W] -> Transpose [0, 2, 1, 3, 4] ->
  // Reshape [N, C, H, W]: each output one gather (a pick of every channel in
  // order is the same tensor, no operator).
  void import_slice(const onnx::NodeProto& n, int index);
  void import_split(const onnx::NodeProto& n, int index);
  // The shuffle's Reshapes and Transpose; false for a node that is none of them.
  bool import_shuffle_step(const onnx::NodeProto& n, int index);
  void add_gather(const onnx::NodeProto& n, int index, int output, const Activation& a,
                  std::vector<uint32_t> channels);
  // The operator (gather, resize) that copies map `a`'s values: K = C, the
  // input's quantisation in and out (refused when no earlier node states it).
  LayerConfig copying_layer(const onnx::NodeProto& n, int index, const Activation& a, OpKind op);
  // Resize (nearest, or linear or cubic as npusim's QLinearResize) to its scales' or
  // sizes' output, with ONNX Runtime's float32 scale and the node's modes.
  void import_resize(const onnx::NodeProto& n, int index);

  // ---- transformer blocks (onnx_sequence_nodes.cpp) ------------------------
  // The shape ONNX gives an activation: [N, C], [N, C, H, W], [1, T, F] or a
  // head view's 4-D shape.
  static std::vector<int64_t> onnx_dims(const Activation& a);

  // QLinearMatMul of two activations (heads in place): batch_matmul.
  void import_batch_matmul(const onnx::NodeProto& n, int index);

  // QLinearSoftmax over the last axis of a head view or a sequence: softmax.
  void import_softmax(const onnx::NodeProto& n, int index);
  // QLinear<op> of a table activation (the QDQ lowering's; op_info(kind).onnx_qdq):
  // an elementwise table activation on any activation, keeping its view.
  void import_table_activation(const onnx::NodeProto& n, int index, OpKind kind);

  // LayerNormalization between a DequantizeLinear and a QuantizeLinear, with
  // float gamma and beta quantised here: layernorm.
  void import_layernorm(const onnx::NodeProto& n, int index);

  // Reshape [1, T, F] <-> [1, T, heads, F / heads] and Transposes of a head
  // view: views of the same bytes, no node.
  void import_sequence_reshape(const onnx::NodeProto& n);
  void import_sequence_transpose(const onnx::NodeProto& n);

  // Flatten / Reshape of [N, C, 1, 1] to [N, C]: the same bytes.
  void import_flatten(const onnx::NodeProto& n);

  // Transpose where it is a change of layout the simulator expresses, since
  // every tensor lies NHWC in its DRAM: perm [0, 3, 1, 2] of a 4-D graph input
  // (the model's input is NHWC, which is the DRAM order), perm [0, 2, 3, 1]
  // of a computed tensor to a graph output (saved NHWC as it lies), and the
  // identity. Anything else would move data and is refused.
  void import_transpose(const onnx::NodeProto& n);

  // QuantizeLinear of a float graph input: the simulator's input is the uint8
  // or int8 tensor it makes (seeded, or from --input in that type).
  void import_quantize(const onnx::NodeProto& n);

  void import_dequantize(const onnx::NodeProto& n);

  // Relu / Clip on a quantised tensor work on its integers (max(x, 0); clamp
  // to the min and max inputs, given in the tensor's type). Fused into the
  // output range of the conv, matmul or add that computes the tensor, which
  // then clamps as it requantises: exact, as the clamp follows the rounding.
  void import_relu_clip(const onnx::NodeProto& n);

  // Every tensor the simulator computes has the shape the model states for it
  // (declared or inferred by ONNX): else the model and its nodes disagree.
  void check_stated_shapes(const std::map<std::string, std::vector<int64_t>>& stated,
                           const std::map<std::string, std::string>& producers) const;

  // A node of a constant subgraph (a Reshape's shape, as exporters compute
  // it) evaluated now: its output becomes a constant (onnx_constants.h).
  bool fold_constant(const onnx::NodeProto& n);

  void import_node(const onnx::NodeProto& n, int index);

  void declare_output(const std::string& name);

  // The graph output `name` that saves computed tensor `a`: the operator's own
  // tensor (a Flatten or Reshape view has another name) in the order it lies in
  // DRAM when that is the model's (a sequence as T rows of F, [N, C] with H = W = 1),
  // else NCHW. nullopt for a head view with the heads before the tokens, which
  // lies in no order the model states (the caller refuses it).
  std::optional<OnnxOutput> saved_output(const std::string& name, const Activation& a) const;

  // What to_json writes for the workload: the model file it came from.
  std::string nlohmann_placeholder() const;

  std::string path_;
  OnnxImportOptions options_;
  std::map<std::string, std::string> input_files_;
  onnx::ModelProto model_;
  // Where the reader left large 8-bit values in the file (onnx_reader.h); by name
  // in in_file_ once constants_ holds the initialisers.
  std::vector<FileSpan> side_spans_;
  // A constant whose bytes are still in the file (empty in constants_) until a node
  // reads it (with_bytes): one operator's weights at a time, never the whole model's.
  mutable std::map<std::string, FileSpan> in_file_;
  mutable std::map<std::string, Constant> constants_;
  std::map<std::string, Activation> activations_;
  // Each tensor's producer in the model as read, "node 'NAME' (OP)", for messages
  // (the idiom rewrites and the QDQ lowering replace nodes).
  std::map<std::string, std::string> producers_;
  bool float_model_ = false;            // no QuantizeLinear, DequantizeLinear or integer operator
  std::map<std::string, int> readers_;  // per tensor: node inputs and graph outputs reading it
  std::map<std::string, int> unread_;   // the same, less the nodes imported so far
  int64_t opset_ = 0;                   // of the default domain
  std::map<std::string, OnnxOutput> dequantized_;
  std::map<std::string, OnnxOutput> transposed_;  // graph outputs transposed to NHWC
  std::set<std::string> layer_names_;
  OnnxModel out_;
};

}  // namespace npusim::onnx_detail
