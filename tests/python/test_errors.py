"""Bad input raises ValueError/TypeError with the CLI's one-line message; nothing crashes."""
import json
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bankscope as bs

GOOD = [4 * i for i in range(32)]


@pytest.mark.parametrize("kwargs,exc,message", [
    (dict(offsets=[1] + GOOD[1:]), ValueError,
     'lane 0: byte offset 1 is not 4-byte aligned (the GPU faults with "misaligned address")'),
    (dict(offsets=GOOD[:31]), ValueError, "offsets: expected an array of exactly 32 byte offsets, got 31 entries"),
    (dict(offsets=[float("nan")] * 32), TypeError, "offsets[0]: expected an integer, got nan"),
    (dict(offsets=[0.5] * 32), TypeError, "offsets[0]: expected an integer, got a fractional number"),
    (dict(offsets=[-4] + GOOD[1:]), ValueError, "offsets[0]: -4 is out of range 0..232447"),
    (dict(offsets=[232448] + GOOD[1:]), ValueError, "offsets[0]: 232448 is out of range 0..232447"),
    (dict(offsets=GOOD, width=3), ValueError, "width: 3 bytes is not an access width (1, 2, 4, 8 or 16)"),
    (dict(offsets=GOOD, width=32), ValueError, "width: 32 is out of range 1..16"),
    (dict(offsets=GOOD, width="4"), TypeError, "width: expected an integer, got a string"),
    (dict(offsets=GOOD, op="ldx"), ValueError, "op: 'ldx' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\", \"atom\" or \"ldgsts\""),
    (dict(offsets=GOOD, mask=2**32), ValueError, "mask: 4294967296 is wider than 32 bits"),
    (dict(offsets=GOOD, mask=-1), TypeError, "mask: expected a hex string or a non-negative integer, got a number"),
    (dict(offsets="abc"), TypeError, "offsets: expected an array of exactly 32 byte offsets, got str"),
    (dict(offsets=[4] * 32, width=8), ValueError,
     'lane 0: byte offset 4 is not 8-byte aligned (the GPU faults with "misaligned address")'),
])
def test_messages(kwargs, exc, message):
    with pytest.raises(exc) as e:
        bs.cost(**kwargs)
    assert str(e.value) == message


def test_same_message_as_the_cli(cli):
    line = json.dumps({"width": 16, "op": "ld", "mask": "0xffffffff", "offsets": [0, 132] + [0] * 30})
    out = subprocess.run([cli, "predict", "--jsonl", "-"], input=line, capture_output=True, text=True)
    assert out.returncode == 1
    cli_error = json.loads(out.stdout)["error"]
    with pytest.raises(ValueError) as e:
        bs.cost([0, 132] + [0] * 30, width=16)
    assert cli_error == "<stdin>: line 1: " + str(e.value)


@pytest.mark.parametrize("offsets,kwargs,exc,message", [
    (np.zeros((4, 31), np.uint32), {}, ValueError, "offsets: expected shape (N, 32), got (4, 31)"),
    (np.zeros(32, np.uint32), {}, ValueError, "offsets: expected shape (N, 32), got (32,)"),
    (np.zeros((4, 32), np.float64), {}, TypeError, "offsets: expected an integer array, got float64"),
    (np.full((4, 32), np.nan), {}, TypeError, "offsets: expected an integer array, got float64 with NaN or infinity"),
    (np.array([[-4] * 32]), {}, ValueError, "row 0: offsets[0]: -4 is out of range 0..232447"),
    (np.array([GOOD, [0] * 31 + [2**40]]), {}, ValueError, "row 1: offsets[31]: 1099511627776 is out of range 0..232447"),
    (np.array([GOOD, [0] * 31 + [300000]], np.uint32), {}, ValueError, "row 1: offsets[31]: 300000 is out of range 0..232447"),
    (np.array([GOOD, [0, 2] + [0] * 30], np.uint32), {}, ValueError,
     'row 1: lane 1: byte offset 2 is not 4-byte aligned (the GPU faults with "misaligned address")'),
    (np.array([GOOD]), dict(mask=np.array([1, 2])), ValueError, "mask: expected one mask or an array of 1 masks, got shape (2,)"),
    (np.array([GOOD]), dict(mask=np.array([2**33])), ValueError, "mask: 8589934592 is not a 32-bit mask"),
    (np.array([GOOD]), dict(width=5), ValueError, "width: 5 bytes is not an access width (1, 2, 4, 8 or 16)"),
    (np.array([GOOD]), dict(op=1), TypeError, "op: expected a string, got int"),
    (np.array([GOOD]), dict(op="ldgsts"), ValueError, "op: 'ldgsts': cost_batch takes \"ld\" or \"st\""),
    (np.array([["a"] * 32]), {}, TypeError, "offsets: expected an integer array, got <U1"),
])
def test_batch_messages(offsets, kwargs, exc, message):
    with pytest.raises(exc) as e:
        bs.cost_batch(offsets, **kwargs)
    assert str(e.value) == message


def test_batch_misaligned_lane_outside_the_mask_is_fine():
    offs = np.array([[2] + GOOD[1:]], np.uint32)
    assert bs.cost_batch(offs, mask=0xFFFFFFFE).wavefronts.tolist() == [1]


def test_batch_non_contiguous_and_large():
    # A strided view, 200k rows: lane i reads word 2i, banks 0, 2, .., 30 twice over: 2-way.
    big = np.tile(np.arange(64, dtype=np.uint32) * 4, (200_000, 1))[:, ::2]
    b = bs.cost_batch(big)
    assert b.wavefronts.shape == (200_000,) and b.wavefronts.min() == b.wavefronts.max() == 2


values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.lists(st.integers(min_value=-8, max_value=300000), max_size=40),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=400, deadline=None)
@given(offsets=st.one_of(values, st.lists(values, min_size=32, max_size=32)), width=values, op=values, mask=values)
def test_fuzz_cost_raises_only_value_or_type_errors(offsets, width, op, mask):
    try:
        c = bs.cost(offsets, width, op, mask)
    except (ValueError, TypeError) as e:
        msg = str(e)
        assert msg and "\n" not in msg
    else:
        assert c.wavefronts >= c.ideal_wavefronts >= 0


def _array(shape, dtype, fill):
    if not np.issubdtype(np.dtype(dtype), np.number):
        return np.full(shape, fill)
    with np.errstate(invalid="ignore"):  # NaN cast to an integer dtype: the garbage is the point
        return np.full(shape, fill).astype(dtype, casting="unsafe")


arrays = st.builds(
    _array,
    st.sampled_from([(0, 32), (3, 32), (2, 31), (32,), (2, 2, 32), ()]),
    st.sampled_from(["uint32", "int64", "int8", "uint64", "float32", "float64", "bool", "object"]),
    st.one_of(st.integers(min_value=-2**31, max_value=2**31), st.just(float("nan"))),
)


@settings(max_examples=300, deadline=None)
@given(offsets=arrays, width=values, op=st.one_of(values, st.sampled_from(["ld", "st"])),
       mask=st.one_of(values, arrays))
def test_fuzz_cost_batch_raises_only_value_or_type_errors(offsets, width, op, mask):
    try:
        b = bs.cost_batch(offsets, width, op, mask)
    except (ValueError, TypeError) as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert b.wavefronts.shape == (offsets.shape[0],)
