"""bankscope: CUDA shared-memory bank conflicts, predicted exactly as Nsight Compute counts them.

The numbers come from the same C++ model as ``bankscope-cli`` (the repository's ``sim/``),
checked against an H200 on 1,560 + 340 single-instruction patterns. Nothing here re-implements a
bank rule: every call goes to that library.

One warp instruction::

    >>> import bankscope
    >>> bankscope.cost([33 * 4 * lane for lane in range(32)])      # tile[32][33], a column
    Cost(wavefronts=1, bank_conflicts=0, ideal_wavefronts=1, n_way=1)
    >>> bankscope.cost([32 * 4 * lane for lane in range(32)])      # tile[32][32], a column
    Cost(wavefronts=32, bank_conflicts=31, ideal_wavefronts=1, n_way=32)

Errors are ``ValueError`` or ``TypeError`` with the one-line message the CLI prints.
"""
from ._warp import Cost, BatchCost, Report, cost, simulate, cost_batch
from .layout import Layout, Swizzle, padded, xor, cute, lane_offsets, column_read, row_read
from .scenario import Scenario, load_scenario, scenario_from_dict
from .trace import Trace, load_trace
from .pictures import BankView, TileView, StrideSweep, bank_view, tile_view, stride_sweep
from . import _core

__version__ = "0.1.0"
WARP_SIZE = _core.warp_size
MAX_SHARED_BYTES = _core.max_shared_bytes


def cost_implementation() -> str:
    """Which C++ cost() path this CPU uses: "avx512", "avx2" or "portable" (same numbers);
    the environment variable BANKSCOPE_SIMD forces one."""
    return _core.cost_implementation()


__all__ = [
    "Cost", "BatchCost", "Report", "cost", "simulate", "cost_batch",
    "Layout", "Swizzle", "padded", "xor", "cute", "lane_offsets", "column_read", "row_read",
    "Scenario", "load_scenario", "scenario_from_dict", "Trace", "load_trace",
    "BankView", "TileView", "StrideSweep", "bank_view", "tile_view", "stride_sweep",
    "cost_implementation", "WARP_SIZE", "MAX_SHARED_BYTES",
]
