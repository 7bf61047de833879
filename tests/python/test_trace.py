"""load_trace(): the committed H200 traces (assets/results/h200/2026-11-30d/traces/), the what-if,
and bad files. Each number is checkable by hand from the kernels:

transpose.bstrace, launch 0, transpose_tiled<32>: grid 8x8 blocks of 32x8 threads, a 32x32 float
tile; per block 8 warps x 4 column reads (LDS) = 32 executions, x 64 blocks = 2,048, each a column
of tile[32][32] (stride 128 B, one bank): 32 wavefronts -> 65,536. With tile[32][33] (the what-if,
stride 132 B) every column read is conflict-free: 2,048 wavefronts.
reduction.bstrace, launch 0, reduce_interleaved: 1,344 LDS executions with an active thread.
"""
import json
import subprocess

import pytest

import bankscope

TRACES = "assets/results/h200/2026-11-30d/traces"
TILE = "tile@0:float[32][32]"


@pytest.fixture(scope="module")
def transpose(repo):
    return bankscope.load_trace(repo / TRACES / "transpose.bstrace")


def test_transpose_launch_totals(transpose):
    assert len(transpose.launches) == 2 and transpose.executions == 8192 and transpose.complete
    l0, l1 = transpose.launches
    assert l0["kernel"] == "void transpose_tiled<32>(float*, float const*, int)"
    assert (l0["grid"], l0["block"], l0["status"], l0["dropped"]) == ([8, 8, 1], [32, 8, 1], "complete", 0)
    assert l0["ld"] == dict(instructions=2048, active_instructions=2048, wavefronts=65536, ideal=2048,
                            bank_conflicts=63488)
    assert l0["st"]["wavefronts"] == 2048 and l0["st"]["bank_conflicts"] == 0
    assert l1["ld"]["wavefronts"] == 2048  # transpose_tiled<33>: padded already


def test_transpose_rows(transpose):
    rows = transpose.rows()
    assert len(rows) == 16  # 4 LDS + 4 STS per kernel, 2 kernels
    top = rows[0]
    # 512 executions (64 blocks x 8 warps) of one column read, 32 wavefronts each.
    assert (top["where"], top["opcode"], top["executions"], top["wavefronts"], top["bank_conflicts"],
            top["worst_n_way"]) == ("pc 0x1390", "LDS", 512, 16384, 15872, 32)
    assert sum(r["wavefronts"] for r in rows if r["kernel"].startswith("void transpose_tiled<32>")
               and r["kind"] == "ld") == 65536


def test_transpose_what_if_stride_33(transpose):
    w = transpose.what_if(array=TILE, layout="tile:stride=33")
    assert w.layouts == ["tile:stride=33"]
    assert w.launches[0]["ld"]["wavefronts"] == 2048 and w.launches[0]["ld"]["bank_conflicts"] == 0
    # The <33> kernel's tile, remapped again as if it were [32][32]: conflicts appear (CLI: 4,032).
    assert w.launches[1]["ld"]["wavefronts"] == 4032
    assert transpose.launches[0]["ld"]["wavefronts"] == 65536  # the traced report is unchanged
    # A list of arrays and layouts, and layouts that give the traced layout back.
    same = transpose.what_if(array=[TILE, "other@8192:float[4]"], layout=["tile:stride=32"])
    assert same.launches[0]["ld"] == transpose.launches[0]["ld"]


def test_equals_cli_report_json(repo, cli, transpose):
    out = subprocess.run([cli, "report", str(repo / TRACES / "transpose.bstrace"), "--json", "--top", "0",
                          "--array", TILE, "--layout", "tile:stride=33"], capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    w = transpose.what_if(array=TILE, layout="tile:stride=33")
    for i, l in enumerate(j["launches"]):
        for op in ("ld", "st"):
            for mine, cli_counts in ((transpose.launches[i][op], l["predicted"]), (w.launches[i][op], l["what_if"])):
                assert mine["instructions"] == cli_counts[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
                assert mine["wavefronts"] == cli_counts[f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
    keys = ["kernel", "where", "opcode", "kind", "modelled", "executions", "wavefronts", "ideal", "bank_conflicts",
            "worst_n_way", "typical_n_way"]
    assert [[r[k] for k in keys] for r in transpose.rows()] == [[r[k] for k in keys] for r in j["rows"]]
    assert [[r[k] for k in keys] for r in w.rows()] == [[r[k] for k in keys] for r in j["what_if_rows"]]


def test_reduction_launch_0(repo):
    t = bankscope.load_trace(str(repo / TRACES / "reduction.bstrace"))
    l0 = t.launches[0]
    assert l0["kernel"] == "reduce_interleaved(float*, float const*)"
    assert l0["ld"]["instructions"] == 1344 and l0["ld"]["active_instructions"] == 1344
    assert (l0["ld"]["wavefronts"], l0["st"]["instructions"], l0["st"]["wavefronts"]) == (5568, 1280, 3520)


def test_truncated_file(repo, tmp_path):
    cut = tmp_path / "cut.bstrace"
    cut.write_bytes((repo / TRACES / "reduction.bstrace").read_bytes()[:300])
    with pytest.raises(ValueError) as e:
        bankscope.load_trace(cut)
    assert str(e.value) == f"{cut}: trace: byte 293: record 'P' at byte 291 needs 11 bytes, 7 left (truncated file)"


def test_corrupt_files(repo, tmp_path):
    data = (repo / TRACES / "transpose.bstrace").read_bytes()
    cases = [
        (b"{\"not\": \"a trace\"}", "trace: not a bankscope trace (no BSTRACE header)"),
        (data[:8] + bytes([7, 0, 0, 0]) + data[12:], "trace: version 7 (this reader reads versions 1 to 4)"),
        (data[:-2], None),  # no end-of-file record: some one-line message, never a crash
    ]
    for i, (blob, message) in enumerate(cases):
        p = tmp_path / f"bad{i}.bstrace"
        p.write_bytes(blob)
        with pytest.raises(ValueError) as e:
            bankscope.load_trace(p)
        assert str(e.value).startswith(f"{p}: trace: ") and "\n" not in str(e.value)
        if message:
            assert str(e.value) == f"{p}: {message}"
    with pytest.raises(ValueError, match="cannot open"):
        bankscope.load_trace(tmp_path / "missing.bstrace")


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(array=TILE, layout="til:stride=33"), ValueError, "--layout 'til:stride=33': no --array named 'til'"),
    (dict(array="tile@0:flot[32][32]", layout="tile:stride=33"), ValueError,
     "--array 'tile@0:flot[32][32]': unknown element type 'flot'"),
    (dict(array=TILE, layout="tile:strde=33"), ValueError, "--layout 'tile:strde=33': unknown key 'strde' (stride, xor, swizzle, tma_swizzle)"),
    (dict(array=TILE, layout=[]), ValueError, "--array needs a --layout to try"),
    (dict(array=TILE, layout=33), TypeError, "layout: expected a string or a list of strings, got int"),
])
def test_what_if_errors(transpose, kwargs, exc, message):
    with pytest.raises(exc) as e:
        transpose.what_if(**kwargs)
    assert str(e.value) == message


def test_rows_by(transpose):
    with pytest.raises(ValueError, match="by: 'file' must be"):
        transpose.rows(by="file")
    assert sum(r["executions"] for r in transpose.rows(by="line")) == 8192


def test_every_cut_and_random_flips_raise_value_error_or_load(repo, tmp_path):
    import random
    data = (repo / TRACES / "reduction.bstrace").read_bytes()
    rng = random.Random(5)
    blobs = [data[:n] for n in range(0, len(data), 61)]
    for _ in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        blobs.append(bytes(b))
    p = tmp_path / "fuzz.bstrace"
    errors = 0
    for blob in blobs:
        p.write_bytes(blob)
        try:
            bankscope.load_trace(p).what_if(array=TILE, layout="tile:xor=31")
        except ValueError as e:
            assert str(e).startswith(f"{p}: trace: ") and "\n" not in str(e)
            errors += 1
    assert errors >= len(data) // 61  # every cut is an error (none ends on the end-of-file record)
