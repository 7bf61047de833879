"""Pictures: the bank view, the tile views and the stride sweep.

Each object renders inline in Jupyter through _repr_svg_ (the SVG comes from the C++ drawing
library app/svg/, the same drawings as the CLI's vector export), .svg is the text, .save(path)
writes it, and .figure() draws the same data with matplotlib.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import _core
from ._warp import FULL_MASK, _pattern, simulate
from .layout import Layout, _elements


class _Svg:
    svg: str

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path) -> None:
        """Writes the SVG (or, for a path ending in .png, the matplotlib figure)."""
        if str(path).lower().endswith(".png"):
            self.figure().savefig(path, dpi=120, bbox_inches="tight")
            return
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)


class BankView(_Svg):
    """Lanes -> banks -> words of one warp instruction, coloured by wavefront."""

    def __init__(self, pattern: dict, title: str = ""):
        self.pattern = pattern
        self.title = title
        self.svg = _core.bank_view_svg(pattern, title)
        self.report = simulate(pattern["offsets"], pattern["width"], pattern["op"], pattern["mask"])

    def figure(self):
        import matplotlib.pyplot as plt
        r = self.report
        fig, ax = plt.subplots(figsize=(11, 3 + 0.25 * max(len(w) for w in r.bank_words)))
        cmap = plt.get_cmap("viridis")
        nwf = max(r.wavefronts, 1)
        for lane in r.lanes:
            x = lane["lane"]
            if not lane["active"]:
                ax.add_patch(plt.Rectangle((x, 1.5), 0.9, 0.8, fill=False, hatch="//", ec="grey"))
                continue
            col = cmap(lane["wavefront"] / max(nwf - 1, 1))
            ax.add_patch(plt.Rectangle((x, 1.5), 0.9, 0.8, color=col))
            for b in lane["banks"]:
                ax.plot([x + 0.45, b + 0.45], [1.5, 0.9], color=col, lw=0.8, alpha=0.7)
        for b, words in enumerate(r.bank_words):
            for i, w in enumerate(words):
                wf = next((k for k, d in enumerate(r.wavefront_details) if [b, w] in [list(p) for p in d["words"]]), 0)
                ax.add_patch(plt.Rectangle((b, 0.0 - i), 0.9, 0.8, color=cmap(wf / max(nwf - 1, 1)),
                                           ls="--" if i else "-", ec="black"))
                ax.text(b + 0.45, 0.35 - i, str(w), ha="center", va="center", fontsize=6,
                        color="black" if wf / max(nwf - 1, 1) > 0.6 else "white")
        depth = max(len(w) for w in r.bank_words)
        ax.set_xlim(-0.5, 32.5)
        ax.set_ylim(-depth + 0.5, 2.6)
        ax.set_yticks([1.9, 0.4])
        ax.set_yticklabels(["lanes", "banks: words"])
        ax.set_xticks(range(0, 32, 4))
        ax.set_title(self.title or f"{r.wavefronts} wavefront(s), {r.bank_conflicts} bank conflict(s), {r.n_way}-way")
        return fig


class TileView(_Svg):
    """The logical tile and its physical layout, cells coloured by bank, the warp's elements outlined."""

    def __init__(self, layout: Layout, elements, title: str = ""):
        if layout._cute is not None:
            raise ValueError("tile view: needs a padded, XOR or swizzled row-major layout "
                             "(a CuTe layout (R,C):(S,1) is one)")
        e = _elements(elements)
        self.layout = layout
        self.elements = e
        self.title = title
        self.svg = _core.tile_views_svg(layout.dtype, layout.rows, layout.cols, layout.row_stride, layout.xor_mask,
                                        layout.swizzle.bits, layout.swizzle.base, layout.swizzle.shift,
                                        [tuple(int(v) for v in p) for p in e], title)

    def figure(self):
        import matplotlib.pyplot as plt
        lay = self.layout
        r, c = np.meshgrid(np.arange(lay.rows), np.arange(lay.cols), indexing="ij")
        off = lay.offset(r, c)
        bank = (off * lay.elem_bytes // 4) % 32
        phys = np.full((lay.rows, lay.row_stride), np.nan)
        phys.flat[off.ravel()] = bank.ravel()
        fig, (a, b) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [lay.cols, lay.row_stride]})
        a.imshow(bank, cmap="hsv", vmin=0, vmax=32)
        b.imshow(phys, cmap="hsv", vmin=0, vmax=32)
        for lane, (rr, cc) in enumerate(self.elements):
            a.add_patch(plt.Rectangle((cc - 0.5, rr - 0.5), 1, 1, fill=False, ec="black", lw=1.5))
            o = int(lay.offset(int(rr), int(cc)))
            b.add_patch(plt.Rectangle((o % lay.row_stride - 0.5, o // lay.row_stride - 0.5), 1, 1, fill=False,
                                      ec="black", lw=1.5))
        a.set_title(f"logical {lay.rows} x {lay.cols} (colour = bank)")
        b.set_title(f"physical {lay!r} (blank = padding)")
        if self.title:
            fig.suptitle(self.title)
        return fig


class StrideSweep(_Svg):
    """Wavefronts per warp instruction against the row stride, for a column read (lane i reads
    element (i, 0) of a tile whose rows are `stride` elements apart), per element type."""

    def __init__(self, types: Sequence[str] = ("float",), max_stride: int = 128, op: str = "ld", title: str = ""):
        if isinstance(types, str):
            types = (types,)
        if not isinstance(max_stride, (int, np.integer)) or isinstance(max_stride, bool):
            raise TypeError(f"max_stride: expected an integer, got {type(max_stride).__name__}")
        self.strides = np.arange(1, int(max_stride) + 1)
        self.wavefronts = {}
        series = []
        for t in types:
            wf = _core.stride_sweep(t, int(max_stride), op)
            label = f"{t} ({_core.element_size(t)} B)"
            self.wavefronts[t] = np.array(wf, dtype=np.int32)
            series.append((label, self.strides.tolist(), wf))
        self.title = title or "column read: wavefronts per instruction vs row stride"
        self.svg = _core.sweep_svg(series, self.title)

    def figure(self):
        import matplotlib.pyplot as plt
        n = len(self.wavefronts)
        fig, axes = plt.subplots(n, 1, figsize=(9, 1.9 * n + 0.8), sharex=True, squeeze=False)
        styles = ["-", "--", ":", "-."]
        cmap = plt.get_cmap("viridis")
        for k, ((t, wf), ax) in enumerate(zip(self.wavefronts.items(), axes[:, 0])):
            ax.step(self.strides, wf, where="mid", ls=styles[k % 4], color=cmap(0.8 * k / max(n - 1, 1)), lw=1.6)
            ax.set_yscale("log", base=2)
            ax.set_yticks([1, 2, 4, 8, 16, 32])
            ax.set_yticklabels(["1", "2", "4", "8", "16", "32"])
            ax.set_title(f"{t} ({_core.element_size(t)} B)", loc="left", fontsize=10)
            ax.grid(alpha=0.3)
        axes[-1, 0].set_xlabel("row stride (elements); lane i reads element (i, 0)")
        fig.supylabel("wavefronts per warp instruction")
        fig.suptitle(self.title)
        fig.tight_layout()
        return fig


def bank_view(offsets, width: int = 4, op: str = "ld", mask: int = FULL_MASK, title: str = "") -> BankView:
    """The bank view of one warp instruction (arguments as cost())."""
    return BankView(_pattern(offsets, width, op, mask), title)


def tile_view(layout: Layout, elements=None, title: str = "") -> TileView:
    """Logical and physical tile; elements: lane -> (row, col) (default: the column read of column 0)."""
    if elements is None:
        elements = lambda lane: (lane % layout.rows, 0)  # noqa: E731
    return TileView(layout, elements, title)


def stride_sweep(types: Sequence[str] = ("float",), max_stride: int = 128, op: str = "ld",
                 title: str = "") -> StrideSweep:
    """The stride staircase: for float, gcd(stride, 32) wavefronts per column read."""
    return StrideSweep(types, max_stride, op, title)
