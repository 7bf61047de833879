"""Layouts (padding, XOR, Swizzle, CuTe notation) -> per-lane byte offsets -> the model."""
import math

import numpy as np
import pytest

import bankscope as bs


def test_padded_offsets_and_column_read():
    lay = bs.padded(32, 32, row_stride=33)
    assert lay.offset(1, 0) == 33 and lay.offset(31, 31) == 31 * 33 + 31
    assert bs.column_read(lay)[:3] == [0, 132, 264]
    assert bs.cost(bs.column_read(lay)).wavefronts == 1
    assert bs.cost(bs.column_read(bs.padded(32, 32))).wavefronts == 32


def test_xor_layout_spreads_a_column():
    lay = bs.xor(32, 32, mask=31)
    assert lay.offset(5, 0) == 5 * 32 + 5
    assert bs.cost(bs.column_read(lay, col=7)).wavefronts == 1
    assert bs.cost(bs.row_read(lay, row=3)).wavefronts == 1


def test_swizzle_matches_cute_definition():
    s = bs.Swizzle(5, 0, 5)
    assert s(3 * 32 + 1) == 3 * 32 + (1 ^ 3)
    assert s(np.array([0, 33])).tolist() == [0, 32]
    # Swizzle<3,2,6> of the fast transpose: element 64*r + c of a 64x64 float tile.
    lay = bs.Swizzle(3, 2, 6) @ bs.padded(64, 64)
    # Bits 8..10 of the offset are XORed into bits 2..4: row 4 (offset 256) -> 256 ^ 4.
    assert lay.offset(1, 0) == 64 and lay.offset(4, 0) == 256 ^ 4 and lay.offset(12, 5) == 768 + (5 ^ 12)


def test_cute_notation():
    assert bs.cute("(32,32):(33,1)").offset(2, 3) == 69
    assert bs.cute("(32,32):(1,32)").offset(2, 3) == 98          # column-major
    nested = bs.cute("((8,4),32):((4,1),33)")                       # row r = r0 + 8*r1 -> 4*r0 + r1
    assert nested.offset(9, 0) == 4 * 1 + 1
    sw = bs.cute("Sw<3,2,6> o (64,64):(64,1)")
    assert sw.offset(1, 0) == (bs.Swizzle(3, 2, 6) @ bs.padded(64, 64)).offset(1, 0)


@pytest.mark.parametrize("stride", [32, 33, 34, 36, 40, 48, 64])
def test_cute_and_padded_agree(stride):
    a = bs.column_read(bs.cute(f"(32,32):({stride},1)"))
    b = bs.column_read(bs.padded(32, 32, row_stride=stride))
    assert a == b and bs.cost(a).wavefronts == math.gcd(stride, 32)


def test_double_tile_and_thread_mapping():
    lay = bs.padded(32, 32, row_stride=32, dtype="double")
    offs = bs.lane_offsets(lay, lambda lane: (lane, 0))
    assert offs[1] == 256
    assert bs.cost(offs, width=8).wavefronts == 32  # 16 distinct words in one bank pair per half


@pytest.mark.parametrize("text,message", [
    ("(32,32)", "expected shape:stride"),
    ("(32,32):(33,", "ends early"),
    ("(32,32):(33,1)x", "unexpected 'x'"),
    ("(32,32,2):(1,32,1024)", "expected two modes"),
    ("(32,32):((1,2),32)", "do not match"),
    ("(0,32):(32,1)", "must be positive"),
])
def test_cute_errors(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        bs.cute(text)


def test_layout_errors_carry_sims_messages():
    with pytest.raises(ValueError, match="row_stride: 31 is smaller than the row length 32"):
        bs.padded(32, 32, row_stride=31)
    with pytest.raises(ValueError, match="needs S >= B"):
        bs.Swizzle(3, 0, 2)
    with pytest.raises(ValueError, match="unknown element type 'quad'"):
        bs.padded(4, 4, dtype="quad")
    with pytest.raises(ValueError, match=r"element \[32\]\[0\] is outside the 32 x 32 tile"):
        bs.lane_offsets(bs.padded(32, 32), lambda lane: (lane + 1, 0))
    with pytest.raises(ValueError, match="a block can have at most"):
        bs.padded(1024, 1024)
