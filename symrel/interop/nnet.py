"""The ``.nnet`` text format (Kyle Julian, Stanford 2016) used by Marabou, NNV and
the ACAS Xu literature, read exactly.

Layout, after ``//`` comment lines (every line is comma separated, a trailing
comma allowed; lines end at LF or CR LF, and a CR alone is refused: the format's Python
readers break lines there, its C readers do not)::

    L, n_in, n_out, max_width          number of affine layers and sizes (max_width: the largest s_k)
    s_0, s_1, ..., s_L                 layer sizes (s_0 = n_in, s_L = n_out)
    0                                  the "symmetric" flag (unused)
    min_1 .. min_n                     input minimums
    max_1 .. max_n                     input maximums
    mean_1 .. mean_n, mean_out         input means, then one output mean
    range_1 .. range_n, range_out      input ranges, then one output range
    then for each layer k: s_k rows of s_(k-1) weights, then s_k biases (one a line)

Every decimal string is read as the exact decimal it denotes (``"1.9791091e+04"``
is 19791.091), never through a float. Hidden layers are ReLU, the last is affine.

The header's normalisation: the network proper reads ``(x_i - mean_i) / range_i``
and its outputs are mapped back by ``y * range_out + mean_out``. With
``normalise=True`` these two affine maps are folded exactly into the first and
last layers, so the returned net reads raw inputs and gives raw outputs:
``W' = W diag(1/r)``, ``b' = b - W diag(1/r) mu`` for the first layer and
``W'' = r_out W``, ``b'' = r_out b + mu_out`` for the last. Tools that use the
format also clip the raw input into ``[min, max]`` first; clipping is not affine
and is not folded, so the folded net agrees with them on the input box
:func:`nnet_input_box` (the domain the header declares), not outside it.

>>> text = '''// a toy net
... 2,1,1,2,
... 1,2,1,
... 0,
... -1,
... 1,
... 0.5,3,
... 2,10,
... 1.5,
... -2,
... 0.25,
... 0,
... 1,1,
... 0.1,
... '''
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "toy.nnet")
>>> _ = open(path, "w").write(text)
>>> net = read_nnet(path)
>>> [str(v) for v in net.evaluate([1])]
['37/20']
>>> raw = read_nnet(path, normalise=True)
>>> [str(v) for v in raw.evaluate(["5/2"])]    # (5/2 - 1/2)/2 = 1 -> 37/20 -> 10 * 37/20 + 3
['43/2']
>>> nnet_input_box(path)
Box([-1, 1])
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import InputError, LimitError
from ..exact import Q, Rational, from_rationals
from ..exact.number_text import BLANKS, integer_from_text, number_from_text, shown_text, why_not_ascii
from ..models import Box, DenseLayer, ReLUNet


@dataclass
class NNetFile:
    """Everything a ``.nnet`` file holds, as exact rationals.

    ``weights[k]`` is the ``s_(k+1) x s_k`` weight matrix (list of rows) of layer
    k and ``biases[k]`` its bias list; ``means`` and ``ranges`` have ``n_in + 1``
    entries (the last is the output's).
    """

    path: str
    sizes: list[int]
    mins: list[Rational]
    maxs: list[Rational]
    means: list[Rational]
    ranges: list[Rational]
    weights: list[list[list[Rational]]] = field(repr=False)
    biases: list[list[Rational]] = field(repr=False)

    @property
    def input_dim(self) -> int:
        return self.sizes[0]

    @property
    def output_dim(self) -> int:
        return self.sizes[-1]

    def input_box(self) -> Box:
        """The header's input box ``prod [min_i, max_i]`` (raw, unnormalised units)."""
        return Box([[lo, hi] for lo, hi in zip(self.mins, self.maxs)], path=f"{self.path}: input bounds")

    def normalised_input_box(self) -> Box:
        """The input box in the network's own (normalised) coordinates: the image of
        ``[min_i, max_i]`` under ``(x - mean_i) / range_i`` (its ends swapped for a negative range)."""
        return Box(
            [sorted([(lo - mu) / r, (hi - mu) / r]) for lo, hi, mu, r in zip(self.mins, self.maxs, self.means, self.ranges)],
            path=f"{self.path}: input bounds",
        )

    def net(self, normalise: bool = False) -> ReLUNet:
        """The ReLU net; ``normalise=True`` folds the header's normalisation in (module docstring)."""
        Ws = [list(map(list, W)) for W in self.weights]
        bs = [list(b) for b in self.biases]
        if normalise:
            Ws[0], bs[0] = _fold_input_normalisation(Ws[0], bs[0], self.means[:-1], self.ranges[:-1])
            Ws[-1], bs[-1] = _fold_output_denormalisation(Ws[-1], bs[-1], self.means[-1], self.ranges[-1])
        layers = []
        last = len(Ws) - 1
        for k, (W, b) in enumerate(zip(Ws, bs)):
            n_out, n_in = self.sizes[k + 1], self.sizes[k]
            layers.append(
                DenseLayer(from_rationals(W, (n_out, n_in)), from_rationals([[v] for v in b], (n_out, 1)),
                           "none" if k == last else "relu", input_dim=n_in, path=f"layers[{k}]")
            )
        return ReLUNet(self.sizes[0], layers)


def _fold_input_normalisation(W, b, means, ranges):
    """``W ((x - mu) / r) + b`` as ``W' x + b'``."""
    W2 = [[w / r for w, r in zip(row, ranges)] for row in W]
    b2 = [bi - sum((w * mu for w, mu in zip(row, means)), Q(0)) for row, bi in zip(W2, b)]
    return W2, b2


def _fold_output_denormalisation(W, b, mean, rng):
    """``r (W h + b) + mu`` as ``W'' h + b''``."""
    return [[rng * w for w in row] for row in W], [rng * bi + mean for bi in b]


class _Lines:
    """The data lines of a .nnet file with their line numbers, read one at a time."""

    def __init__(self, path: str, text: str | None = None):
        self.path = path
        if text is None:
            from ..fileformat.reading import read_bytes

            try:
                text = read_bytes(path).decode("utf-8")   # bounded: a device is refused
            except UnicodeDecodeError:
                raise InputError("expected a .nnet text file, got binary data", file=str(path)) from None
        # lines end at LF or CR LF; not splitlines(), which also breaks at U+2028, U+0085. A CR alone
        # ends a line for the format's Python readers (universal newlines), not for its C readers
        # (fgets): a comment "// ...\r2,2,2,2," hides the header from one and not the other
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            line = text.count("\n", 0, text.index("\r")) + 1
            raise InputError("expected lines ending in LF or CR LF, got a CR alone (a line break for some readers of "
                             ".nnet and not for others)", path=f"line {line}", file=str(path))
        raw = text.split("\n")
        self.lines = [(i + 1, t) for i, t in enumerate(raw) if t.strip(BLANKS) and not t.lstrip(BLANKS).startswith("//")]
        self.pos = 0

    def error(self, lineno, message) -> InputError:
        return InputError(message, path=f"line {lineno}", file=self.path)

    def next_fields(self, what: str) -> tuple[int, list[str]]:
        if self.pos >= len(self.lines):
            last = self.lines[-1][0] if self.lines else 0
            raise InputError(f"expected {what}, got the end of the file", path=f"line {last + 1}", file=self.path)
        lineno, text = self.lines[self.pos]
        self.pos += 1
        fields = [f.strip(BLANKS) for f in text.split(",")]   # ASCII blanks: a Unicode space is refused
        while fields and fields[-1] == "":
            fields.pop()
        return lineno, fields

    def numbers(self, what: str, count: int) -> list[Rational]:
        lineno, fields = self.next_fields(what)
        if len(fields) != count:
            raise self.error(lineno, f"expected {what}: {count} numbers, got {len(fields)}")
        try:
            return [number_from_text(f, path=f"line {lineno}, field {j + 1}") for j, f in enumerate(fields)]
        except InputError as err:
            raise err.in_file(self.path) from None

    def integers(self, what: str, count: int | None = None) -> list[int]:
        lineno, fields = self.next_fields(what)
        if count is not None and len(fields) != count:
            raise self.error(lineno, f"expected {what}: {count} integers, got {len(fields)}")
        values = []
        for j, f in enumerate(fields):
            try:
                values.append(integer_from_text(f, path=f"line {lineno}, field {j + 1}"))
            except LimitError as err:
                raise err.in_file(self.path) from None
            except InputError as err:
                raise InputError(f"expected {what} as integers, got {shown_text(f)}{why_not_ascii(f)}", path=err.path,
                                 file=self.path) from None
        if any(v < 0 for v in values):
            raise self.error(lineno, f"expected {what} to be non-negative, got {values}")
        return values


def load_nnet(path: str | os.PathLike, text: str | None = None) -> NNetFile:
    """Parse a ``.nnet`` file exactly; errors name the file and the line. ``text``, when given,
    is the file's text (``path`` then only names it)."""
    path = str(path)
    lines = _Lines(path, text)
    head_line = lines.lines[0][0] if lines.lines else 1
    n_layers, n_in, n_out, max_width = lines.integers("the header 'layers, inputs, outputs, max width'", 4)
    if n_layers < 1:
        raise lines.error(head_line, f"expected at least one layer, got {n_layers}")
    sizes_line = lines.lines[1][0] if len(lines.lines) > 1 else head_line + 1
    sizes = lines.integers(f"{n_layers + 1} layer sizes", n_layers + 1)
    if sizes[0] != n_in or sizes[-1] != n_out or min(sizes) < 1:
        raise lines.error(
            sizes_line, f"expected layer sizes starting with {n_in} inputs and ending with {n_out} outputs, all >= 1, got {sizes}"
        )
    if max_width != max(sizes):   # the format's C readers size their buffers by it
        raise lines.error(head_line, f"expected the header's max width to be the largest layer size {max(sizes)}, got "
                                     f"{max_width}")
    lines.next_fields("the symmetric flag")
    mins = lines.numbers("the input minimums", n_in)
    maxs = lines.numbers("the input maximums", n_in)
    means = lines.numbers("the input means and the output mean", n_in + 1)
    ranges_line = lines.lines[lines.pos][0] if lines.pos < len(lines.lines) else None
    ranges = lines.numbers("the input ranges and the output range", n_in + 1)
    if any(r == 0 for r in ranges):
        raise lines.error(ranges_line, "expected nonzero normalisation ranges, got a 0")
    for i, (lo, hi) in enumerate(zip(mins, maxs)):
        if lo > hi:
            raise InputError(f"expected input minimum <= maximum, got [{lo}, {hi}] for input {i + 1}", file=path)
    weights, biases = [], []
    for k in range(n_layers):
        W = [lines.numbers(f"row {i + 1} of the weights of layer {k + 1}", sizes[k]) for i in range(sizes[k + 1])]
        b = [lines.numbers(f"bias {i + 1} of layer {k + 1}", 1)[0] for i in range(sizes[k + 1])]
        weights.append(W)
        biases.append(b)
    if lines.pos < len(lines.lines):
        raise lines.error(lines.lines[lines.pos][0], "expected the end of the file after the last bias")
    return NNetFile(path, sizes, mins, maxs, means, ranges, weights, biases)


def read_nnet(path: str | os.PathLike, normalise: bool = False) -> ReLUNet:
    """The ReLU net of a ``.nnet`` file, exactly (see the module docstring).

    Hidden layers are ReLU, the last layer is affine (``"none"``). With
    ``normalise=True`` the net reads raw inputs and returns raw outputs.
    """
    return load_nnet(path).net(normalise=normalise)


def nnet_input_box(path: str | os.PathLike) -> Box:
    """The header's input box ``prod [min_i, max_i]`` in raw units."""
    return load_nnet(path).input_box()
