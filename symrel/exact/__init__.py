"""The exact-arithmetic layer every other part of symrel builds on.

Numbers are elements of sympy's rational field ``QQ`` (gmpy2 or python-flint
underneath when installed), matrices are dense ``DomainMatrix`` over ``QQ``.
No other module of symrel parses numbers or builds matrices by itself.
"""

from .numbers import (
    DEFAULT_LIMITS,
    FloatLiteral,
    ONE,
    ZERO,
    NumberLimits,
    Q,
    Rational,
    ceil,
    denominator,
    floor,
    format_rational,
    is_integral,
    is_rational_text,
    number_limits,
    numerator,
    rational,
    rational_ints,
    rational_str,
    rationals,
    sign,
    to_float,
    to_fraction,
    to_sympy,
)
from .matrices import (
    Matrix,
    affine_batch,
    column,
    columns,
    dot,
    entry,
    flat,
    format_matrix,
    format_vector,
    from_columns,
    from_rationals,
    hstack,
    identity,
    is_zero,
    matrix,
    nonzeros,
    ones,
    rows,
    scale,
    sparse_columns,
    sparse_rows,
    vector,
    vstack,
    zeros,
)
from .forms import AffineForm, Row, linear_combination, matrix_image
from .bounds import affine_range_on_box, ground_types
from .lp import LPResult, exact_simplex, feasibility, is_farkas, is_witness
from .public import Public, PublicView, inner, public_matrix, public_view, to_public

__all__ = [name for name in dir() if not name.startswith("_")]
