"""Paper A, Corollary 3.3: Transformers represent ReLU networks."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a3-relu-nets",
    paper="A",
    reference="Corollary 3.3",
    title="ReLU networks are realised by Transformers",
    paper_claim="Since maxout networks generalise ReLU networks, Transformers have the universal approximation "
    "property of ReLU networks under similar complexity.",
    symrel_claim="For each instance, a ReLU net F (dense layers, ReLU = the rank-2 maxout unit max(0, z), a "
    "linear last layer) and a box D: the maxout form of F (symrel.constructions.relu_to_maxout) compiled by the "
    "symrel construction realising Theorem 3.1 into a hardmax Transformer T satisfies T(x) = F(x) for "
    "every x in D, proved directly against the ReLU net, layer by layer.",
    narrowing="The corollary is about approximation classes; symrel checks the exact representation it rests on, "
    "for concrete ReLU nets with rational weights on bounded boxes, with the symrel construction.",
)


def run():
    import random

    from symrel.models import Box, DenseLayer, ReLUNet
    from symrel.constructions.random import random_relu_net
    from symrel.statements.papers._compiled import compiled_instance, tampered_instance

    hat = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
    yield compiled_instance("the hat function 2 ReLU(x) - 4 ReLU(x - 1/2) on [0, 1]", hat, Box([[0, 1]]))
    dead = ReLUNet(2, [DenseLayer([[1, 1], [0, 0]], [0, -1]), DenseLayer([[1, 1]], [0], "none")])
    yield compiled_instance("a dead ReLU (always 0) and a ReLU with a kink through the box", dead, Box.cube(2))
    for seed, d, widths in [(21, 2, [4]), (22, 3, [5, 3]), (23, 2, [3, 3, 3])]:
        net = random_relu_net(random.Random(seed), d, widths, max_num=20, max_den=10)
        yield compiled_instance(f"seed {seed}: d = {d}, hidden widths {widths}", net, Box.cube(d))
    net = random_relu_net(random.Random(21), 2, [4], max_num=20, max_den=10)
    yield tampered_instance("control: read-out bias changed by 1/10^6", net, Box.cube(2))


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
