"""Scenarios through the package equal bankscope-cli predict --json, and the seed lesson's numbers."""
import json
import subprocess

import pytest

import bankscope as bs

SCENARIOS = sorted(p.name for p in (__import__("pathlib").Path(__file__).resolve().parents[2]
                                     / "assets/scenarios").glob("*.json"))


@pytest.mark.parametrize("name", SCENARIOS)
def test_predict_equals_cli(repo, cli, name):
    path = f"assets/scenarios/{name}"
    out = subprocess.run([cli, "predict", path, "--json"], cwd=repo, capture_output=True, text=True, check=True)
    assert bs.load_scenario(repo / path).predict() | {"file": path} == json.loads(out.stdout)


@pytest.mark.parametrize("args", [dict(n=4096, stride=34), dict(stride=36, warp=3), dict(type="double", stride=33)])
def test_predict_overrides_equal_cli(repo, cli, args):
    path = "assets/scenarios/tiled_32x8_32x33.json"
    flags = []
    for k, v in args.items():
        flags += [f"--{k}", str(v)]
    out = subprocess.run([cli, "predict", path, "--json", *flags], cwd=repo, capture_output=True, text=True,
                         check=True)
    assert bs.load_scenario(repo / path).predict(**args) | {"file": path} == json.loads(out.stdout)


def test_seed_pair_per_launch(repo):
    a = bs.load_scenario(repo / "assets/scenarios/seed_transpose_32x32.json").predict()
    b = bs.load_scenario(repo / "assets/scenarios/seed_transpose_32x33.json").predict()
    # README: 4,194,304 vs 131,072 ld wavefronts at n = 2048 (2048^2 / 32 = 131,072 instructions).
    pick = lambda t: {k: t[k] for k in ("instructions", "active_instructions", "wavefronts", "bank_conflicts")}
    assert pick(a["totals"]["ld"]) == {"instructions": 131072, "active_instructions": 131072,
                                       "wavefronts": 4194304, "bank_conflicts": 4063232}
    assert pick(b["totals"]["ld"]) == {"instructions": 131072, "active_instructions": 131072,
                                       "wavefronts": 131072, "bank_conflicts": 0}


def test_from_dict_and_instructions():
    s = bs.scenario_from_dict({
        "name": "column read", "n": 32, "block": [32, 32], "tile": [32, 32],
        "arrays": [{"name": "tile", "type": "float", "dims": [32, 32], "row_stride": 32}],
        "accesses": [{"op": "ld", "target": "tile[threadIdx.x][threadIdx.y]"}],
    })
    ins = s.instructions(warp=0)
    assert len(ins) == 1 and ins[0]["wavefronts"] == 32 and ins[0]["offsets"][1] == 128
    assert s.predict(stride=33)["accesses"][0]["wavefronts_per_instruction"] == 1
    assert s.simulate(0).bank.tolist() == [0] * 32


def test_scenario_errors(tmp_path):
    with pytest.raises(ValueError, match="cannot open"):
        bs.load_scenario(tmp_path / "missing.json")
    with pytest.raises(ValueError, match=r"^<dict>: .*block"):
        bs.scenario_from_dict({"name": "x", "block": [2000], "accesses": []})
    with pytest.raises(ValueError, match="NaN"):
        bs.scenario_from_dict({"n": float("nan")})
    s = bs.load_scenario(__import__("pathlib").Path(__file__).resolve().parents[2] / "assets/scenarios/seed_transpose_32x32.json")
    with pytest.raises(ValueError, match="stride: .*31 is smaller than the row length 32"):
        s.predict(stride=31)
    with pytest.raises(TypeError, match="n: expected an integer"):
        s.predict(n="big")
    with pytest.raises(ValueError, match="warp: 40 is outside 0..31"):
        s.instructions(warp=40)
