"""The HTML report as a browser shows it: a headless Chromium screenshot (skipped
without Chromium; Debian package ``chromium``). The page must draw text, offline."""

import shutil
import subprocess

import pytest

from .hand_built_proofs import refuted  # noqa: F401  (fixture)

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_html_report_renders_offline(refuted, tmp_path):
    from symrel.report import render_proof

    page = tmp_path / "r.html"
    page.write_text(render_proof(refuted, "html"))
    png = tmp_path / "r.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=900,900", f"--screenshot={png}", page.as_uri()],
                   capture_output=True, timeout=120, check=False)
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG")
    assert len(data) > 15000  # a blank page is about 8 kB; text and MathML make it larger
