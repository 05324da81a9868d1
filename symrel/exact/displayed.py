"""The mixin :class:`Displayed`: an object that describes itself as a
:class:`~symrel.exact.display.Card` gets a short ``repr`` and the notebook displays from it.

The mixin is kept apart from :mod:`symrel.exact.display` (the cards, number texts and
LaTeX) and imports it when an object is first shown: the models inherit from it, and a
certificate check, which shows nothing, then loads none of the display code
(docs/trust.md).

>>> from symrel.exact.display import Card
>>> class Pair(Displayed):
...     def _card(self):
...         return Card("a pair", [("first", 1)])
>>> Pair()
<Pair: a pair>
"""

from __future__ import annotations


class Displayed:
    """Mixin: ``_card()`` (a :class:`~symrel.exact.display.Card`) and ``_summary()`` (a short
    line) give the ``repr`` and the notebook displays."""

    def _card(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _summary(self) -> str:
        return self._card().title

    def __repr__(self) -> str:
        from .display import REPR_LIMIT, short_text

        return short_text(f"<{type(self).__name__}: {self._summary()}>", REPR_LIMIT)

    def _repr_markdown_(self) -> str:
        return self._card().markdown()

    def _repr_html_(self) -> str:
        return self._card().html()

    def _repr_latex_(self) -> str:
        return self._card().latex()
