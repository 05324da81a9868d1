"""The maxout -> hardmax Transformer compiler: the symrel construction realising
Theorem 3.1 (one maxout layer -> three blocks) and Theorem 3.2 (stacking) of Paper A.

The whole compiler is :func:`compile_maxout`; each stage lives in a module named
after what it maps (``domain_to_gates``, ``input_to_embedding``, ``maxout_to_blocks``,
``affine_to_readout``), and the residual-stream slots are named in :mod:`.bases`.
ReLU nets and CPWL functions compile through their maxout form (:func:`compile_model`).

Sizes: T = max rank + 1 tokens, width ``dx + T + 1 + 2q`` with ``dx = max(d, widths)``
and q the widest layer, 3 blocks per layer; cost O(parameters x width).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, AffineMap, Box
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])], AffineMap([[2]], [1]))
>>> comp = compile_maxout(net, Box([[-1, 1]]))
>>> comp.transformer.tokens, comp.transformer.width, len(comp.transformer.blocks)
(3, 7, 3)
>>> [str(v) for v in comp.transformer(["-1/2"])], [str(v) for v in net(["-1/2"])]
(['2'], ['2'])
>>> str(comp.gates[0].bound)
'1'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import inner
from ..models import Domain, MaxoutNet, Model, Transformer
from ..constructions import to_maxout
from .affine_to_readout import readout
from .bases import Layout
from .domain_to_gates import Gate, gating_bounds
from .input_to_embedding import embedding
from .maxout_to_blocks import layer_blocks

CONSTRUCTION = "symrel construction realising Theorem 3.1 (Paper A), stacked as in Theorem 3.2"


@dataclass
class Compilation:
    """A compiled Transformer with its named layout, its gates (per maxout layer: B and
    the three blocks) and the maxout net it realises (``source``); ``model`` is what was
    compiled (the maxout net itself, or the ReLU / CPWL model behind it)."""

    transformer: Transformer
    layout: Layout
    gates: list[Gate]
    source: MaxoutNet
    domain: Domain
    margin: object = 0
    model: Model | None = None
    construction: str = field(default=CONSTRUCTION)

    def sizes(self) -> dict:
        """Tokens, width, blocks, parameters and nonzeros of the Transformer next to the
        maxout net's: the paper's "comparable complexity" made measurable."""
        t, s = self.transformer.sizes(), self.source.sizes()
        return {
            "transformer": t,
            "maxout": s,
            "ratio": {
                "parameters": f"{t['parameters']}/{s['parameters']}",
                "nonzeros": f"{t['nonzeros']}/{s['nonzeros']}",
                "blocks_per_layer": len(self.transformer.blocks) // self.source.depth,
            },
        }

    def to_json(self) -> dict:
        """The compilation's metadata (not the Transformer itself)."""
        return {"construction": self.construction, "layout": self.layout.to_json(),
                "gates": [g.to_json() for g in self.gates], "sizes": self.sizes()}


def layout_of(net: MaxoutNet) -> Layout:
    """The slot layout wide enough for every layer of ``net``."""
    return Layout(
        input_dim=net.input_dim,
        x_width=max([net.input_dim] + net.widths),
        tokens=max(max(layer.ranks) for layer in net.layers) + 1,
        units=max(net.widths),
    )


def compile_maxout(net: MaxoutNet, domain: Domain, margin=0, *, bounds=None) -> Compilation:
    """The hardmax Transformer equal to ``net`` on ``domain`` (three blocks per layer).

    ``margin`` enlarges every gating bound B; ``bounds`` overrides them (for tests of
    broken constructions only). Any other model kind is refused (:func:`compile_model`
    takes ReLU nets and CPWL functions through their maxout form)."""
    if not isinstance(net, MaxoutNet):
        raise InputError(f"compile_maxout takes a maxout net, got {getattr(net, 'kind', type(net).__name__)} "
                         "(compile_model takes maxout, relu, cpwl1d and cpwl models)", path="kind")
    layout = layout_of(net)
    gates = gating_bounds(net, domain, margin, bounds)
    blocks = [blk for layer, gate in zip(net.layers, gates) for blk in layer_blocks(layer, inner(gate, "bound"), layout)]
    transformer = Transformer(net.input_dim, layout.width, layout.tokens, embedding(layout), blocks,
                              readout(net, layout))
    return Compilation(transformer, layout, gates, net, domain, margin, net)


def compile_model(model: Model, domain: Domain, margin=0) -> Compilation:
    """Compile a maxout net, a ReLU net (via :func:`~symrel.constructions.relu_to_maxout`) or a
    CPWL function (via :func:`~symrel.constructions.cpwl_to_maxout`, or the lattice form
    :func:`~symrel.constructions.cpwl_mesh_to_maxout` on a mesh, whose support must hold D).

    >>> from symrel.models import CPWL1D, Box
    >>> f = CPWL1D([0, 1, 2], [0, 1, 0])
    >>> comp = compile_model(f, Box([[-1, 3]]))
    >>> len(comp.transformer.blocks), all(comp.transformer([x]) == f([x]) for x in (-1, "1/2", 1, 3))
    (6, True)
    """
    check_domain = getattr(model, "check_domain", None)
    if check_domain is not None:    # a CPWL function on a mesh: D must lie in its support
        check_domain(domain)
    comp = compile_maxout(to_maxout(model), domain, margin)
    comp.model = model
    return comp
