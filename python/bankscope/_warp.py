"""One warp instruction, and batches of them: cost(), simulate(), cost_batch()."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, NamedTuple

import numpy as np

from . import _core

FULL_MASK = 0xFFFFFFFF


class Cost(NamedTuple):
    """What Nsight Compute counts for one warp instruction.

    wavefronts       l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
    bank_conflicts   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}
                     (= wavefronts - ideal_wavefronts)
    ideal_wavefronts the least the access can cost (1 for 4-byte warps, 2 for 8, 4 for 16)
    n_way            most distinct words one bank serves within a phase (1 = conflict-free)
    """
    wavefronts: int
    bank_conflicts: int
    ideal_wavefronts: int
    n_way: int


class BatchCost(NamedTuple):
    """cost_batch()'s result: int32 arrays of length N."""
    wavefronts: np.ndarray
    bank_conflicts: np.ndarray


def _pattern(offsets: Any, width: Any, op: Any, mask: Any) -> dict:
    # The C++ side parses this dict with the JSONL parser of `bankscope-cli predict --jsonl`, so
    # every check and message is the CLI's.
    if isinstance(offsets, np.ndarray):
        offsets = offsets.tolist()
    elif isinstance(offsets, (str, bytes, dict)) or not hasattr(offsets, "__len__"):
        if not hasattr(offsets, "__iter__") or isinstance(offsets, (str, bytes, dict)):
            raise TypeError(f"offsets: expected an array of exactly 32 byte offsets, got {type(offsets).__name__}")
        offsets = list(offsets)
    elif not isinstance(offsets, (list, tuple)):
        offsets = list(offsets)
    return {"width": width, "op": op, "mask": mask, "offsets": offsets}


def cost(offsets, width: int = 4, op: str = "ld", mask: int = FULL_MASK) -> Cost:
    """Wavefronts and bank conflicts of one warp instruction.

    offsets: 32 byte offsets into shared memory, lane 0 first (any sequence or array of ints).
    width:   bytes per lane, 1, 2, 4, 8 or 16 (active lanes must be aligned to it).
    op:      "ld" or "st".
    mask:    active lanes, bit i = lane i (an int, or a "0x..." string as in the JSONL format).

    >>> cost(list(range(0, 32 * 33 * 4, 33 * 4)))
    Cost(wavefronts=1, bank_conflicts=0, ideal_wavefronts=1, n_way=1)
    """
    return Cost(*_core.cost(_pattern(offsets, width, op, mask)))


@dataclass(frozen=True)
class Report:
    """simulate()'s full picture of one warp instruction, as plain Python and NumPy objects.

    lanes:             one dict per lane: lane, active, address, banks, words, phase, wavefront
                       (the 0-based wavefront in which the lane's data is complete; -1 inactive)
    bank:              int array [32]: each lane's (first) bank, -1 for inactive lanes
    word:              int64 array [32]: each lane's (first) 4-byte word, -1 for inactive lanes
    bank_words:        per bank, the distinct words it serves over the instruction, first asked first
    wavefront_lanes:   per wavefront, the lanes whose data it completes
    wavefront_details: per wavefront: phase, lanes, banks, (bank, word) pairs it serves
    phase_masks:       lanes in each phase (bit i = lane i), in issue order
    """
    wavefronts: int
    bank_conflicts: int
    ideal_wavefronts: int
    n_way: int
    efficiency: float
    width: int
    op: str
    mask: int
    lanes: List[dict]
    bank: np.ndarray
    word: np.ndarray
    bank_words: List[List[int]]
    wavefront_lanes: List[List[int]]
    wavefront_details: List[dict]
    phase_masks: List[int]
    _pattern: dict

    @property
    def cost(self) -> Cost:
        return Cost(self.wavefronts, self.bank_conflicts, self.ideal_wavefronts, self.n_way)

    def __repr__(self) -> str:
        return (f"Report(wavefronts={self.wavefronts}, bank_conflicts={self.bank_conflicts}, "
                f"ideal_wavefronts={self.ideal_wavefronts}, n_way={self.n_way}, width={self.width}, "
                f"op={self.op!r}, mask=0x{self.mask:08x})")

    def bank_view(self, title: str = ""):
        """The bank view of this instruction (SVG in Jupyter; .figure() for matplotlib)."""
        from .pictures import BankView
        return BankView(self._pattern, title)

    def _repr_svg_(self) -> str:
        return self.bank_view()._repr_svg_()


def simulate(offsets, width: int = 4, op: str = "ld", mask: int = FULL_MASK) -> Report:
    """The full report of one warp instruction (same arguments as cost()).

    >>> r = simulate([32 * 4 * lane for lane in range(32)])
    >>> r.wavefronts, r.bank[:4].tolist(), r.wavefront_lanes[1]
    (32, [0, 0, 0, 0], [1])
    """
    p = _pattern(offsets, width, op, mask)
    d = _core.simulate(p)
    lanes = d["lanes"]
    bank = np.array([l["banks"][0] if l["active"] else -1 for l in lanes], dtype=np.int32)
    word = np.array([l["words"][0] if l["active"] else -1 for l in lanes], dtype=np.int64)
    wfs = d["wavefront_details"]
    return Report(d["wavefronts"], d["bank_conflicts"], d["ideal_wavefronts"], d["n_way"], d["efficiency"],
                  d["width"], d["op"], d["mask"], lanes, bank, word, d["bank_words"],
                  [w["lanes"] for w in wfs], wfs, d["phase_masks"], p)


def _integer_array(x, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == object or a.dtype.kind not in "iub":
        if a.dtype.kind == "f" and a.size and not np.all(np.isfinite(a)):
            raise TypeError(f"{name}: expected an integer array, got {a.dtype} with NaN or infinity")
        raise TypeError(f"{name}: expected an integer array, got {a.dtype}")
    if a.dtype.kind == "b":
        raise TypeError(f"{name}: expected an integer array, got bool")
    return a


def cost_batch(offsets, width: int = 4, op: str = "ld", mask=FULL_MASK) -> BatchCost:
    """cost() for N warp instructions at once, without a Python loop per instruction.

    offsets: integer array [N, 32] of byte offsets (uint32 C-contiguous is used without a copy).
    width, op: as in cost(), the same for every row.
    mask:    one mask for every row, or an integer array [N].
    Returns BatchCost(wavefronts, bank_conflicts), int32 arrays [N]. A bad row raises ValueError
    naming the row ("row 7: lane 1: byte offset 132 is not 16-byte aligned ...").

    Throughput: see python/bench/ (tens of millions of instructions per second on one core).
    """
    a = _integer_array(offsets, "offsets")
    if a.ndim != 2 or a.shape[1] != 32:
        raise ValueError(f"offsets: expected shape (N, 32), got {a.shape}")
    if a.dtype != np.uint32:
        if a.size:
            lo, hi = int(a.min()), int(a.max())
            limit = _core.max_shared_bytes - 1
            if lo < 0 or hi > limit:
                bad = lo if lo < 0 else hi
                row, lane = np.argwhere(a == bad)[0]
                raise ValueError(f"row {row}: offsets[{lane}]: {bad} is out of range 0..{limit}")
        a = a.astype(np.uint32)
    a = np.ascontiguousarray(a)
    if isinstance(mask, (str, int, np.integer)) and not isinstance(mask, bool):
        # One mask: through the CLI's parser (accepts "0x..." strings, names the error).
        m = np.array([_core.simulate({"width": 4, "op": "ld", "mask": mask, "offsets": [0] * 32})["mask"]],
                     dtype=np.uint32)
    else:
        m = _integer_array(mask, "mask")
        if m.ndim != 1 or m.shape[0] != a.shape[0]:
            raise ValueError(f"mask: expected one mask or an array of {a.shape[0]} masks, got shape {m.shape}")
        if m.size and (int(m.min()) < 0 or int(m.max()) > FULL_MASK):
            bad = int(m.min()) if int(m.min()) < 0 else int(m.max())
            raise ValueError(f"mask: {bad} is not a 32-bit mask")
        m = np.ascontiguousarray(m.astype(np.uint32))
    if not isinstance(width, (int, np.integer)) or isinstance(width, bool):
        raise TypeError(f"width: expected an integer, got {type(width).__name__}")
    if not isinstance(op, str):
        raise TypeError(f"op: expected a string, got {type(op).__name__}")
    if not 1 <= int(width) <= 16:
        raise ValueError(f"width: {int(width)} is out of range 1..16")
    wf, bc = _core.cost_batch(a, int(width), op, m)
    return BatchCost(wf, bc)
