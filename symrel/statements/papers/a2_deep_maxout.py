"""Paper A, Theorem 3.2: a deep maxout net is a stack of three-block Transformers."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a2-deep-maxout",
    paper="A",
    reference="Theorem 3.2",
    title="deep maxout nets are realised by stacked Transformer blocks",
    paper_claim="Stacking the three-layer subnetworks of Theorem 3.1 gives a hardmax Transformer of depth "
    "3L that represents a maxout net of depth L exactly, with a number of parameters comparable "
    "(up to constants, counting sparsity) to the maxout net's.",
    symrel_claim="For each instance, a maxout net N of depth L (widths, ranks, affine read-out) and a box D: "
    "the hardmax Transformer T of the symrel construction realising Theorem 3.1, stacked as in Theorem "
    "3.2 (3 blocks per maxout layer, the gating bound of each layer computed exactly from the exact "
    "ranges of the previous layers on D, the read-out folded into the last block), satisfies "
    "T(x) = N(x) for every x in D. Proved layer by layer; the proof has a constant number of lemmas "
    "per layer, so its length grows linearly with the depth (see the step counts). The parameter "
    "ratio T / N is reported for each instance.",
    narrowing="Concrete nets with rational weights, bounded boxes only (later gating bounds come from exact "
    "ranges on D), and the symrel construction, not the paper's matrices; 'comparable complexity' is "
    "shown as measured parameter counts, not as the paper's asymptotic statement.",
)


def run():
    import random

    from symrel.models import Box
    from symrel.constructions.random import random_maxout_net
    from symrel.statements.papers._compiled import compiled_instance, tampered_instance

    for seed, d, widths, rank in [
        (11, 2, [3, 2], 2),
        (12, 2, [3, 3, 2], 3),
        (13, 3, [4, 4, 3, 2], (2, 4)),
        (14, 1, [2, 2, 2, 2, 2, 2], 2),
    ]:
        net = random_maxout_net(random.Random(seed), d, widths, rank=rank, max_num=20, max_den=10)
        r = rank if isinstance(rank, int) else f"{rank[0]} to {rank[1]}"
        yield compiled_instance(f"seed {seed}: d = {d}, depth {len(widths)}, widths {widths}, rank {r}", net,
                                Box.cube(d), facts={"depth L": len(widths)})
    for depth in (1, 2, 4, 8):  # the proof grows linearly with depth: compare steps and times
        net = random_maxout_net(random.Random(50 + depth), 4, [8] * depth, rank=3, max_num=20, max_den=10)
        yield compiled_instance(f"depth series: d = 4, depth {depth}, width 8, rank 3", net, Box.cube(4),
                                facts={"depth L": depth})
    net = random_maxout_net(random.Random(56), 8, [32] * 6, rank=4, max_num=20, max_den=10)
    yield compiled_instance("large: d = 8, depth 6, width 32, rank 4", net, Box.cube(8), facts={"depth L": 6})
    net = random_maxout_net(random.Random(15), 2, [2, 2], rank=1, max_num=20, max_den=10)
    yield compiled_instance("rank-1 units throughout (an affine net), depth 2", net, Box.cube(2), facts={"depth L": 2})
    net = random_maxout_net(random.Random(12), 2, [3, 3, 2], rank=3, max_num=20, max_den=10)
    yield tampered_instance("control: one first-layer feed-forward weight changed by 1/10^6", net, Box.cube(2),
                            path="blocks[0].feedforward.W1[0][0]")


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
