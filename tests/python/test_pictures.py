"""The SVG drawings (from app/svg/) and their matplotlib variants, checked by counting elements."""
import math
import xml.etree.ElementTree as ET

import matplotlib
import pytest

matplotlib.use("Agg")
import bankscope as bs  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"


def rects_with_title(svg, prefix):
    root = ET.fromstring(svg)
    return [r for r in root.iter(NS + "rect") if (r.findtext(NS + "title") or "").startswith(prefix)]


def test_bank_view_seed_pair():
    a = bs.bank_view([128 * i for i in range(32)], title="tile[32][32]")
    b = bs.bank_view([132 * i for i in range(32)])
    words_a = rects_with_title(a._repr_svg_(), "bank ")
    words_b = rects_with_title(b.svg, "bank ")
    assert len(words_a) == 32 and all(w.findtext(NS + "title").startswith("bank 0,") for w in words_a)
    assert len(words_b) == 32 and len({w.findtext(NS + "title").split(",")[0] for w in words_b}) == 32
    assert "32 wavefronts (ideal 1), 31 bank conflicts, 32-way" in a.svg
    assert "1 wavefront (ideal 1), 0 bank conflicts, 1-way" in b.svg
    assert "tile[32][32]" in a.svg


def test_bank_view_marks_inactive_lanes_and_escapes_titles():
    v = bs.bank_view([0] * 32, mask=0x1, title="<a & b>")
    assert len(rects_with_title(v.svg, "lane ")) == 32
    assert len([r for r in rects_with_title(v.svg, "lane ") if "inactive" in r.findtext(NS + "title")]) == 31
    assert "&lt;a &amp; b&gt;" in v.svg


def test_report_renders_inline():
    assert bs.simulate([0] * 32)._repr_svg_().startswith("<svg")


def test_tile_view_padding_cells():
    v = bs.tile_view(bs.padded(32, 32, row_stride=33))
    assert len(rects_with_title(v.svg, "offset ") ) == 32 * 33
    assert len([r for r in rects_with_title(v.svg, "offset ") if "padding" in r.findtext(NS + "title")]) == 32
    assert len(rects_with_title(v.svg, "lane ")) == 64  # each lane outlined in both views
    x = bs.tile_view(bs.xor(32, 32, 31))
    assert ": padding</title>" not in x.svg


def test_tile_view_errors():
    with pytest.raises(ValueError, match="more than the 128 x 256"):
        bs.tile_view(bs.padded(8, 300))
    with pytest.raises(ValueError, match="tile view: needs"):
        bs.tile_view(bs.cute("(32,32):(1,32)"))


def test_stride_sweep_staircase():
    s = bs.stride_sweep(["float", "double", "float4", "char"])
    assert s.wavefronts["float"].tolist() == [math.gcd(k, 32) for k in range(1, 129)]
    # double: lane i reads 8 bytes at 8*i*k; per half-warp, gcd(k, 16) lanes per bank pair, x2 halves.
    assert s.wavefronts["double"][:4].tolist() == [2, 4, 2, 8]
    assert s.wavefronts["float4"][0] == 4 and s.wavefronts["char"][0] == 1
    root = ET.fromstring(s.svg)
    assert len(list(root.iter(NS + "polyline"))) == 4


def test_figures():
    import matplotlib.figure
    for obj in (bs.stride_sweep(), bs.bank_view([128 * i for i in range(32)]), bs.tile_view(bs.padded(32, 32, 33))):
        assert isinstance(obj.figure(), matplotlib.figure.Figure)


def test_save(tmp_path):
    bs.stride_sweep().save(tmp_path / "s.svg")
    assert (tmp_path / "s.svg").read_text().startswith("<svg")
    bs.stride_sweep().save(tmp_path / "s.png")
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
