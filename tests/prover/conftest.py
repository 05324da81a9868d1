import pytest

from symrel.errors import UndecidedError


@pytest.fixture
def without_complete_procedure(monkeypatch):
    """The complete decision procedure gives up at once (as at its cell limit), so a test
    sees the layer-by-layer prover alone."""
    def gives_up(*args, **kwargs):
        raise UndecidedError("cell limit reached")

    monkeypatch.setattr("symrel.prover.equivalence.decide_equivalence", gives_up)
