"""Graph preparation for tools/quantize: what a float export computes that is not inference.

- fold_shape_computations: torch.onnx computes some shapes at run time (a `chunk` writes
  Shape -> Gather -> Add -> Div -> Mul for its Slice bounds). With the model's static shapes
  those are constants (as are the sizes `F.interpolate(size=...)` writes as Shape -> Slice ->
  Concat): each such node becomes an initialiser, so the quantiser sees only
  the operators that compute activations.
- reduce_means_as_pools: ReduceMean over H and W of a [N, C, H, W] map (`x.mean([2, 3])`) is
  GlobalAveragePool (then Flatten for keepdims 0): the same float mean, and the form ONNX
  Runtime fuses between a DequantizeLinear and a QuantizeLinear into its integer
  QLinearGlobalAveragePool, which npusim computes bit-exactly.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

# Nodes evaluated when every input is a constant (Shape: when its input's shape is static).
SHAPE_OPS = {"Constant", "Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Cast", "Add",
             "Sub", "Mul", "Div", "Slice"}
ARITHMETIC = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}


def shape_skeleton(model, largest=4096):
    """The model for shape inference: its float initialisers of more than `largest` values keep
    their type and dims but not their data (weights are never shape arithmetic's operands).
    onnx's infer_shapes copies the whole model in and out: 19 s for a float VGG-11's 531 MB,
    against 6 ms for this skeleton, which infers the same shapes."""
    skeleton = onnx.ModelProto()
    skeleton.ir_version = model.ir_version
    skeleton.opset_import.extend(model.opset_import)
    skeleton.functions.extend(model.functions)
    g, given = skeleton.graph, model.graph
    g.name = given.name
    for field in ("node", "input", "output", "value_info", "sparse_initializer"):
        getattr(g, field).extend(getattr(given, field))
    floats = (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE)
    for t in given.initializer:
        if t.data_type in floats and np.prod(t.dims, dtype=np.int64) > largest:
            kept = g.initializer.add()
            kept.name, kept.data_type = t.name, t.data_type
            kept.dims.extend(t.dims)
        else:
            g.initializer.append(t)
    return skeleton


def inferred_graph(model):
    """The graph of onnx's shape inference over the model's shape_skeleton."""
    return onnx.shape_inference.infer_shapes(shape_skeleton(model)).graph


def infer_shapes(model):
    """The model with onnx's inferred shapes in its value_info and outputs."""
    inferred = inferred_graph(model)
    for field in ("value_info", "output"):
        del getattr(model.graph, field)[:]
        getattr(model.graph, field).extend(getattr(inferred, field))
    return model


def static_shapes(model):
    """Every tensor's shape that shape inference knows in full, by name."""
    inferred = inferred_graph(model)
    shapes = {}
    for v in list(inferred.input) + list(inferred.value_info) + list(inferred.output):
        dims = v.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[v.name] = [d.dim_value for d in dims]
    return shapes


def links(g):
    """The graph's initialisers, each tensor's producing node and its reading nodes, by name."""
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    return inits, producer, readers


def scalar_value(inits, name):
    """The float value of a constant scalar initialiser, or None."""
    if name not in inits:
        return None
    v = numpy_helper.to_array(inits[name])
    return float(v.reshape(-1)[0]) if v.size == 1 and v.dtype.kind == "f" else None


def bias_add(matmul, inits, readers):
    """The Add that is the only reader of MatMul `matmul`'s [.., N] output (of constant weights)
    and adds it a constant bias of N values (nn.Linear on a sequence, as torch.onnx writes it),
    with the bias's name; None when there is none."""
    after = readers.get(matmul.output[0], [])
    if matmul.op_type != "MatMul" or matmul.input[1] not in inits or len(after) != 1 or \
            after[0].op_type != "Add":
        return None
    add = after[0]
    other = add.input[0] if add.input[1] == matmul.output[0] else add.input[1]
    if other not in inits:
        return None
    n_out = inits[matmul.input[1]].dims[-1]
    b = inits[other]
    ok = int(np.prod(b.dims)) == n_out and (not b.dims or b.dims[-1] == n_out)
    return (add, other) if ok else None


def attribute(n, name, default=None):
    for a in n.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def evaluate(n, ins):
    """The value of shape node n from its constant inputs, or None when it is not foldable."""
    op = n.op_type
    if op == "Constant":
        return numpy_helper.to_array(attribute(n, "value")) if attribute(n, "value") else None
    if op in ARITHMETIC or op == "Div":
        a, b = ins
        if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
            return None  # float arithmetic stays in the graph
        if op == "Div":  # ONNX integer division truncates toward zero
            return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)
        return ARITHMETIC[op](a, b).astype(a.dtype)
    if op == "Gather":
        return np.take(ins[0], ins[1], axis=attribute(n, "axis", 0))
    if op == "Concat":
        return np.concatenate(ins, axis=attribute(n, "axis"))
    if op == "Slice":  # opset 10 and later: data, starts, ends[, axes[, steps]]
        if len(n.input) < 3 or any(not i for i in n.input):
            return None
        starts, ends = ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 else range(len(starts))
        steps = ins[4] if len(ins) > 4 else [1] * len(starts)
        index = [slice(None)] * ins[0].ndim
        for start, end, axis, step in zip(starts, ends, axes, steps):
            index[int(axis)] = slice(int(start), int(end), int(step))
        return ins[0][tuple(index)]
    if op == "Cast":
        to = attribute(n, "to")
        convert = getattr(helper, "tensor_dtype_to_np_dtype", None)  # onnx 1.13 and later
        return ins[0].astype(convert(to) if convert else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to])
    axes = list(ins[1]) if len(ins) > 1 else attribute(n, "axes")
    if op == "Unsqueeze":
        value = ins[0]
        rank = value.ndim + len(axes)
        for axis in sorted(a % rank for a in axes):
            value = np.expand_dims(value, axis)
        return value
    if op == "Squeeze":
        return np.squeeze(ins[0], axis=None if axes is None else tuple(axes))
    return None


def fold_shape_computations(model, shapes):
    """Replaces every shape node whose value is known by an initialiser; returns how many.
    `shapes`: static_shapes(model) (folding leaves every activation's shape as it is)."""
    g = model.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    kept, folded = [], 0
    for n in g.node:
        value = None
        if n.op_type == "Shape" and n.input[0] in shapes:
            value = np.array(shapes[n.input[0]], np.int64)
        elif n.op_type in SHAPE_OPS - {"Shape"} and len(n.output) == 1 and \
                all(i in consts for i in n.input if i):
            value = evaluate(n, [consts[i] for i in n.input if i])
        if value is None:
            kept.append(n)
            continue
        consts[n.output[0]] = np.asarray(value)
        g.initializer.append(numpy_helper.from_array(np.asarray(value), n.output[0]))
        folded += 1
    del g.node[:]
    g.node.extend(kept)
    return folded


def reduce_means_as_pools(model, shapes):
    """ReduceMean over axes 2 and 3 of a 4-D tensor becomes GlobalAveragePool (+ Flatten)."""
    g = model.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    nodes = []
    for n in g.node:
        if n.op_type != "ReduceMean":
            nodes.append(n)
            continue
        rank = len(shapes.get(n.input[0], []))
        axes = attribute(n, "axes")
        if axes is None and len(n.input) > 1 and n.input[1] in consts:  # opset 18
            axes = np.atleast_1d(consts[n.input[1]]).tolist()
        if rank != 4 or axes is None or sorted(a % 4 for a in axes) != [2, 3]:
            nodes.append(n)
            continue
        out = n.output[0]
        if attribute(n, "keepdims", 1):
            nodes.append(helper.make_node("GlobalAveragePool", [n.input[0]], [out], name=n.name))
        else:
            pooled = out + "_pooled"
            nodes.append(helper.make_node("GlobalAveragePool", [n.input[0]], [pooled],
                                          name=n.name))
            nodes.append(helper.make_node("Flatten", [pooled], [out], name=n.name + "_flatten",
                                          axis=1))
    del g.node[:]
    g.node.extend(nodes)
