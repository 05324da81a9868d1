import base64
from html.parser import HTMLParser

from symrel.report import Instance, Outcome, Statement, render_outcome, render_proof
from symrel.report.html import html_text

from .hand_built_proofs import proved, refuted  # noqa: F401  (fixtures)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.images, self.errors = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))
        elif tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def test_well_formed_and_self_contained(proved):
    page = render_proof(proved, "html")
    parser = _Tags()
    parser.feed(page)
    assert parser.errors == [] and parser.stack == []
    assert "<link" not in page and "<script src" not in page  # nothing fetched from elsewhere
    assert page.count('class="step proved"') == 3


def test_fractions_and_escaping():
    assert html_text("a < 1/2") == 'a &lt; <span class="frac"><sup>1</sup>&frasl;<sub>2</sub></span>'


def test_plots_embedded_as_base64(proved):
    png = b"\x89PNG\r\n\x1a\nfake"
    st = Statement("k", "A", "Theorem 4.4", "regions", "paper", "symrel", "narrowing")
    page = render_outcome(Outcome(st, [Instance("one", proved, figures=[("the regions", png)])]), "html")
    assert f"data:image/png;base64,{base64.b64encode(png).decode()}" in page
    assert "<figcaption>the regions</figcaption>" in page


def test_counterexample_shown(refuted):
    page = render_proof(refuted, "html")
    assert "Counterexample" in page and "&minus;<sup>7</sup>&frasl;<sub>4</sub>" in page


def test_powers_of_ten_in_denominators():
    assert html_text("1/10^6") == '<span class="frac"><sup>1</sup>&frasl;<sub>10<sup>6</sup></sub></span>'
