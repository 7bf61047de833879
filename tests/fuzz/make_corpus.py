#!/usr/bin/env python3
"""make_corpus.py: writes the committed seed corpora of the fuzz targets from the project's data.

  corpus/fuzz_scenario/  every assets/scenarios/*.json as is, and 8 seeds of the structured mode
                         (a 0 byte, then 200 pseudo-random bytes; see fuzz_scenario.cpp)
  corpus/fuzz_expr/      every expression in them (defines, index expressions, guards), one a file
  corpus/fuzz_jsonl/     the first 50 lines of tests/conformance/patterns.jsonl, one a file

Run from anywhere after the assets change: python3 tests/fuzz/make_corpus.py. File names are the
SHA-1 of the content (as libFuzzer names its inputs), so rerunning adds nothing twice.
"""
import hashlib
import json
import pathlib
import random
import re
import shutil

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def put(target, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def index_expressions(target):
    """'tile[a][b[c]]' -> ['a', 'b[c]']: top-level bracket contents."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(target):
        if ch == "[":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                out.append(target[start:i])
    return out


def main():
    for t in ("fuzz_scenario", "fuzz_expr", "fuzz_jsonl"):
        shutil.rmtree(HERE / "corpus" / t, ignore_errors=True)
    exprs = set()
    for path in sorted((ROOT / "assets" / "scenarios").glob("*.json")):
        data = path.read_bytes()
        put("fuzz_scenario", data)
        scenario = json.loads(data)
        exprs.update(scenario.get("defines", {}).values())
        for access in scenario.get("accesses", []):
            exprs.update(index_expressions(access.get("target", "")))
            if access.get("if"):
                exprs.add(access["if"])
    rng = random.Random(1)
    for _ in range(8):
        put("fuzz_scenario", b"\0" + bytes(rng.randrange(256) for _ in range(200)))
    # A few spellings the scenarios do not use, so every operator is in the seeds.
    exprs.update(["(lane ^ (warp << 2)) % 32", "n > 0 ? -threadIdx.x : ~blockIdx.y", "0x1f & N",
                  "!(threadIdx.z != 0) || laneid >= 16", "blockDim.x * gridDim.x / 3 - 1 + 8LL",
                  "threadIdx.y >> 1 | threadIdx.x <= 7",
                  # Types (sim/expr.hpp): unsigned wrap, casts, octal and suffixed literals, and the
                  # typed variables fuzz_expr.cpp adds (d_int, d_uint, d_ll, d_ull, j).
                  "(threadIdx.x - 1) % 32", "-1 < 0u ? 010 : 0x7fffffffu", "(int)(0u - 1) << 3",
                  "(unsigned long long)d_ll * 3u >> j", "0xffffffffffffffffull / (d_ull | 1)",
                  "(long long)threadIdx.x - 2147483648 + d_int", "(size_t)d_uint + 18446744073709551615u",
                  "(int32_t)d_ull ^ (uint32_t)-d_int", "1LL << 62 | 0b101 % (uint64_t)blockIdx.x"])
    for e in sorted(exprs):
        put("fuzz_expr", e.encode())
    lines = (ROOT / "tests" / "conformance" / "patterns.jsonl").read_text().splitlines()
    for line in [l for l in lines if l.strip()][:50]:
        put("fuzz_jsonl", line.encode())
    for t in ("fuzz_scenario", "fuzz_expr", "fuzz_jsonl"):
        files = list((HERE / "corpus" / t).iterdir())
        print(f"{t}: {len(files)} inputs, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
