"""Scenarios: a kernel's shared-memory behaviour as data (README "Scenario format").

    s = bankscope.load_scenario("assets/scenarios/tiled_32x8_32x33.json")
    s = bankscope.scenario_from_dict({...})          # the same fields as a file
    r = s.predict(n=4096, stride=34)                  # what `bankscope-cli predict --json` prints
    r["accesses"][1]["wavefronts_per_instruction"], r["totals"]["ld"]["bank_conflicts"]

Parsing, compiling and the per-launch totals are the C++ model's (sim/json_io.hpp,
kernel_model.hpp); errors carry its messages ("x.json: arrays[0].row_stride: ...").
Traces: bankscope.load_trace (trace.py).
"""
from __future__ import annotations

import json
import os
from typing import Optional, Sequence

from . import _core
from ._warp import Report, cost, simulate


class Scenario:
    """A parsed scenario file or dict. Immutable; overrides go to predict()/instructions()."""

    def __init__(self, core):
        self._s = core

    @property
    def name(self) -> str:
        return self._s.name

    @property
    def source(self) -> str:
        return self._s.source

    def to_dict(self) -> dict:
        """The scenario as the JSON a file would hold."""
        return json.loads(self._s.to_json())

    def predict(self, n: Optional[int] = None, stride: Optional[int] = None, type: Optional[str] = None,
                warp: int = 0) -> dict:
        """Per-access results for one warp of block 0 and per-launch totals, as
        `bankscope-cli predict SCENARIO --json [--n N] [--stride S] [--type T] [--warp W]`.

        Keys: scenario, file, declaration, n, block, grid, warp, accesses (op, access, label, width,
        warp_instructions, wavefronts_per_instruction, n_way, launch {instructions, wavefronts,
        bank_conflicts}), totals {ld, st}, blocks, blocks_simulated.
        """
        return json.loads(self._s.predict_json(_opt_int(n, "n"), _opt_int(stride, "stride"), _opt_str(type),
                                               _int(warp, "warp")))

    def instructions(self, warp: int = 0, block: Sequence[int] = (0, 0, 0), n: Optional[int] = None,
                     stride: Optional[int] = None, type: Optional[str] = None) -> list:
        """Every shared-memory instruction one warp executes, in program order (loops unrolled):
        dicts with stmt, text, width, op, mask, offsets, and their cost."""
        pats = self._s.warp_patterns(_opt_int(n, "n"), _opt_int(stride, "stride"), _opt_str(type),
                                     _int(warp, "warp"), [_int(b, "block") for b in block])
        for p in pats:
            c = cost(p["offsets"], p["width"], p["op"], p["mask"])
            p["wavefronts"], p["bank_conflicts"] = c.wavefronts, c.bank_conflicts
        return pats

    def simulate(self, access: int = 0, **kw) -> Report:
        """simulate() of the warp's `access`-th instruction (arguments as instructions())."""
        ins = self.instructions(**kw)
        if not 0 <= access < len(ins):
            raise ValueError(f"access: {access} is outside 0..{len(ins) - 1} "
                             f"(this warp issues {len(ins)} shared-memory instructions)")
        p = ins[access]
        return simulate(p["offsets"], p["width"], p["op"], p["mask"])

    def __repr__(self) -> str:
        return f"Scenario({self.name!r}, source={self.source!r})"


def _int(v, name):
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{name}: expected an integer, got {type(v).__name__}")
    return int(v)


def _opt_int(v, name):
    if v is None:
        return 0
    v = _int(v, name)
    if v <= 0:
        raise ValueError(f"{name}: {v} must be positive")
    return v


def _opt_str(v):
    if v is None:
        return ""
    if not isinstance(v, str):
        raise TypeError(f"type: expected a string, got {type(v).__name__}")
    return v


def load_scenario(path) -> Scenario:
    """Reads a scenario file (errors name the file, field and reason)."""
    return Scenario(_core.load_scenario(os.fspath(path)))


def scenario_from_dict(d: dict, source: str = "<dict>") -> Scenario:
    """Builds a scenario from a dict with the fields of a scenario file."""
    if not isinstance(d, dict):
        raise TypeError(f"scenario: expected a dict, got {type(d).__name__}")
    try:
        text = json.dumps(d, allow_nan=False)
    except ValueError:
        raise ValueError(f"{source}: NaN or infinity is not a scenario value") from None
    except TypeError as e:
        raise TypeError(f"{source}: {e}") from None
    return Scenario(_core.parse_scenario(text, source))
