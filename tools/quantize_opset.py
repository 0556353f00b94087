"""Opset preparation for tools/quantize, which writes opset 13 or later.

- upgrade(model, path): a model below opset 13 is converted to opset 13 by
  onnx.version_converter (Clip's bounds, Split's sizes, Slice's and Squeeze's axes become the
  inputs opset 13 reads), and every Upsample (opsets 7 to 9, deprecated since 10; at any opset)
  becomes the Resize that computes it: Resize(X, '', scales) with coordinate_transformation_mode
  asymmetric and, for mode nearest, nearest_mode floor. That is Upsample's definition (output
  index i reads input floor(i / scale); linear interpolates at i / scale), and ONNX Runtime's:
  its Upsample kernel maps asymmetrically and, its scales being at least 1, rounds down. An
  opset 10 Resize is rewritten the same way (ONNX Runtime maps it asymmetrically and rounds down
  where it upsamples, up where it downsamples). The converter is not used for either: its
  adapters leave Resize 11's defaults (half_pixel, round_prefer_floor), which differ for a
  linear mode and for a nearest one by a fractional scale; they also drop an Upsample's name.
"""

import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, version_converter


def fail(path, what):
    sys.exit(f"quantize: {path}: {what}")


def default_opset(model):
    return max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [1])


def constant_value(model, name):
    for t in model.graph.initializer:
        if t.name == name:
            return numpy_helper.to_array(t)
    for n in model.graph.node:
        if n.op_type == "Constant" and n.output[0] == name:
            value = next((a.t for a in n.attribute if a.name == "value"), None)
            return None if value is None else numpy_helper.to_array(value)
    return None


def as_resize(model, n, path, added):
    """The opset 13 Resize that computes n: an Upsample (7: scales an attribute; 9 and 10: an
    input), or an opset 10 Resize (X, scales), which ONNX Runtime maps asymmetrically too."""
    where = f"node '{n.name}' ({n.op_type})"
    attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
    mode = attrs.get("mode", b"nearest").decode()
    if mode not in ("nearest", "linear"):
        fail(path, f"at {where}: expected mode nearest or linear, found mode {mode}")
    if "scales" in attrs:  # opset 7
        scales_name = (n.name or n.output[0]) + "_scales"
        added.append(numpy_helper.from_array(np.array(attrs["scales"], np.float32), scales_name))
        scales = np.array(attrs["scales"], np.float32)
    elif len(n.input) > 1 and n.input[1]:
        scales_name, scales = n.input[1], constant_value(model, n.input[1])
    else:
        fail(path, f"at {where}: expected scales (an input, or opset 7's attribute), found none")
    nearest = "floor"
    if n.op_type == "Upsample" and scales is not None and np.any(~(scales >= 1.0)):
        fail(path, f"at {where}: expected scales of at least 1 (Upsample's), found "
                   f"{np.asarray(scales).tolist()}")
    if n.op_type == "Resize" and mode == "nearest":  # rounds down upsampling, up downsampling
        if scales is None or (np.any(scales > 1.0) and np.any(scales < 1.0)):
            fail(path, f"at {where}: expected an opset 10 nearest Resize by constant scales that "
                       "upsample or downsample every axis (its rounding then is one "
                       "nearest_mode), found "
                       f"{'computed scales' if scales is None else np.asarray(scales).tolist()}")
        nearest = "ceil" if np.any(scales < 1.0) else "floor"
    extra = {"nearest_mode": nearest} if mode == "nearest" else {}
    return helper.make_node("Resize", [n.input[0], "", scales_name], list(n.output), name=n.name,
                            mode=mode, coordinate_transformation_mode="asymmetric", **extra)


def upgrade(model, path):
    """The model at opset 13 or later, each Upsample the Resize that computes it."""
    g = model.graph
    opset = default_opset(model)
    ups = [n for n in g.node if n.domain in ("", "ai.onnx") and (
        n.op_type == "Upsample" or (n.op_type == "Resize" and opset == 10))]
    added = []
    resizes = [as_resize(model, n, path, added) for n in ups]
    if opset < 13:  # the converter crashes on a tensor that nothing writes
        written = {v.name for v in g.input} | {t.name for t in g.initializer} | {""}
        for n in g.node:
            missing = [i for i in n.input if i not in written]
            if missing:
                fail(path, f"at node '{n.name}' ({n.op_type}): expected inputs that the graph "
                           f"writes before it, found '{missing[0]}'")
            written.update(n.output)
        missing = [o.name for o in g.output if o.name not in written]
        if missing:
            fail(path, f"expected graph outputs that a node writes, found '{missing[0]}'")
    kept = [n for n in g.node if all(n is not u for u in ups)]
    del g.node[:]
    g.node.extend(kept)
    if opset < 13:
        # The converter never sees an Upsample: meanwhile its input is a graph output and its
        # output a graph input, so that the graph around it stays whole.
        outputs, inputs = len(g.output), len(g.input)
        given, taken = {v.name for v in g.input}, {v.name for v in g.output}
        for name in dict.fromkeys(n.input[0] for n in ups if n.input[0] not in taken):
            g.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
        for name in dict.fromkeys(o for n in ups for o in n.output if o not in given):
            g.input.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
        try:
            model = version_converter.convert_version(model, 13)
        except Exception as e:  # noqa: BLE001 - the converter raises several types
            fail(path, f"expected a model onnx.version_converter takes from opset {opset} to 13, "
                       f"found one it cannot convert ({str(e).strip()})")
        g = model.graph
        del g.output[outputs:]
        del g.input[inputs:]
    g.initializer.extend(added)
    for r in resizes:  # just after the nodes that write its inputs (a graph input's: first)
        nodes = list(g.node)
        at = max([i + 1 for i, n in enumerate(nodes) if set(n.output) & set(r.input)] + [0])
        nodes.insert(at, r)
        del g.node[:]
        g.node.extend(nodes)
    return model
