"""Traces: what a compiled kernel actually did (`bankscope-gpu trace` writes them, sim/trace.hpp).

    t = bankscope.load_trace("assets/results/h200/2026-11-30d/traces/transpose.bstrace")
    t.launches[0]["ld"]["wavefronts"]              # per-launch totals, as `bankscope-cli report`
    t.rows()[0]                                    # the costliest instruction (by="line": per source line)
    w = t.what_if(array="tile@0:float[32][32]", layout="tile:stride=33")
    w.launches[0]["ld"]["wavefronts"]              # the same trace with tile[32][33] instead

Decoding, costing and the what-if remapping are sim/trace_report.hpp's report_trace(), the function
`bankscope-cli report` calls; errors are ValueError with the reader's one-line message
("x.bstrace: trace: truncated at byte 120 (...)").
"""
from __future__ import annotations

from typing import List, Sequence, Union

from . import _core

Specs = Union[str, Sequence[str]]


def _specs(x: Specs, name: str) -> List[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, (list, tuple)) and all(isinstance(s, str) for s in x):
        return list(x)
    raise TypeError(f"{name}: expected a string or a list of strings, got {type(x).__name__}")


class Trace:
    """A decoded trace, costed by the bank model (LDS/STS; other kinds counted as not modelled).

    launches:  per launch: launch, kernel, grid, block, shared_bytes, reserved_bytes, blocks_traced
               (0 = all), status, dropped, ld and st totals {instructions, active_instructions,
               wavefronts, ideal, bank_conflicts} (the counters `bankscope-cli report` prints:
               instructions under smsp__sass_inst_executed_op_shared_{ld,st}.sum), and
               not_modelled_executions {kind: count}
    executions, dropped, complete, exit_code: the whole file
    layouts:   the what-if layouts applied ([] for the trace as recorded)
    """

    def __init__(self, core, arrays: List[str], layouts: List[str]):
        self._t = core
        self._arrays = arrays
        self.layouts = layouts
        r = core.report(arrays, layouts, False)
        self.executions = r["executions"]
        self.dropped = r["dropped"]
        self.complete = r["complete"]
        self.exit_code = r["exit_code"]
        self.launches = r["launches"]
        self._rows = {False: r["rows"]}

    @property
    def path(self) -> str:
        return self._t.path

    def rows(self, by: str = "pc") -> list:
        """Per instruction (by="pc") or per source line (by="line"), over all launches, sorted by
        bank conflicts (excess wavefronts), then executions, most first: dicts with kernel, where,
        opcode, kind, modelled, executions, wavefronts, ideal, bank_conflicts, worst_n_way,
        typical_n_way (`bankscope-cli report --json`'s rows)."""
        if by not in ("pc", "line"):
            raise ValueError(f"by: '{by}' must be \"pc\" or \"line\"")
        by_line = by == "line"
        if by_line not in self._rows:
            self._rows[by_line] = self._t.report(self._arrays, self.layouts, by_line)["rows"]
        return self._rows[by_line]

    def what_if(self, array: Specs, layout: Specs) -> "Trace":
        """The same trace with shared arrays moved to other layouts, as
        `bankscope-cli report TRACE --array A --layout L`.

        array:  "NAME@BYTE_OFFSET:TYPE[ROWS][COLS]" as the kernel declared it (dense, row-major),
                e.g. "tile@0:float[32][32]"; or a list of them
        layout: "NAME:stride=S", "NAME:xor=M", "NAME:swizzle=B,M,S" (parts joined by ';') or
                "NAME:tma_swizzle=32B|64B|128B" (the tile as TMA writes it); or a list
        """
        return Trace(self._t, _specs(array, "array"), _specs(layout, "layout"))

    def __repr__(self) -> str:
        w = f", what_if={self.layouts}" if self.layouts else ""
        return f"Trace({self.path!r}, launches={len(self.launches)}, executions={self.executions}{w})"


def load_trace(path) -> Trace:
    """Reads a trace file (bankscope-gpu trace) and costs it. A file that is not a trace, of
    another version, corrupt or cut short raises ValueError with the reader's message."""
    import os
    return Trace(_core.load_trace(os.fspath(path)), [], [])
