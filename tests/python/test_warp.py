"""cost(), simulate() and cost_batch() against numbers checkable by hand and the H200's."""
import json
import math

import numpy as np
import pytest

import bankscope


def column(stride_elems, elem_bytes=4):
    return [lane * stride_elems * elem_bytes for lane in range(32)]


def test_issue_example_one_wavefront_no_conflict():
    c = bankscope.cost(list(range(0, 32 * 33 * 4, 33 * 4)))
    assert (c.wavefronts, c.bank_conflicts) == (1, 0)
    assert repr(c) == "Cost(wavefronts=1, bank_conflicts=0, ideal_wavefronts=1, n_way=1)"


@pytest.mark.parametrize("stride", range(1, 131))
def test_float_column_read_is_gcd_of_stride_and_32(stride):
    # lane i reads word i*stride: bank (i*stride) % 32, so gcd(stride, 32) lanes share each bank.
    assert bankscope.cost(column(stride)).wavefronts == math.gcd(stride, 32)


@pytest.mark.parametrize("offsets,width,op,mask,wf,bc", [
    ([0] * 32, 4, "ld", 0xFFFFFFFF, 1, 0),                 # broadcast: one word
    ([0] * 32, 4, "st", 0xFFFFFFFF, 1, 0),                 # one writer wins
    (column(32), 4, "ld", 0x0000FFFF, 16, 15),             # half the lanes, 16 words in bank 0
    (column(32), 4, "ld", 0x00000001, 1, 0),               # one lane
    (column(32), 4, "ld", 0, 0, 0),                        # no lane: nothing issues
    ([8 * i for i in range(32)], 8, "ld", 0xFFFFFFFF, 2, 0),    # 256 contiguous bytes: 2 phases
    ([16 * i for i in range(32)], 16, "st", 0xFFFFFFFF, 4, 0),  # 512 bytes: 4 quarter-warps
    (column(2, 8), 8, "ld", 0xFFFFFFFF, 4, 2),             # double, stride 2: 2-way in each half
])
def test_hand_checked_rows(offsets, width, op, mask, wf, bc):
    c = bankscope.cost(offsets, width, op, mask)
    assert (c.wavefronts, c.bank_conflicts) == (wf, bc)


def test_mask_as_hex_string_like_the_jsonl_format():
    assert bankscope.cost(column(32), mask="0x0000000f").wavefronts == 4


def test_simulate_seed_column_read():
    r = bankscope.simulate(column(32))
    assert r.wavefronts == 32 and r.bank_conflicts == 31 and r.n_way == 32
    assert r.bank.tolist() == [0] * 32
    assert r.word.tolist() == [32 * i for i in range(32)]
    assert r.bank_words[0] == [32 * i for i in range(32)] and r.bank_words[1] == []
    assert r.wavefront_lanes == [[i] for i in range(32)]
    assert r.lanes[5]["address"] == 640 and r.lanes[5]["wavefront"] == 5
    assert r.efficiency == pytest.approx(1 / 32)


def test_simulate_padded_column_read():
    r = bankscope.simulate(column(33))
    assert r.wavefronts == 1
    assert r.bank.tolist() == [i % 32 for i in range(32)]
    assert r.wavefront_lanes == [list(range(32))]
    assert r.phase_masks == [0xFFFFFFFF]


def test_simulate_wide_lanes_list_every_word():
    r = bankscope.simulate([16 * i for i in range(32)], width=16)
    assert r.lanes[1]["banks"] == [4, 5, 6, 7] and r.lanes[1]["words"] == [4, 5, 6, 7]
    assert r.wavefronts == 4 and len(r.phase_masks) == 4


def load_measured(repo):
    rows = []
    with open(repo / "assets/results/h200/patterns_measured.jsonl") as f:
        for line in f:
            rows.append(json.loads(line))
    return rows


def test_every_measured_h200_pattern_equals_cost(repo):
    rows = load_measured(repo)
    assert len(rows) == 1560
    suite_ids = [json.loads(l)["id"] for l in open(repo / "tests/conformance/patterns.jsonl")]
    assert sorted(suite_ids) == sorted(r["id"] for r in rows)
    wrong = []
    for r in rows:
        c = bankscope.cost(r["offsets"], r["width"], r["op"], r["mask"])
        if (c.wavefronts, c.bank_conflicts) != (r["measured_wavefronts"], r["measured_bank_conflicts"]):
            wrong.append((r["id"], c, r["measured_wavefronts"]))
    assert wrong == []


def test_cost_batch_equals_cost_on_the_measured_patterns(repo):
    rows = load_measured(repo)
    groups = {}
    for r in rows:
        groups.setdefault((r["width"], r["op"]), []).append(r)
    for (width, op), rs in groups.items():
        offs = np.array([r["offsets"] for r in rs], dtype=np.uint32)
        masks = np.array([int(r["mask"], 16) for r in rs], dtype=np.uint32)
        b = bankscope.cost_batch(offs, width, op, masks)
        assert b.wavefronts.tolist() == [r["measured_wavefronts"] for r in rs]
        assert b.bank_conflicts.tolist() == [r["measured_bank_conflicts"] for r in rs]


def test_cost_batch_random_rows_equal_cost():
    rng = np.random.default_rng(7)
    for width in (1, 2, 4, 8, 16):
        offs = (rng.integers(0, 4096, size=(300, 32)) * width).astype(np.uint32)
        masks = rng.integers(0, 2**32, size=300, dtype=np.uint64).astype(np.uint32)
        for op in ("ld", "st"):
            b = bankscope.cost_batch(offs, width, op, masks)
            ref = [bankscope.cost(o, width, op, int(m)) for o, m in zip(offs, masks)]
            assert b.wavefronts.tolist() == [c.wavefronts for c in ref]
            assert b.bank_conflicts.tolist() == [c.bank_conflicts for c in ref]


def test_cost_batch_takes_other_integer_dtypes_and_one_mask():
    offs = np.array([column(32), column(33)], dtype=np.int64)
    assert bankscope.cost_batch(offs).wavefronts.tolist() == [32, 1]
    assert bankscope.cost_batch(offs, mask=0xF).wavefronts.tolist() == [4, 1]
    assert bankscope.cost_batch(np.zeros((0, 32), np.uint32)).wavefronts.shape == (0,)
