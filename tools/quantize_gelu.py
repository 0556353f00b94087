"""Graph preparation for tools/quantize: GELU written as a formula, as one Gelu node.

torch.onnx writes nn.GELU() (below opset 20) as x * (1 + Erf(x / sqrt(2))) * 0.5: Div, Erf,
Add, Mul, Mul. gelus_from_erf makes each such chain one com.microsoft Gelu node (the erf form,
ONNX Runtime's contrib operator, which its optimiser fuses the chain into too), so that the
quantiser gives the activation one output range and npusim's importer maps DequantizeLinear ->
Gelu -> QuantizeLinear to its gelu table activation (docs/onnx.md#quantising-a-float-model).
"""

import math

from onnx import helper

from quantize_fold import links, scalar_value


def _other(n, name):
    """n's input that is not `name` (n has two)."""
    return n.input[1] if n.input[0] == name else n.input[0]


def gelus_from_erf(model):
    """Replaces each Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 chain (each step read
    only by the next) with Gelu(x); returns how many."""
    g = model.graph
    inits, producer, readers = links(g)

    def only(tensor, op):
        r = readers.get(tensor, [])
        return r[0] if len(r) == 1 and r[0].op_type == op else None

    chains = []  # (the nodes that go, x, the output)
    for e in g.node:
        if e.op_type != "Erf":
            continue
        div = producer.get(e.input[0])
        if div is None or len(readers.get(div.output[0], [])) != 1:
            continue
        c = scalar_value(inits, div.input[1])
        if c is None or not (div.op_type == "Div" and abs(c - math.sqrt(2)) < 1e-6 or
                             div.op_type == "Mul" and abs(c - 1 / math.sqrt(2)) < 1e-6):
            continue
        x = div.input[0]
        add = only(e.output[0], "Add")
        if add is None or scalar_value(inits, _other(add, e.output[0])) != 1.0:
            continue
        mul = only(add.output[0], "Mul")
        if mul is None or _other(mul, add.output[0]) != x:
            continue
        half = only(mul.output[0], "Mul")
        if half is None or scalar_value(inits, _other(half, mul.output[0])) != 0.5:
            continue
        chains.append(([div, e, add, mul, half], x, half.output[0]))
    if not chains:
        return 0
    gone = {o for nodes, _, _ in chains for n in nodes for o in n.output}
    last = {nodes[-1].output[0]: (x, out) for nodes, x, out in chains}
    kept = []
    for n in g.node:
        if n.output and n.output[0] in last:
            x, out = last[n.output[0]]
            kept.append(helper.make_node("Gelu", [x], [out], name=n.name + "_gelu",
                                         domain="com.microsoft"))
        elif not (n.output and n.output[0] in gone):
            kept.append(n)
    del g.node[:]
    g.node.extend(kept)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return len(chains)
