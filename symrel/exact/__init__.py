"""The exact-arithmetic layer every other part of symrel builds on.

Numbers are elements of the rational field ``Q`` of sympy's ground type (python-flint's
``fmpq`` or gmpy2's ``mpq``, used directly without loading sympy; sympy's ``PythonMPQ``
otherwise), matrices are the dense :class:`~symrel.exact.matrices.Matrix` over ``Q``
(flint's ``fmpq_mat`` underneath when it pays). Numbers become sympy ``Rational`` only
where they leave the library (:mod:`symrel.exact.public`). No other module of symrel
parses numbers or builds matrices by itself.

The names below are imported from their module on first use (PEP 562): a module that
needs rationals loads :mod:`symrel.exact.numbers` (the field) and, to read them from user
data, :mod:`symrel.exact.number_text` (the one number grammar), not the LP solvers. (The exact
simplex is :func:`symrel.exact.exact_simplex.exact_simplex`: ``symrel.exact.exact_simplex``
names its module.)

>>> from symrel.exact import rational
>>> rational.__module__
'symrel.exact.number_text'
"""

from ..lazy_names import lazy_names

#: the public names of the package and the submodule each comes from
_FROM = {
    **dict.fromkeys(["DEFAULT_LIMITS", "FloatLiteral", "GROUND_TYPES", "NumberLimits", "ONE", "Q", "Rational", "ZERO",
                     "ceil", "denominator", "floor", "format_rational", "is_integral",
                     "number_limits", "numerator", "rational_str", "sign",
                     "to_float", "to_fraction", "to_sympy"],
                    "numbers"),
    **dict.fromkeys(["integer_from_text", "is_rational_text", "json_float", "not_a_number", "number_from_text", "rational",
                     "rational_ints", "rationals", "shown_text", "why_not_ascii"], "number_text"),
    **dict.fromkeys(["Matrix", "SingularMatrixError", "affine_batch", "column", "columns", "dot", "entry", "flat",
                     "format_matrix", "format_vector", "from_columns", "from_rationals", "hstack", "identity", "is_zero",
                     "matrix", "nonzeros", "ones", "rows", "scale", "sparse_columns", "sparse_rows", "vector",
                     "vstack", "zeros"],
                    "matrices"),
    **dict.fromkeys(["AffineForm", "Row", "linear_combination", "matrix_image"], "forms"),
    **dict.fromkeys(["affine_range_on_box", "ground_types"], "bounds"),
    **dict.fromkeys(["LPResult", "is_farkas", "is_witness"], "lp_certificates"),   # checking an LP's answer
    "feasibility": "lp",
    **dict.fromkeys(["Public", "PublicView", "inner", "public_matrix", "public_view", "to_public"], "public"),
}

__all__ = sorted(_FROM)

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())
