"""Graph preparation for tools/quantize: torch's nn.MultiheadAttention export, batch first.

torch.onnx writes nn.TransformerEncoderLayer(batch_first=True)'s attention sequence first: the
input [1, T, F] transposed to [T, 1, F], one fused input projection [F, 3F] split by Slices on
the features, heads as [T, H, D] views permuted to [H, T, D], the output projection a Gemm on
[T, F], and the result reshaped and transposed back to [1, T, F]. With one sequence, [T, 1, F]
and [1, T, F] hold the same bytes in the same order, so the same computation written batch first
is: the projections on [1, T, F], heads as [1, T, H, D] views permuted to [1, H, T, D] (what
npusim's importer maps, docs/onnx.md#transformer-blocks), and the output projection a MatMul.

- to_batch_first rewrites every tensor between such a Transpose of a [1, T, F] tensor and the
  Transpose back: a [T, 1, F] tensor becomes the [1, T, F] one (the Transposes go), a tensor of
  shape d computed from it gets shape [1] + d (Reshape targets gain the 1, Transpose perms and a
  Softmax's axis shift by one), and the Gemm becomes MatMul of its transposed weights and an Add
  of its bias. It changes nothing unless every node on the way is one it knows.
- split_fused_projections: a MatMul of constant [K, N] weights (and an Add of its bias) read
  only by Slices of the last axis becomes one MatMul (and Add) per Slice, of those columns.
Both compute the same values as the export (up to float rounding).
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from quantize_fold import attribute, bias_add, links

SEQ, PRE = "seq", "pre"  # [T, 1, F] as [1, T, F]; shape d as [1] + d


def _const(inits, name):
    return numpy_helper.to_array(inits[name]) if name in inits else None


def _set_ints(n, name, values):
    for a in n.attribute:
        if a.name == name:
            n.attribute.remove(a)
            break
    n.attribute.append(helper.make_attribute(name, [int(v) for v in values]))


def to_batch_first(model, shapes):
    """Rewrites a sequence-first attention between Transposes of [1, T, F] (above); returns
    whether it did (the model is left as it was when it did not)."""
    work = onnx.ModelProto()
    work.CopyFrom(model)
    g = work.graph
    inits = {t.name: t for t in g.initializer}
    kind = {}     # a tensor of the export -> SEQ or PRE (absent: as it is)
    alias = {}    # a tensor whose node goes -> the tensor that holds its values
    drop, gemms, reshapes = set(), {}, {}

    def scalar(name):
        return name in inits and _const(inits, name).size == 1

    for index, n in enumerate(g.node):
        ks = {kind[i] for i in n.input if i in kind}
        op, out = n.op_type, n.output[0]
        perm = [int(p) for p in (attribute(n, "perm") or [])]
        if not ks:
            shape = shapes.get(n.input[0]) if n.input else None
            if op == "Transpose" and perm == [1, 0, 2] and shape and len(shape) == 3 and \
                    shape[0] == 1:
                kind[out], alias[out] = SEQ, n.input[0]
                drop.add(index)
            continue
        if len(ks) > 1:
            return False
        k = ks.pop()
        if op == "Transpose" and k == SEQ and perm == [1, 0, 2]:
            alias[out] = n.input[0]  # [1, T, F] as it is: the sequence's own tensor
            drop.add(index)
        elif op == "MatMul" and k == SEQ and n.input[0] in kind and n.input[1] in inits and \
                len(inits[n.input[1]].dims) == 2:
            kind[out] = SEQ
        elif op == "Add" and k == SEQ and any(i in inits and len(inits[i].dims) <= 1
                                              for i in n.input):
            kind[out] = SEQ
        elif op == "Slice" and k == SEQ and n.input[0] in kind and len(n.input) > 3 and \
                all(i in inits for i in n.input[1:]) and \
                [int(a) for a in _const(inits, n.input[3])] in ([-1], [2]):
            kind[out] = SEQ
        elif op == "Reshape" and n.input[1] in inits:
            target = [int(v) for v in _const(inits, n.input[1])]
            shape = shapes.get(n.input[0], [])
            if k == PRE and len(shape) == 2 and target == [shape[0], 1, shape[1]]:
                kind[out], alias[out] = SEQ, n.input[0]  # [T, F] -> [T, 1, F]: the same bytes
                drop.add(index)
            elif 0 in target or -1 in target:
                return False
            else:
                reshapes[index] = [1] + target
                kind[out] = PRE
        elif op == "Transpose" and k == PRE and perm:
            _set_ints(n, "perm", [0] + [p + 1 for p in perm])
            kind[out] = PRE
        elif op in ("Div", "Mul") and k == PRE and n.input[0] in kind and scalar(n.input[1]):
            kind[out] = PRE
        elif op == "MatMul" and k == PRE and all(kind.get(i) == PRE for i in n.input):
            kind[out] = PRE
        elif op == "Softmax" and k == PRE:
            for a in n.attribute:
                if a.name == "axis" and a.i >= 0:
                    a.i += 1
            kind[out] = PRE
        elif op == "Gemm" and k == PRE and n.input[0] in kind and len(n.input) == 3 and \
                n.input[1] in inits and n.input[2] in inits and \
                attribute(n, "alpha", 1.0) == 1.0 and attribute(n, "beta", 1.0) == 1.0 and \
                not attribute(n, "transA", 0):
            w = _const(inits, n.input[1])
            w = w.T if attribute(n, "transB", 0) else w
            w_name = n.input[1] + "_matmul"
            g.initializer.append(numpy_helper.from_array(np.ascontiguousarray(w), w_name))
            gemms[index] = [
                helper.make_node("MatMul", [n.input[0], w_name], [out + "_matmul"], name=n.name),
                helper.make_node("Add", [out + "_matmul", n.input[2]], [out],
                                 name=n.name + "_bias")]
            kind[out] = PRE
        else:
            return False
    if not drop or any(o.name in kind or o.name in alias for o in g.output):
        return False
    nodes = []
    for index, n in enumerate(g.node):
        if index in drop:
            continue
        if index in reshapes:
            name = n.output[0] + "_batch_first_shape"
            g.initializer.append(numpy_helper.from_array(np.array(reshapes[index], np.int64),
                                                         name))
            n.input[1] = name
        for m in gemms.get(index, [n]):
            for i, name in enumerate(m.input):
                while name in alias:
                    name = alias[name]
                m.input[i] = name
            nodes.append(m)
    del g.node[:]
    g.node.extend(nodes)
    model.CopyFrom(work)
    return True


def split_fused_projections(model):
    """One MatMul (and bias Add) per Slice of a fused projection's last axis; returns how many
    projections it split."""
    g = model.graph
    inits, _, readers = links(g)
    index_of = {o: i for i, n in enumerate(g.node) for o in n.output}
    split, gone, new = 0, set(), {}
    for index, n in enumerate(g.node):
        if n.op_type != "MatMul" or n.input[1] not in inits or len(inits[n.input[1]].dims) != 2:
            continue
        w = numpy_helper.to_array(inits[n.input[1]])
        top, add, b = n, None, None
        found = bias_add(n, inits, readers)
        if found:
            add, bias = found
            b = numpy_helper.to_array(inits[bias]).reshape(-1)
            top = add
        slices = readers.get(top.output[0], [])
        if not slices or any(s.op_type != "Slice" or len(s.input) < 4 or
                             any(i not in inits for i in s.input[1:]) for s in slices):
            continue
        parts = []
        for s in slices:
            starts, ends, axes = (numpy_helper.to_array(inits[i]) for i in s.input[1:4])
            steps = numpy_helper.to_array(inits[s.input[4]]) if len(s.input) > 4 else [1]
            if len(starts) != 1 or int(axes[0]) not in (-1, 2) or int(steps[0]) != 1:
                break
            lo, hi = int(starts[0]), min(int(ends[0]), w.shape[1])
            parts.append((s, lo, hi))
        if len(parts) != len(slices):
            continue
        nodes = []
        for s, lo, hi in parts:
            w_name = f"{n.input[1]}_{lo}_{hi}"
            g.initializer.append(numpy_helper.from_array(np.ascontiguousarray(w[:, lo:hi]), w_name))
            if add is None:
                nodes.append(helper.make_node("MatMul", [n.input[0], w_name], [s.output[0]],
                                              name=f"{n.name}_{lo}_{hi}"))
                continue
            b_name = f"{add.name}_bias_{lo}_{hi}"
            g.initializer.append(numpy_helper.from_array(b[lo:hi].copy(), b_name))
            nodes.append(helper.make_node("MatMul", [n.input[0], w_name],
                                          [s.output[0] + "_matmul"], name=f"{n.name}_{lo}_{hi}"))
            nodes.append(helper.make_node("Add", [b_name, s.output[0] + "_matmul"],
                                          [s.output[0]], name=f"{add.name}_{lo}_{hi}"))
        new[index] = nodes
        gone.update(index_of[x.output[0]] for x in [add] + [p[0] for p in parts] if x is not None)
        split += 1
    if split:
        nodes = []
        for index, n in enumerate(g.node):
            if index in new:
                nodes.extend(new[index])
            elif index not in gone:
                nodes.append(n)
        del g.node[:]
        g.node.extend(nodes)
    return split
