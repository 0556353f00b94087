"""Graph preparation for tools/quantize: attention's score scaling, folded into a projection.

An attention written by hand (`q @ k.transpose(-2, -1) / math.sqrt(D)`) exports as
Div(MatMul(Q, K^T), c), or Mul by a constant; torch's nn.MultiheadAttention divides Q itself. npusim's importer maps the scores MatMul to a
batch_matmul and has no Div: as real compilers do (and as tools/gen-onnx-transformer writes its
blocks), the constant is folded into the weights and bias of the projection that computes Q
(else K): Q = Reshape/Transpose views of x @ W + b, so Q / c = views of x @ (W / c) + b / c.
The float model then computes the same scores up to float rounding, and is calibrated and
quantised as it is.

A scaling whose operand does not trace back, through Reshape and Transpose nodes that nothing
else reads, to a MatMul of constant [K, N] weights (and an Add of a constant bias) that nothing
else reads is left in place, and the quantiser refuses it, naming the node.
"""

import numpy as np
from onnx import numpy_helper

from quantize_fold import links, scalar_value

VIEWS = {"Reshape", "Transpose"}


def _projection(tensor, producer, readers, inits):
    """The (MatMul, bias Add or None) that computes `tensor` through views read only once."""
    node = producer.get(tensor)
    while node is not None and node.op_type in VIEWS:
        if len(readers.get(node.output[0], [])) != 1:
            return None
        node = producer.get(node.input[0])
    if node is None or len(readers.get(node.output[0], [])) != 1:
        return None
    add = None
    if node.op_type == "Add":
        add = node
        consts = [i for i in node.input if i in inits]
        other = [i for i in node.input if i not in inits]
        if len(consts) != 1 or len(other) != 1:
            return None
        node = producer.get(other[0])
        if node is None or len(readers.get(node.output[0], [])) != 1:
            return None
    if node.op_type != "MatMul" or node.input[1] not in inits or \
            len(inits[node.input[1]].dims) != 2:
        return None
    return node, add


def _scale_initialiser(inits, name, factor):
    t = inits[name]
    v = numpy_helper.to_array(t).astype(np.float32) * np.float32(factor)
    t.CopyFrom(numpy_helper.from_array(v.astype(np.float32), name))


def fold_score_scaling(model):
    """Folds each Div (or Mul) by a constant scalar of a projection's view, or of a
    two-activation MatMul (into the projection of its first operand, else its second), into
    that projection. Returns how many it folded."""
    g = model.graph
    inits, producer, readers = links(g)
    folded = set()  # node indices
    for index, n in enumerate(g.node):
        if n.op_type not in ("Div", "Mul") or len(n.input) != 2:
            continue
        c = scalar_value(inits, n.input[1])
        source = producer.get(n.input[0])
        if c is None or c == 0.0 or source is None or len(readers.get(n.input[0], [])) != 1:
            continue
        factor = 1.0 / c if n.op_type == "Div" else c
        # Q itself scaled (torch's nn.MultiheadAttention), or the scores Q K^T.
        operands = [n.input[0]]
        if source.op_type == "MatMul" and not any(i in inits for i in source.input):
            operands += list(source.input)
        for operand in operands:
            found = _projection(operand, producer, readers, inits)
            if found is None:
                continue
            matmul, add = found
            _scale_initialiser(inits, matmul.input[1], factor)
            if add is not None:
                _scale_initialiser(inits, next(i for i in add.input if i in inits), factor)
            folded.add(index)
            source.output[0] = n.output[0]  # the scaled tensor's readers read its producer
            break
    kept = [n for i, n in enumerate(g.node) if i not in folded]
    del g.node[:]
    g.node.extend(kept)
    return len(folded)
