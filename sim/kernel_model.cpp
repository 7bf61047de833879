// kernel_model.cpp: warps formed the CUDA way, and per-launch totals.
//
// Per-launch totals use the structure of the problem instead of simulating every block: when no
// shared-memory address depends on blockIdx (true for every tiled kernel), two blocks in which
// every statement's guard has the same constant truth value issue identical instructions. Interval
// arithmetic over a rectangle of blocks proves a guard constant over the whole rectangle; the
// rectangle is then costed from one block and multiplied. Where a guard changes from thread to
// thread but each thread's value is the same in every block of the rectangle (an edge strip of a
// matrix that is not a multiple of the tile), the rectangle is costed from one block too. Other
// rectangles are bisected down to single blocks, which are simulated. The result equals the brute
// force over every block in every issue mode (tests/test_kernel_model.cpp and the fuzzer check
// this), and an N=16384 transpose costs one block. When an address depends on blockIdx every block
// is simulated, in a spread-out order, under the caller's cap and cancel flag (TotalsOptions).
// Counts saturate at 2^64 - 1 (OpTotals).
#include "kernel_model.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

namespace bankscope {

namespace {

std::string dim_text(int64_t x, int64_t y, int64_t z) {
  std::ostringstream os;
  os << "(" << x << "," << y << "," << z << ")";
  return os.str();
}

// Everything one warp needs: the environment of each of its lanes.
struct WarpLanes {
  Env env[kWarpSize];
  uint32_t exists = 0;  // lanes that are real threads (the last warp of a block may be partial)
};

Env block_env(const Scenario& s, const Dim3& block) {
  Env e;
  e.v[kBlockIdxX] = block.x;
  e.v[kBlockIdxY] = block.y;
  e.v[kBlockIdxZ] = block.z;
  e.v[kBlockDimX] = s.spec.block.x;
  e.v[kBlockDimY] = s.spec.block.y;
  e.v[kBlockDimZ] = s.spec.block.z;
  e.v[kGridDimX] = s.grid.x;
  e.v[kGridDimY] = s.grid.y;
  e.v[kGridDimZ] = s.grid.z;
  e.v[kN] = s.spec.n;
  for (const auto& [slot, value] : s.params) e.v[slot] = value;
  return e;
}

std::string thread_where(const Env& e) {
  return "thread " + dim_text(e.v[kThreadIdxX], e.v[kThreadIdxY], e.v[kThreadIdxZ]) + " of block " +
         dim_text(e.v[kBlockIdxX], e.v[kBlockIdxY], e.v[kBlockIdxZ]);
}

Result<bool> make_lanes(const Scenario& s, const Env& base, int warp, WarpLanes* out) {
  const int64_t threads = s.spec.block.count();
  const int64_t bx = s.spec.block.x, by = s.spec.block.y;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int64_t t = int64_t(warp) * kWarpSize + lane;
    Env& e = out->env[lane];
    e = base;
    if (t >= threads) continue;
    out->exists |= uint32_t{1} << lane;
    e.v[kThreadIdxX] = t % bx;
    e.v[kThreadIdxY] = (t / bx) % by;
    e.v[kThreadIdxZ] = t / (bx * by);
    e.v[kLane] = lane;
    e.v[kWarp] = warp;
    for (const auto& [slot, expr] : s.defines) {
      std::string err;
      if (!expr.eval(e, &e.v[slot], &err)) {
        return Error{"defines." + s.symbols.name(slot) + " = '" + expr.text() + "': " + err +
                     " at " + thread_where(e)};
      }
    }
  }
  return true;
}

std::string loop_text(const CompiledAccess& a, const int64_t* values) {
  std::string t;
  for (size_t k = 0; k < a.loops.size(); ++k) {
    t += (k == 0 ? "" : ", ") + a.scope.name(a.loops[k].slot) + "=" + std::to_string(values[k]);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// A statement's scope. C rules: a statement's loop variables exist only inside its loops, and
// compile() parses its target and guard against its own scope (CompiledAccess::scope), whose loop
// slots other statements reuse. These two functions are the only places that bind loop variables:
// values for the concrete evaluation, ranges for the interval analysis, from the same CompiledLoop
// list, so the two evaluators see the same environment of each statement.
// ---------------------------------------------------------------------------------------------

// Binds the loop variables to `values` (one per loop, outermost first), then evaluates the
// loops' scoped defines in order. False (and *error) where a define fails in this thread.
bool bind_scope(const CompiledAccess& a, const int64_t* values, Env& e, std::string* error) {
  for (size_t k = 0; k < a.loops.size(); ++k) e.v[a.loops[k].slot] = values[k];
  for (const CompiledLoop& l : a.loops) {
    for (const auto& [slot, expr] : l.defines) {
      if (!expr.eval(e, &e.v[slot], error)) {
        *error = "define " + a.scope.name(slot) + " = '" + expr.text() + "': " + *error;
        return false;
      }
    }
  }
  return true;
}

// The same as intervals: each loop variable over every value it takes (values == nullptr), or at
// one iteration's values. Returns whether a scoped define may fail somewhere in the box.
bool bind_scope(const CompiledAccess& a, IntervalEnv& ie, const int64_t* values = nullptr) {
  for (size_t k = 0; k < a.loops.size(); ++k) {
    const CompiledLoop& l = a.loops[k];
    ie.v[l.slot] = values != nullptr ? Interval{values[k], values[k]} : Interval{l.lo, l.hi};
  }
  bool may_fail = false;
  for (const CompiledLoop& l : a.loops) {
    for (const auto& [slot, expr] : l.defines) {
      ie.v[slot] = expr.interval(ie);
      may_fail = may_fail || ie.v[slot].may_fail;
    }
  }
  return may_fail;
}

// Whether the guard decides which lanes take part (hoisted: every lane, the guard not evaluated).
bool guard_applies(const CompiledAccess& a) { return !a.guard.empty() && a.issue != IssueMode::kHoisted; }

// Whether a warp issues the instruction whose active lanes are `mask`: only the branch mode lets a
// warp with no active lane skip it (IssueMode in scenario.hpp).
bool is_issued(const CompiledAccess& a, uint32_t mask) { return a.issue != IssueMode::kBranch || mask != 0; }

// ldmatrix/stmatrix: a row is 16 contiguous bytes at a 16-byte aligned address (the GPU faults
// otherwise) and must lie inside the array. "" = fine, else what is wrong (without where).
std::string matrix_row_problem(const SharedArray& arr, uint32_t addr, int lane) {
  if (addr % 16 != 0) {
    return "row address byte " + std::to_string(addr) + " (lane " + std::to_string(lane) +
           ") is not 16-byte aligned (the GPU faults with \"misaligned address\")";
  }
  if (uint64_t(addr) + 16 > uint64_t(arr.base) + arr.bytes()) {
    return "the 16-byte row at byte " + std::to_string(addr) + " (lane " + std::to_string(lane) +
           ") runs past the end of " + arr.name;
  }
  return "";
}

// Evaluates statement `a` for one warp at the given loop values, in logical coordinates: which
// lanes take part and the (row, col) each reads or writes. Everything that does not depend on the
// physical layout (defines, guard, index bounds) is checked here, with its error naming the
// thread. An ldmatrix/stmatrix row's alignment depends on the layout: map_access checks it (naming
// the lane), so a launch and the advisor's profile of it say the same (fuzz_scenario compares).
Result<bool> build_logical(const Scenario& s, const CompiledAccess& a, const int64_t* loop_values,
                           WarpLanes& w, LogicalExecution* out) {
  out->mask = 0;
  out->row.fill(0);
  out->col.fill(0);
  const SharedArray& arr = s.arrays[static_cast<size_t>(a.array)];
  auto where = [&](const Env& e) {
    std::string t = a.where + " (" + a.text + "): at " + thread_where(e);
    if (!a.loops.empty()) t += ", " + loop_text(a, loop_values);
    return t;
  };
  // ldmatrix/stmatrix: only lanes 0..8*num-1 give a row address (documented by NVIDIA, PTX ISA
  // "ldmatrix"); the other lanes' target is not evaluated, as the hardware does not read it.
  uint32_t lanes = w.exists;
  if (is_matrix(a.op) && a.matrices < 4) lanes &= (uint32_t{1} << (8 * a.matrices)) - 1u;
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Env& e = w.env[lane];
    std::string err;
    if (!bind_scope(a, loop_values, e, &err)) return Error{where(e) + ": " + err};
    if (guard_applies(a)) {
      int64_t g = 0;
      if (!a.guard.eval(e, &g, &err)) return Error{where(e) + ": if '" + a.guard.text() + "': " + err};
      if (g == 0) continue;
    }
    int64_t idx[kMaxArrayRank] = {0, 0, 0, 0};
    for (size_t d = 0; d < a.index.size(); ++d) {
      if (!a.index[d].eval(e, &idx[d], &err)) {
        return Error{where(e) + ": index '" + a.index[d].text() + "': " + err};
      }
      const int64_t extent = arr.shape.dim(static_cast<int>(d));
      if (idx[d] < 0 || idx[d] >= extent) {
        return Error{where(e) + ": index " + std::to_string(idx[d]) + " ('" + a.index[d].text() +
                     "') is outside [0, " + std::to_string(extent) + ") of " + arr.name};
      }
    }
    out->row[static_cast<size_t>(lane)] = static_cast<int32_t>(arr.shape.row_of(idx));
    out->col[static_cast<size_t>(lane)] = static_cast<int32_t>(idx[arr.shape.rank - 1]);
    out->mask |= uint32_t{1} << lane;
  }
  return true;
}

// The instruction a logical execution of statement `a` is under the scenario's layouts: each
// active lane's (row, col) mapped to its byte address, then validate() (alignment, width), whose
// error names the statement and the loop values.
Result<WarpAccess> map_access(const Scenario& s, const CompiledAccess& a,
                              const int64_t* loop_values, const LogicalExecution& x) {
  WarpAccess acc;
  acc.op = a.op;
  acc.width = a.width;
  acc.matrices = a.matrices;
  acc.trans = a.trans;
  acc.atom = a.atom;
  acc.mask = x.mask;
  const SharedArray& arr = s.arrays[static_cast<size_t>(a.array)];
  const auto at = [&] {
    return a.where + " (" + a.text + ")" + (a.loops.empty() ? "" : " at " + loop_text(a, loop_values));
  };
  for (uint32_t m = x.mask; m != 0; m &= m - 1) {
    const size_t lane = static_cast<size_t>(__builtin_ctz(m));
    acc.addr[lane] = arr.byte_address(x.row[lane], x.col[lane]);
    if (is_matrix(a.op)) {
      const std::string problem = matrix_row_problem(arr, acc.addr[lane], static_cast<int>(lane));
      if (!problem.empty()) return Error{at() + ": " + problem};
    }
  }
  auto ok = validate(acc, s.spec.banks);
  if (!ok) {
    return Error{a.where + " (" + a.text + ")" +
                 (a.loops.empty() ? "" : " at " + loop_text(a, loop_values)) + ": " +
                 ok.error().message};
  }
  return acc;
}

// Calls fn(stmt index, loop values, logical execution) for every instruction of one warp, in
// program order.
// only_stmt >= 0: that statement's instructions only (the others are not evaluated).
template <class Fn>
Result<bool> for_each_logical(const Scenario& s, const Dim3& block, int warp, Fn&& fn,
                              int only_stmt = -1) {
  WarpLanes w;
  auto lanes = make_lanes(s, block_env(s, block), warp, &w);
  if (!lanes) return lanes.error();
  LogicalExecution x;
  for (const auto& [stmt, iter] : s.program) {
    if (only_stmt >= 0 && static_cast<int>(stmt) != only_stmt) continue;
    const CompiledAccess& a = s.accesses[static_cast<size_t>(stmt)];
    const int64_t* values = a.iterations.data() + size_t(iter) * a.loops.size();
    x.stmt = static_cast<int>(stmt);
    auto ok = build_logical(s, a, values, w, &x);
    if (!ok) return ok.error();
    auto r = fn(x.stmt, values, x);
    if (!r) return r.error();
  }
  return true;
}

// Calls fn(stmt index, loop values, access, issued) for every instruction of one warp, in program
// order; `issued` is false where the warp branches around it (IssueMode::kBranch, no active lane).
template <class Fn>
Result<bool> for_each_instruction(const Scenario& s, const Dim3& block, int warp, Fn&& fn,
                                  int only_stmt = -1) {
  return for_each_logical(
      s, block, warp,
      [&](int stmt, const int64_t* values, const LogicalExecution& x) -> Result<bool> {
        const CompiledAccess& a = s.accesses[static_cast<size_t>(stmt)];
        if (!is_issued(a, x.mask)) {
          // The warp branches around it: nothing is executed, so nothing is mapped or validated
          // (as the advisor's profile, which never records such executions).
          WarpAccess none;
          none.op = a.op;
          none.width = a.width;
          none.matrices = a.matrices;
          none.trans = a.trans;
          none.atom = a.atom;
          none.mask = 0;
          fn(stmt, values, none, false);
          return true;
        }
        auto acc = map_access(s, a, values, x);
        if (!acc) return acc.error();
        fn(stmt, values, *acc, true);
        return true;
      },
      only_stmt);
}

struct BlockTotals {
  std::vector<OpTotals> per_access;
  int max_n_way = 0;
};

Result<BlockTotals> simulate_block(const Scenario& s, const Dim3& block) {
  BlockTotals t;
  t.per_access.resize(s.accesses.size());
  for (int w = 0; w < s.warps_per_block(); ++w) {
    auto r = for_each_instruction(s, block, w, [&](int stmt, const int64_t*, const WarpAccess& acc, bool issued) {
      if (!issued) return;  // the whole warp branched around it
      // Issued with no active lane (predicated): an instruction, 0 wavefronts.
      const AccessCost c = acc.mask == 0 ? AccessCost{} : cost_sass(acc, s.spec.banks);
      t.per_access[static_cast<size_t>(stmt)].add(c, 1, acc.mask != 0);
      t.max_n_way = std::max(t.max_n_way, c.n_way);
    });
    if (!r) return r.error();
  }
  return t;
}

void accumulate(LaunchTotals& lt, const Scenario& s, const BlockTotals& bt, uint64_t times) {
  for (size_t i = 0; i < bt.per_access.size(); ++i) {
    const OpTotals o = bt.per_access[i].scaled(times);
    lt.per_access[i] += o;
    lt.of(s.accesses[i].op) += o;  // each kind under its own counters, never ld's or st's
  }
  lt.max_n_way = std::max(lt.max_n_way, bt.max_n_way);
}

LaunchTotals empty_totals(const Scenario& s) {
  LaunchTotals lt;
  lt.per_access.resize(s.accesses.size());
  lt.grid = s.grid;
  lt.blocks = static_cast<uint64_t>(s.grid.count());
  return lt;
}

struct Region {
  int64_t lo[3], hi[3];
  uint64_t count() const {  // at most (2^31-1) x 65535 x 65535 < 2^63: saturating all the same
    bool sat = false;
    return sat_mul(sat_mul(uint64_t(hi[0] - lo[0] + 1), uint64_t(hi[1] - lo[1] + 1), &sat),
                   uint64_t(hi[2] - lo[2] + 1), &sat);
  }
};

// The slots of a thread in a region of blocks, as intervals: blockIdx over the region, threadIdx,
// lane and warp over the whole block, the dimensions and n as points.
IntervalEnv region_env(const Scenario& s, const Region& r) {
  IntervalEnv ie;
  const Dim3& b = s.spec.block;
  ie.v[kThreadIdxX] = {0, b.x - 1};
  ie.v[kThreadIdxY] = {0, b.y - 1};
  ie.v[kThreadIdxZ] = {0, b.z - 1};
  ie.v[kBlockIdxX] = {r.lo[0], r.hi[0]};
  ie.v[kBlockIdxY] = {r.lo[1], r.hi[1]};
  ie.v[kBlockIdxZ] = {r.lo[2], r.hi[2]};
  ie.v[kBlockDimX] = {b.x, b.x};
  ie.v[kBlockDimY] = {b.y, b.y};
  ie.v[kBlockDimZ] = {b.z, b.z};
  ie.v[kGridDimX] = {s.grid.x, s.grid.x};
  ie.v[kGridDimY] = {s.grid.y, s.grid.y};
  ie.v[kGridDimZ] = {s.grid.z, s.grid.z};
  ie.v[kLane] = {0, std::min<int64_t>(kWarpSize, b.count()) - 1};
  ie.v[kWarp] = {0, s.warps_per_block() - 1};
  ie.v[kN] = {s.spec.n, s.spec.n};
  for (const auto& [slot, value] : s.params) ie.v[slot] = {value, value};
  return ie;
}

// A guard's value over a box: 1 true everywhere, 0 false everywhere, -1 it may differ (or its
// evaluation may fail somewhere).
int8_t truth_of(const Interval& g) {
  if (g.may_fail) return -1;
  if (g.lo > 0 || g.hi < 0) return 1;
  return (g.lo == 0 && g.hi == 0) ? 0 : -1;
}

// Per statement: 1 if its guard is true for every thread of every block in the region (and every
// loop iteration), 0 if false for all, -1 if it may differ.
std::vector<int8_t> guard_truth(const Scenario& s, const Region& r) {
  IntervalEnv ie = region_env(s, r);
  // Every thread evaluates every define, so a define that may fail somewhere in the region (a
  // division by zero in one block, say) makes the region non-uniform: it is bisected down to
  // single blocks, which are simulated and report the error, as the brute force would.
  bool defines_may_fail = false;
  for (const auto& [slot, expr] : s.defines) {
    ie.v[slot] = expr.interval(ie);
    defines_may_fail = defines_may_fail || ie.v[slot].may_fail;
  }
  std::vector<int8_t> truth(s.accesses.size(), 1);
  for (size_t i = 0; i < s.accesses.size(); ++i) {
    const CompiledAccess& a = s.accesses[i];
    // A scoped define is evaluated by every thread, whatever the guard: one that may fail makes
    // the region non-uniform, as a define above does.
    if (defines_may_fail || bind_scope(a, ie)) {
      truth[i] = -1;
      continue;
    }
    if (!guard_applies(a)) continue;
    truth[i] = truth_of(a.guard.interval(ie));
  }
  return truth;
}

bool addresses_depend_on_block(const Scenario& s) {
  for (const CompiledAccess& a : s.accesses) {
    for (const Expr& e : a.index) {
      if (e.deps(a.scope) & kBlockIdxSlots) return true;
    }
  }
  return false;
}

// True when every thread sees the same truth value of every guard (each loop iteration apart) in
// every block of the region, although threads differ from one another: the blocks on one edge of a
// matrix whose size is not a multiple of the tile. Their masks are then identical, and so (with
// addresses independent of blockIdx) are their instructions. Evaluated per thread with threadIdx
// as points and blockIdx as the region's ranges; any define or guard that may fail refuses.
bool threads_uniform(const Scenario& s, const Region& r) {
  constexpr int64_t kMaxIterations = 64;  // beyond that, a loop variable is taken as its range
  IntervalEnv ie = region_env(s, r);  // threadIdx, lane and warp become points below
  const Dim3& b = s.spec.block;
  auto definite = [](const Interval& g) { return truth_of(g) >= 0; };
  for (int64_t t = 0; t < b.count(); ++t) {
    ie.v[kThreadIdxX] = {t % b.x, t % b.x};
    ie.v[kThreadIdxY] = {(t / b.x) % b.y, (t / b.x) % b.y};
    ie.v[kThreadIdxZ] = {t / (b.x * b.y), t / (b.x * b.y)};
    ie.v[kLane] = {t % kWarpSize, t % kWarpSize};
    ie.v[kWarp] = {t / kWarpSize, t / kWarpSize};
    for (const auto& [slot, expr] : s.defines) {
      ie.v[slot] = expr.interval(ie);
      if (ie.v[slot].may_fail) return false;
    }
    for (const CompiledAccess& a : s.accesses) {
      // Scoped defines are evaluated whatever the guard; one that may fail refuses.
      if (!guard_applies(a)) {
        if (bind_scope(a, ie)) return false;
        continue;
      }
      // Few iterations: each on its own (a guard like y + j < n changes with j); else ranges.
      const int64_t iters = a.instructions_per_warp();
      if (!a.loops.empty() && iters <= kMaxIterations) {
        for (int64_t it = 0; it < iters; ++it) {
          if (bind_scope(a, ie, a.iterations.data() + size_t(it) * a.loops.size())) return false;
          if (!definite(a.guard.interval(ie))) return false;
        }
      } else {
        if (bind_scope(a, ie)) return false;
        if (!definite(a.guard.interval(ie))) return false;
      }
    }
  }
  return true;
}

// Caps, cancellation and progress (TotalsOptions), shared by both ways of counting: before each
// simulated block the run asks whether to go on, and after each counted block or region it
// reports how many blocks are accounted for.
struct Budget {
  const TotalsOptions& opt;
  LaunchTotals& lt;
  bool stopped = false;

  bool may_simulate() {
    if (stopped) return false;
    if (opt.cancel != nullptr && opt.cancel->load(std::memory_order_relaxed)) {
      lt.stopped_because = "cancelled";
    } else if (opt.max_simulated_blocks != 0 && lt.blocks_simulated >= opt.max_simulated_blocks) {
      lt.stopped_because = "over the limit of " + std::to_string(opt.max_simulated_blocks) + " simulated blocks";
    } else {
      return true;
    }
    stopped = true;
    return false;
  }
  void simulated() {
    bool sat = false;
    lt.blocks_simulated = sat_add(lt.blocks_simulated, 1, &sat);
  }
  void counted(uint64_t blocks) {
    bool sat = false;
    lt.blocks_counted = sat_add(lt.blocks_counted, blocks, &sat);
    if (opt.blocks_done != nullptr) opt.blocks_done->store(lt.blocks_counted, std::memory_order_relaxed);
  }
};

// What a traversal of the launch does with each simulated block: launch_totals() costs it
// (TotalsSink), launch_profile() records its logical executions (ProfileSink). A sink has
//   Block simulate(block)          the block's contribution, or its error
//   void add(const Block&, times)  counts that contribution `times` times
struct TotalsSink {
  const Scenario& s;
  LaunchTotals& lt;
  using Block = BlockTotals;
  Result<BlockTotals> simulate(const Dim3& block) { return simulate_block(s, block); }
  void add(const BlockTotals& bt, uint64_t times) { accumulate(lt, s, bt, times); }
};

template <class Sink>
struct Totaler {
  const Scenario& s;
  Sink& sink;
  Budget& budget;
  std::map<std::vector<int8_t>, typename Sink::Block> memo;

  // Simulates `block` and counts it `times` times; false when the budget says stop.
  Result<bool> simulate_as(const Dim3& block, uint64_t times, const std::vector<int8_t>* memo_key) {
    if (memo_key != nullptr) {
      auto it = memo.find(*memo_key);
      if (it != memo.end()) {
        sink.add(it->second, times);
        budget.counted(times);
        return true;
      }
    }
    if (!budget.may_simulate()) return false;
    auto bt = sink.simulate(block);
    if (!bt) return bt.error();
    budget.simulated();
    sink.add(*bt, times);
    budget.counted(times);
    if (memo_key != nullptr) memo.emplace(*memo_key, std::move(*bt));
    return true;
  }

  // Counts region r; false when stopped early (the blocks counted so far stay counted).
  Result<bool> region(const Region& r) {
    const std::vector<int8_t> truth = guard_truth(s, r);
    const bool uniform = std::find(truth.begin(), truth.end(), int8_t{-1}) == truth.end();
    const uint64_t n = r.count();
    const Dim3 first{r.lo[0], r.lo[1], r.lo[2]};
    if (uniform) return simulate_as(first, n, &truth);
    if (n == 1) return simulate_as(first, 1, nullptr);
    if (threads_uniform(s, r)) return simulate_as(first, n, nullptr);  // an edge strip: every block like its first
    // Peel the last or first slice off an axis when the rest is uniform (the edge of a matrix that
    // is not a multiple of the tile), else bisect the longest axis.
    for (int k = 0; k < 3; ++k) {
      if (r.hi[k] == r.lo[k]) continue;
      for (const bool last : {true, false}) {
        Region rest = r, slice = r;
        if (last) {
          rest.hi[k] = r.hi[k] - 1;
          slice.lo[k] = r.hi[k];
        } else {
          rest.lo[k] = r.lo[k] + 1;
          slice.hi[k] = r.lo[k];
        }
        const std::vector<int8_t> t = guard_truth(s, rest);
        if (std::find(t.begin(), t.end(), int8_t{-1}) == t.end()) {
          auto ra = region(rest);
          if (!ra || !*ra) return ra;
          return region(slice);
        }
      }
    }
    int axis = 0;
    for (int k = 1; k < 3; ++k) {
      if (r.hi[k] - r.lo[k] > r.hi[axis] - r.lo[axis]) axis = k;
    }
    Region a = r, b = r;
    const int64_t mid = r.lo[axis] + (r.hi[axis] - r.lo[axis]) / 2;
    a.hi[axis] = mid;
    b.lo[axis] = mid + 1;
    auto ra = region(a);
    if (!ra || !*ra) return ra;
    return region(b);
  }
};

__extension__ using Wide = unsigned __int128;  // GCC and Clang; products of two uint64 counts

uint64_t gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Every block once, in the order i -> (i * step) mod count with step coprime to count (a
// permutation), step near count / phi so that consecutive visits land far apart: a run stopped
// early has counted blocks spread over the whole grid, a fair sample for the estimate.
template <class Sink>
Result<bool> count_every_block(const Scenario& s, const LaunchTotals& lt, Sink& sink,
                               Budget& budget, bool spread) {
  const uint64_t count = lt.blocks;
  uint64_t step = 1;
  if (spread && count > 2) {
    step = static_cast<uint64_t>(static_cast<long double>(count) * 0.6180339887498949L);
    step = std::max<uint64_t>(step, 1);
    while (gcd(step, count) != 1) ++step;
  }
  const uint64_t gx = static_cast<uint64_t>(s.grid.x), gy = static_cast<uint64_t>(s.grid.y);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t b = static_cast<uint64_t>((Wide{i} * step) % count);
    const Dim3 block{static_cast<int64_t>(b % gx), static_cast<int64_t>((b / gx) % gy),
                     static_cast<int64_t>(b / (gx * gy))};
    if (!budget.may_simulate()) return false;
    auto bt = sink.simulate(block);
    if (!bt) return bt.error();
    budget.simulated();
    sink.add(*bt, 1);
    budget.counted(1);
  }
  return true;
}

// counts * blocks / blocks_counted, saturating.
OpTotals estimate(const OpTotals& o, uint64_t blocks, uint64_t counted) {
  if (counted == 0) return OpTotals{};
  OpTotals e = o;
  auto scale = [&](uint64_t v) {
    const Wide x = Wide{v} * blocks / counted;
    if (x > kCountMax) {
      e.saturated = true;
      return kCountMax;
    }
    return static_cast<uint64_t>(x);
  };
  e.instructions = scale(o.instructions);
  e.active_instructions = scale(o.active_instructions);
  e.wavefronts = scale(o.wavefronts);
  e.ideal = scale(o.ideal);
  e.conflicts = std::min(scale(o.conflicts), e.wavefronts);
  return e;
}

// The launch's blocks, each simulated or proved identical to a simulated one (the file comment);
// false when the budget stopped it.
template <class Sink>
Result<bool> traverse(const Scenario& s, const LaunchTotals& lt, Sink& sink, Budget& budget) {
  if (addresses_depend_on_block(s)) return count_every_block(s, lt, sink, budget, /*spread=*/true);
  Totaler<Sink> t{s, sink, budget, {}};
  return t.region(Region{{0, 0, 0}, {s.grid.x - 1, s.grid.y - 1, s.grid.z - 1}});
}

void finish(LaunchTotals& lt, bool complete) {
  lt.complete = complete;
  if (complete) lt.stopped_because.clear();
  for (Op op : kAllOps) {
    lt.estimate_of(op) = complete ? lt.of(op) : estimate(lt.of(op), lt.blocks, lt.blocks_counted);
  }
}

// Records the logical executions of each simulated block: each distinct one is interned in the
// profile's table (first-met order), a block is the list of (table index, count in the block).
struct ProfileSink {
  const Scenario& s;
  LaunchProfile& p;
  uint64_t max_executions;  // 0 = no limit
  // hash of an execution -> indices into p.executions with that hash
  std::unordered_map<uint64_t, std::vector<uint32_t>> index;
  std::vector<uint64_t> block_count;  // scratch, per table index: count in the block simulated now
  using Block = std::vector<std::pair<uint32_t, uint64_t>>;

  static uint64_t hash(const LogicalExecution& x) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t(uint32_t(x.stmt)) << 32 | x.mask);
    auto mix = [&](uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    };
    for (uint32_t m = x.mask; m != 0; m &= m - 1) {
      const size_t lane = static_cast<size_t>(__builtin_ctz(m));
      mix(uint64_t(x.row[lane]));
      mix(uint64_t(x.col[lane]));
    }
    return h;
  }
  static constexpr uint32_t kTooMany = 0xffffffffu;
  // The execution's index in the table (added if new), or kTooMany past max_executions.
  uint32_t intern(const LogicalExecution& x, const int64_t* loop_values) {
    std::vector<uint32_t>& ids = index[hash(x)];
    for (uint32_t id : ids) {
      if (p.executions[id] == x) return id;
    }
    if (max_executions != 0 && p.executions.size() >= max_executions) return kTooMany;
    const uint32_t id = static_cast<uint32_t>(p.executions.size());
    ids.push_back(id);
    p.executions.push_back(x);
    p.times.push_back(0);
    p.times_saturated.push_back(0);
    std::array<int64_t, kMaxLoopsPerAccess> v{};
    const size_t nloops = s.accesses[static_cast<size_t>(x.stmt)].loops.size();
    for (size_t k = 0; k < nloops; ++k) v[k] = loop_values[k];
    p.first_loop_values.push_back(v);
    block_count.push_back(0);
    return id;
  }
  Result<Block> simulate(const Dim3& block) {
    Block b;
    for (int w = 0; w < s.warps_per_block(); ++w) {
      auto r = for_each_logical(
          s, block, w,
          [&](int stmt, const int64_t* values, const LogicalExecution& x) -> Result<bool> {
            if (!is_issued(s.accesses[static_cast<size_t>(stmt)], x.mask)) return true;
            ++p.warp_instructions;
            const uint32_t id = intern(x, values);
            if (id == kTooMany) {
              return Error{"more than " + std::to_string(max_executions) +
                           " distinct warp executions"};
            }
            if (block_count[id]++ == 0) b.emplace_back(id, 0);
            return true;
          });
      if (!r) {
        for (const auto& e : b) block_count[e.first] = 0;
        return r.error();
      }
    }
    for (auto& e : b) {
      e.second = block_count[e.first];
      block_count[e.first] = 0;
    }
    return b;
  }
  void add(const Block& b, uint64_t times) {
    for (const auto& [id, count] : b) {
      bool sat = false;
      p.times[id] = sat_add(p.times[id], sat_mul(count, times, &sat), &sat);
      if (sat) p.times_saturated[id] = 1;
    }
  }
};

}  // namespace

Result<std::vector<WarpInstruction>> warp_instructions(const Scenario& s, Dim3 block, int warp,
                                                       int only_stmt) {
  if (warp < 0 || warp >= s.warps_per_block()) {
    return Error{"warp: " + std::to_string(warp) + " is outside 0.." +
                 std::to_string(s.warps_per_block() - 1)};
  }
  if (block.x < 0 || block.y < 0 || block.z < 0 || block.x >= s.grid.x || block.y >= s.grid.y ||
      block.z >= s.grid.z) {
    return Error{"block: " + dim_text(block.x, block.y, block.z) + " is outside the grid " +
                 dim_text(s.grid.x, s.grid.y, s.grid.z)};
  }
  std::vector<WarpInstruction> out;
  auto r = for_each_instruction(
      s, block, warp,
      [&](int stmt, const int64_t* values, const WarpAccess& acc, bool issued) {
        WarpInstruction wi;
        wi.stmt = stmt;
        wi.nloops = static_cast<int>(s.accesses[static_cast<size_t>(stmt)].loops.size());
        for (int k = 0; k < wi.nloops; ++k) wi.loop_values[static_cast<size_t>(k)] = values[k];
        wi.access = acc;
        wi.issued = issued;
        wi.text = s.accesses[static_cast<size_t>(stmt)].text;
        if (wi.nloops > 0)
          wi.text += "  (" + loop_text(s.accesses[static_cast<size_t>(stmt)], values) + ")";
        out.push_back(wi);
      },
      only_stmt);
  if (!r) return r.error();
  return out;
}

Result<LaunchTotals> launch_totals(const Scenario& s, const TotalsOptions& opt) {
  LaunchTotals lt = empty_totals(s);
  Budget budget{opt, lt};
  TotalsSink sink{s, lt};
  auto r = traverse(s, lt, sink, budget);
  if (!r) return r.error();
  finish(lt, *r);
  return lt;
}

Result<LaunchTotals> launch_totals_brute_force(const Scenario& s) {
  LaunchTotals lt = empty_totals(s);
  const TotalsOptions unlimited;
  Budget budget{unlimited, lt};
  TotalsSink sink{s, lt};
  auto r = count_every_block(s, lt, sink, budget, /*spread=*/false);
  if (!r) return r.error();
  finish(lt, true);
  return lt;
}

Result<LaunchProfile> launch_profile(const Scenario& s, const TotalsOptions& opt,
                                     uint64_t max_executions) {
  LaunchTotals lt = empty_totals(s);  // the traversal's bookkeeping (budget, blocks)
  Budget budget{opt, lt};
  LaunchProfile p;
  ProfileSink sink{s, p, max_executions, {}, {}};
  auto r = traverse(s, lt, sink, budget);
  if (!r) return r.error();
  p.grid = lt.grid;
  p.blocks = lt.blocks;
  p.blocks_simulated = lt.blocks_simulated;
  p.blocks_counted = lt.blocks_counted;
  p.complete = *r;
  p.stopped_because = *r ? std::string{} : lt.stopped_because;
  return p;
}

Result<LaunchTotals> totals_from_profile(const Scenario& s, const LaunchProfile& p) {
  LaunchTotals lt = empty_totals(s);
  lt.grid = p.grid;
  lt.blocks = p.blocks;
  lt.blocks_simulated = p.blocks_simulated;
  lt.blocks_counted = p.blocks_counted;
  lt.stopped_because = p.stopped_because;
  for (size_t i = 0; i < p.executions.size(); ++i) {
    const LogicalExecution& x = p.executions[i];
    const CompiledAccess& a = s.accesses[static_cast<size_t>(x.stmt)];
    // Every execution is mapped and validated, as launch_totals does, an empty one too (an
    // ldmatrix whose row lanes are not all active is refused either way; fuzz_scenario compares).
    auto acc = map_access(s, a, p.first_loop_values[i].data(), x);
    if (!acc) return acc.error();
    AccessCost c;  // issued with no active lane (predicated): an instruction, 0 wavefronts
    if (x.mask != 0) c = cost_sass(*acc, s.spec.banks);
    OpTotals& o = lt.per_access[static_cast<size_t>(x.stmt)];
    o.add(c, p.times[i], x.mask != 0);
    // A clamped multiplicity: the true count exceeds 2^64 - 1, as the block-by-block sum would say.
    if (p.times_saturated[i] != 0) o.saturated = true;
    lt.max_n_way = std::max(lt.max_n_way, c.n_way);
  }
  // Saturating sums of non-negative counts are min(true sum, 2^64 - 1) in any order, and a count
  // saturates in one order exactly when it does in another: the same totals as block by block.
  for (size_t i = 0; i < lt.per_access.size(); ++i) {
    lt.of(s.accesses[i].op) += lt.per_access[i];  // each kind under its own counters, as launch_totals
  }
  finish(lt, p.complete);
  return lt;
}

}  // namespace bankscope
