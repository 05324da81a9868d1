"""Float proposals of the engine (symrel.vnnlib.floatbounds): the LP behind the splits' betas."""

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from symrel.vnnlib import floatbounds  # noqa: E402


def _cases():
    rng = np.random.default_rng(7)
    for m in (1, 3, 8):
        for _ in range(5):
            yield rng.normal(size=5), rng.normal(size=(m, 5)), rng.normal(size=m), -np.ones(5), np.ones(5)
    # x_0 >= 2 on the unit box: infeasible
    yield np.ones(2), np.array([[-1.0, 0.0]]), np.array([-2.0]), np.zeros(2), np.ones(2)


@pytest.mark.parametrize("case", list(_cases()))
def test_box_lp_binding_and_linprog_agree(case, monkeypatch):
    """The direct HiGHS call and scipy's linprog (the fallback) give the same status, value
    and duals; a dual is <= 0 and the duals certify the value (weak duality: for y <= 0,
    min over the box of (c - G^T y) . x + h . y is a lower bound, here attained)."""
    if floatbounds._highs_binding() is None:
        pytest.skip("this scipy has no HiGHS binding to call directly")
    c, G, h, lo, hi = case
    fast = floatbounds._box_lp(c, G, h, lo, hi)
    monkeypatch.setattr(floatbounds, "_highs_binding", lambda: None)
    slow = floatbounds._box_lp(c, G, h, lo, hi)
    assert fast[0] == slow[0] and fast[0] in ("optimal", "infeasible")
    if fast[0] == "optimal":
        assert abs(fast[1] - slow[1]) <= 1e-9 * (1 + abs(slow[1]))
        y = fast[2]
        assert (y <= 1e-12).all()
        r = c - G.T @ y
        dual = float(np.minimum(r * lo, r * hi).sum() + h @ y)
        assert abs(dual - fast[1]) <= 1e-9 * (1 + abs(fast[1]))
