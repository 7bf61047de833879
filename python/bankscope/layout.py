"""Layouts as their users write them, mapped to per-lane byte offsets.

A Layout maps a logical index (row, col) to a physical element offset:

    padded(32, 32, row_stride=33)        tile[32][33] holding a 32x32 tile
    xor(32, 32, mask=31)                 tile[r][c ^ (r & 31)]
    Swizzle(3, 2, 6) @ padded(64, 64)    CuTe's Swizzle<B,M,S> on the element offset
    cute("(32,32):(33,1)")               CuTe layout notation, shape:stride
    cute("Sw<3,2,6> o (64,64):(64,1)")   a swizzle composed with a layout

Padding, XOR and the swizzle are evaluated by the C++ PhysicalLayout (sim/bank_math.hpp), the same
function the CUDA kernels use. A thread -> element mapping then gives each lane its byte offset:

    lane_offsets(layout, lambda lane: (lane, 0))      # lane i reads element (i, 0)
    column_read(layout, col=0), row_read(layout, row=0)
"""
from __future__ import annotations

import re
from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core

ElementMap = Union[Callable[[int], Tuple[int, int]], Sequence[Tuple[int, int]], np.ndarray]


class Swizzle:
    """CuTe's Swizzle<B, M, S>: XOR the B bits at position M+S into the B bits at position M.

    >>> Swizzle(5, 0, 5)(3 * 32 + 1) == 3 * 32 + (1 ^ 3)
    True
    """

    def __init__(self, bits: int, base: int, shift: int):
        for name, v in (("B", bits), ("M", base), ("S", shift)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"swizzle: {name}: expected an integer, got {type(v).__name__}")
        _core.swizzle_apply(int(bits), int(base), int(shift), [0])  # checks B, M, S with sim's messages
        self.bits, self.base, self.shift = int(bits), int(base), int(shift)

    def __call__(self, offset):
        out = _core.swizzle_apply(self.bits, self.base, self.shift, np.atleast_1d(np.asarray(offset, dtype=np.int64)))
        return int(out[0]) if np.ndim(offset) == 0 else out.reshape(np.shape(offset))

    def __matmul__(self, layout: "Layout") -> "Layout":
        if not isinstance(layout, Layout):
            return NotImplemented
        return layout.swizzled(self)

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"


def _parse_tuple(text: str, pos: int):
    """A CuTe int-tuple: an integer or a parenthesised, comma-separated list of int-tuples."""
    if text[pos] == "(":
        items = []
        pos += 1
        while True:
            item, pos = _parse_tuple(text, pos)
            items.append(item)
            if text[pos] == ",":
                pos += 1
            elif text[pos] == ")":
                return tuple(items), pos + 1
            else:
                raise ValueError(f"layout: column {pos + 1}: expected ',' or ')'")
    m = re.match(r"\d+", text[pos:])
    if not m:
        raise ValueError(f"layout: column {pos + 1}: expected an integer or '('")
    return int(m.group()), pos + len(m.group())


def _flatten(t):
    return [t] if isinstance(t, int) else [x for s in t for x in _flatten(s)]


def _mode_offset(coord: np.ndarray, shape, stride) -> np.ndarray:
    """Offset of a 1-D coordinate within one mode: colexicographic over a nested shape."""
    shapes, strides = _flatten(shape), _flatten(stride)
    out = np.zeros_like(coord)
    rest = coord.copy()
    for i, (s, d) in enumerate(zip(shapes, strides)):
        if i == len(shapes) - 1:
            out += rest * d  # the last sub-mode takes what is left (CuTe's convention)
        else:
            out += (rest % s) * d
            rest //= s
    return out


class Layout:
    """(row, col) -> physical element offset, with the element type that sizes it."""

    def __init__(self, rows: int, cols: int, *, row_stride: Optional[int] = None, xor_mask: int = 0,
                 swizzle: Optional[Swizzle] = None, dtype: str = "float", cute: Optional[tuple] = None,
                 text: str = ""):
        self.rows, self.cols = int(rows), int(cols)
        self.row_stride = int(row_stride) if row_stride is not None else self.cols
        self.xor_mask = int(xor_mask)
        self.swizzle = swizzle or Swizzle(0, 0, 0)
        self.dtype = dtype
        self.elem_bytes = _core.element_size(dtype)
        self._cute = cute  # (shape, stride) of a CuTe layout, or None for a padded/XOR layout
        self._text = text
        if cute is None:
            # make_shared_array's checks: stride >= cols, XOR/swizzle a permutation, size limit.
            _core.check_shared_array(dtype, self.rows, self.cols, self.row_stride, self.xor_mask,
                                     self.swizzle.bits, self.swizzle.base, self.swizzle.shift)

    def swizzled(self, s: Swizzle) -> "Layout":
        if self.swizzle.bits:
            raise ValueError("layout: already swizzled (compose one swizzle with a layout)")
        return Layout(self.rows, self.cols, row_stride=self.row_stride, xor_mask=self.xor_mask, swizzle=s,
                      dtype=self.dtype, cute=self._cute, text=self._text)

    def with_dtype(self, dtype: str) -> "Layout":
        return Layout(self.rows, self.cols, row_stride=self.row_stride, xor_mask=self.xor_mask,
                      swizzle=self.swizzle, dtype=dtype, cute=self._cute, text=self._text)

    def offset(self, row, col):
        """Logical (row, col) -> physical element offset (scalars or arrays)."""
        r = np.atleast_1d(np.asarray(row, dtype=np.int64))
        c = np.atleast_1d(np.asarray(col, dtype=np.int64))
        r, c = np.broadcast_arrays(r, c)
        if r.size and (r.min() < 0 or r.max() >= self.rows or c.min() < 0 or c.max() >= self.cols):
            i = int(np.argmax((r < 0) | (r >= self.rows) | (c < 0) | (c >= self.cols)))
            raise ValueError(f"element [{int(r.flat[i])}][{int(c.flat[i])}] is outside the "
                             f"{self.rows} x {self.cols} tile")
        if self._cute is None:
            out = _core.physical_offsets(self.row_stride, self.xor_mask, self.swizzle.bits, self.swizzle.base,
                                         self.swizzle.shift, r.ravel(), c.ravel())
        else:
            shape, stride = self._cute
            lin = _mode_offset(r.ravel(), shape[0], stride[0]) + _mode_offset(c.ravel(), shape[1], stride[1])
            out = self.swizzle(lin) if self.swizzle.bits else lin
        out = np.asarray(out).reshape(r.shape)
        return int(out.flat[0]) if np.ndim(row) == 0 and np.ndim(col) == 0 else out

    def byte_offset(self, row, col):
        return self.offset(row, col) * self.elem_bytes

    def __repr__(self) -> str:
        if self._cute is not None:
            s = self._text
        else:
            s = f"{self.dtype} tile[{self.rows}][{self.row_stride}]"
            if self.xor_mask:
                s += f" col ^ (row & {self.xor_mask})"
        if self.swizzle.bits and self._cute is None:
            s = f"{self.swizzle!r} o {s}"
        return f"Layout({s})"


def padded(rows: int, cols: int, row_stride: Optional[int] = None, dtype: str = "float") -> Layout:
    """A [rows][cols] tile whose rows are row_stride elements apart (tile[32][33]: row_stride 33)."""
    return Layout(rows, cols, row_stride=row_stride, dtype=dtype)


def xor(rows: int, cols: int, mask: int, row_stride: Optional[int] = None, dtype: str = "float") -> Layout:
    """The hand-written XOR swizzle: element (r, c) stored at column c ^ (r & mask)."""
    return Layout(rows, cols, row_stride=row_stride, xor_mask=mask, dtype=dtype)


def cute(text: str, dtype: str = "float") -> Layout:
    """A layout in CuTe notation: "(32,32):(33,1)", nested modes "((8,4),32):((4,1),32)", or a
    swizzle composed with one: "Sw<3,2,6> o (64,64):(64,1)". Mode 0 is the row, mode 1 the column.

    >>> cute("(32,32):(33,1)").offset(1, 0)
    33
    """
    if not isinstance(text, str):
        raise TypeError(f"layout: expected a string, got {type(text).__name__}")
    s = text.replace(" ", "")
    swz = None
    m = re.match(r"Sw(?:izzle)?<(\d+),(\d+),(\d+)>(?:o|\*|∘)", s)
    if m:
        swz = Swizzle(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        s = s[m.end():]
    try:
        shape, pos = _parse_tuple(s, 0)
        if pos >= len(s) or s[pos] != ":":
            raise ValueError(f"layout: '{text}': expected shape:stride, e.g. (32,32):(33,1)")
        stride, pos = _parse_tuple(s, pos + 1)
    except IndexError:
        raise ValueError(f"layout: '{text}' ends early; expected shape:stride, e.g. (32,32):(33,1)") from None
    if pos != len(s):
        raise ValueError(f"layout: '{text}': unexpected '{s[pos:]}' after the layout")
    if isinstance(shape, int) or len(shape) != 2:
        raise ValueError(f"layout: '{text}': expected two modes (rows, cols)")
    for a, b in zip(shape, stride if not isinstance(stride, int) else (stride,)):
        if len(_flatten(a)) != len(_flatten(b)):
            raise ValueError(f"layout: '{text}': shape and stride do not match")
    if isinstance(stride, int) or len(stride) != 2:
        raise ValueError(f"layout: '{text}': shape and stride do not match")
    rows, cols = int(np.prod(_flatten(shape[0]))), int(np.prod(_flatten(shape[1])))
    if any(x <= 0 for x in _flatten(shape)):
        raise ValueError(f"layout: '{text}': every extent must be positive")
    # A plain row-major (R,C):(S,1) is the padded tile[R][S]: let sim/ check it and draw it.
    if isinstance(shape[0], int) and isinstance(shape[1], int) and stride[1] == 1 and stride[0] >= cols:
        lay = Layout(rows, cols, row_stride=stride[0], dtype=dtype)
        return lay.swizzled(swz) if swz else lay
    lay = Layout(rows, cols, cute=(shape, stride), dtype=dtype, text=text)
    return lay.swizzled(swz) if swz else lay


def _elements(mapping: ElementMap) -> np.ndarray:
    if callable(mapping):
        pairs = [mapping(lane) for lane in range(32)]
    else:
        pairs = mapping
    a = np.asarray(pairs)
    if a.dtype == object or a.dtype.kind not in "iu":
        raise TypeError(f"elements: expected 32 (row, col) integer pairs, got {a.dtype}")
    if a.shape != (32, 2):
        raise ValueError(f"elements: expected 32 (row, col) pairs, got shape {a.shape}")
    return a.astype(np.int64)


def lane_offsets(layout: Layout, mapping: ElementMap) -> list:
    """Byte offsets of the 32 lanes: lane -> (row, col) through `mapping`, then through the layout.

    mapping: a function lane -> (row, col), or 32 (row, col) pairs.
    """
    e = _elements(mapping)
    return [int(x) for x in layout.byte_offset(e[:, 0], e[:, 1])]


def column_read(layout: Layout, col: int = 0) -> list:
    """Lane i touches element (i, col): the transposed read of the seed lesson."""
    return lane_offsets(layout, lambda lane: (lane, col))


def row_read(layout: Layout, row: int = 0) -> list:
    """Lane i touches element (row, i): the coalesced row write."""
    return lane_offsets(layout, lambda lane: (row, lane))
