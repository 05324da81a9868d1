"""Small verification problems shared by the tests of symrel.verify, its files and its checks."""

from symrel.models import DenseLayer, ReLUNet

#: f(x) = (relu(x0 - x1), relu(x1)) on two inputs
NET = ReLUNet(2, [DenseLayer([[1, -1], [0, 1]], [0, 0]), DenseLayer([[1, 0], [0, 1]], [0, 0], "none")])

HEADER = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)\n"
BOX = "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= X_1 0)) (assert (<= X_1 1))\n"

#: unsat: relu(x0 - x1) <= 1 on the unit square
UNSAT = HEADER + BOX + "(assert (>= Y_0 1.5))\n"
#: sat: relu(x0 - x1) >= 1/2 at (3/4, 1/8), say
SAT = HEADER + BOX + "(assert (>= Y_0 0.5))\n"


def _tenth(k: int) -> str:
    return "1" if k == 10 else f"0.{k}"


#: unsat, with one input disjunct per strip [k/10, (k+1)/10] x [0, 1]: a certificate of ten
#: steps, each with its own leaves (runs of leaves checked together cross the steps)
STRIPS = HEADER + "(assert (or " + " ".join(
    f"(and (>= X_0 {_tenth(k)}) (<= X_0 {_tenth(k + 1)}) (>= X_1 0) (<= X_1 1))" for k in range(10)) + "))\n" \
    "(assert (>= Y_0 1.5))\n"


# How far past its budget a run may end: the clean-up after the deadline, on a loaded machine
# (the limit is what is tested, not the speed; a hang would be 30 s and more past it).
OVERRUN = 10
