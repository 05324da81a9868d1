"""Drawing a preorder (needs matplotlib, imported lazily): the Hasse diagram with each
indifference class as a box of its members, placed at the height of its utility
(the Debreu utility of a complete preorder, else the Richter-Peleg level), edges
for the covering relation between classes.
"""

from __future__ import annotations

from .preorder import Preorder


def class_levels(P: Preorder) -> tuple[dict, str]:
    """``({condensation node: level}, what the level is)``: the Debreu utility when the
    preorder is complete, otherwise the Richter-Peleg level (longest chain below)."""
    from .utility import debreu_utility, richter_peleg_utility

    complete = P.is_complete()
    u = (debreu_utility(P) if complete else richter_peleg_utility(P)).utility
    mapping = P.condensation.graph["mapping"]
    levels = {mapping[x]: v for x, v in u.items()}
    return levels, ("utility u (Debreu)" if complete else "Richter-Peleg level")


def draw_preorder(P: Preorder, path, *, title: str | None = None, max_names: int = 6) -> None:
    """Write a PNG (or any format matplotlib knows from the suffix) of the Hasse
    diagram of ``P``, classes as boxes at the height of their utility."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..exact import rational_str, to_float

    P.check_preorder()
    H = P.hasse_diagram()
    levels, label = class_levels(P)
    by_level: dict = {}
    for A in H:
        by_level.setdefault(levels[A], []).append(A)
    position = {}
    for level, nodes in by_level.items():
        for i, A in enumerate(sorted(nodes, key=lambda A: H.nodes[A]["members"][0] if H.nodes[A]["members"] else "")):
            position[A] = (i - (len(nodes) - 1) / 2, to_float(level))  # floats: drawing only
    width = max(len(v) for v in by_level.values())
    fig, ax = plt.subplots(figsize=(max(5.5, 2.2 * width), max(3, 0.9 * len(by_level) + 1.5)))
    for A, B in H.edges:
        (x0, y0), (x1, y1) = position[A], position[B]
        ax.annotate("", xy=(x1, y1 - 0.18), xytext=(x0, y0 + 0.18),
                    arrowprops={"arrowstyle": "->", "color": "0.4", "lw": 1})
    for A, (x, y) in position.items():
        names = [str(m) for m in H.nodes[A]["members"]]
        text = ", ".join(names[:max_names]) + (f", ... (+{len(names) - max_names})" if len(names) > max_names else "")
        ax.text(x, y, text, ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round,pad=0.4", "fc": "#e8f0fe" if len(names) > 1 else "white", "ec": "#3465a4"})
    ax.set_xlim(-width / 2 - 0.5, width / 2 + 0.5)
    ys = [y for _, y in position.values()]
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_yticks([to_float(v) for v in sorted(by_level)], [rational_str(v) for v in sorted(by_level)])
    ax.set_xticks([])
    ax.set_ylabel(label)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"Hasse diagram: {len(P)} elements, {H.number_of_nodes()} indifference classes", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
