"""The lattice and Wang-Sun sizes of a mesh side by side: a Wang-Sun form that differs
from f is reported as a symrel bug (not a bare assert); a budget that runs out leaves
the lattice sizes and says the Wang-Sun size was not computed."""

import pytest

from symrel.budget import Budget
from symrel.compiler import cpwl_form_sizes as sizes_module
from symrel.compiler.cpwl_form_sizes import cpwl_form_sizes
from symrel.errors import InternalError, SymrelError
from symrel.models import CPWLMesh

PYRAMID = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
                   [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]], [[0], [0], [0], [0], [1]])


def test_a_wrong_wang_sun_form_is_an_internal_error(monkeypatch):
    from symrel.exact import Q

    monkeypatch.setattr(sizes_module, "wang_sun_mismatch", lambda f, forms, tick=None: (4, 0, Q(1), Q(2)))
    with pytest.raises(InternalError, match="internal error .* output 0 is 2 at vertex 4, where f is 1") as err:
        cpwl_form_sizes(PYRAMID)
    assert isinstance(err.value, SymrelError) and not isinstance(err.value, AssertionError)


def test_budget_keeps_the_lattice_sizes():
    out = cpwl_form_sizes(PYRAMID, budget=Budget(timeout=0))
    assert out["lattice form"]["reduced"] == {"terms": 1, "pieces": 4}
    assert "time limit of 0 s reached" in out["Wang-Sun form"]["not computed within the budget"]
    assert cpwl_form_sizes(PYRAMID, budget=Budget(timeout=60))["Wang-Sun form"]["terms"] == 11
