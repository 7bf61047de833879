"""python/examples/seed_lesson.ipynb runs headless (nbclient) and reproduces the seed lesson."""
import json
import math

import nbformat
import pytest
from nbclient import NotebookClient


def test_seed_lesson_notebook(repo):
    nb = nbformat.read(repo / "python/examples/seed_lesson.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(repo)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    summary = json.loads(text.split("SUMMARY ", 1)[1].splitlines()[0])
    assert summary["wavefronts_32x32"] == 32 and summary["wavefronts_32x33"] == 1
    assert summary["float_staircase"] == [math.gcd(s, 32) for s in range(1, 17)]
    assert summary["launch_ld"]["seed_transpose_32x32"]["wavefronts"] == 4194304
    assert summary["launch_ld"]["seed_transpose_32x33"]["wavefronts"] == 131072
    # The pictures rendered inline: SVG outputs from the bank views, tile view and sweep; one PNG figure.
    svgs = [o for c in nb.cells for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {})]
    pngs = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(svgs) == 4 and len(pngs) == 1
    assert "32 wavefronts (ideal 1)" in svgs[0]["data"]["image/svg+xml"]
