// kernel_model.hpp: a Scenario run the CUDA way.
//
//   (block, warp, lane) -> thread index    threads are numbered x fastest, then y, then z;
//                                          warp w holds threads 32w .. 32w+31 of its block
//   (statement, loop values, warp) -> one warp instruction (a WarpAccess), lanes whose guard is
//                                     false are inactive; whether a warp with no active lane issues
//                                     it is the statement's IssueMode (scenario.hpp)
//   launch -> totals that correspond to what ncu reports for the whole kernel
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bank_model.hpp"
#include "scenario.hpp"

namespace bankscope {

struct WarpInstruction {
  int stmt = 0;                                   // index into Scenario::accesses
  std::array<int64_t, kMaxLoopsPerAccess> loop_values{};
  int nloops = 0;
  WarpAccess access;                              // lanes that take part (mask may be 0)
  // false: the warp branches around it (IssueMode::kBranch, no lane passes). A predicated access
  // with no passing lane is issued with mask 0: an instruction with 0 wavefronts.
  bool issued = true;
  std::string text;                               // "ld tile[threadIdx.x][threadIdx.y + j]  (j=8)"
};

// Every instruction warp `warp` of block `block` executes, in program order (statements in order,
// loops unrolled). Errors (an index out of the array, division by zero) name the statement, the
// thread and the block.
Result<std::vector<WarpInstruction>> warp_instructions(const Scenario& s, Dim3 block, int warp);

// Counts saturate at 2^64 - 1 instead of wrapping; `saturated` then says the true count is larger
// (a grid of 2^31-1 x 65535 x 65535 blocks can exceed 2^64 instructions).
inline constexpr uint64_t kCountMax = std::numeric_limits<uint64_t>::max();
inline uint64_t sat_add(uint64_t a, uint64_t b, bool* sat) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) { *sat = true; return kCountMax; }
  return r;
}
inline uint64_t sat_mul(uint64_t a, uint64_t b, bool* sat) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) { *sat = true; return kCountMax; }
  return r;
}

// What the model predicts for one launch, per op. Counter names (what Nsight Compute reports for
// the whole launch, instruction-level: exact, see README "What it predicts"):
struct OpTotals {
  // Every warp-level execution, a predicated one with no active lane included:
  // smsp__inst_executed_op_shared_{ld,st}.sum
  uint64_t instructions = 0;
  // Executions with at least one active lane: smsp__sass_inst_executed_op_shared_{ld,st}.sum
  // (differs from `instructions` only for IssueMode::kPredicated; measured on the H200)
  uint64_t active_instructions = 0;
  uint64_t wavefronts = 0;    // smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum
  uint64_t ideal = 0;         // wavefronts the instructions need at minimum
  // wavefronts - ideal, accumulated on its own so that clamping keeps it <= wavefronts (a
  // difference of two clamped counts would say nothing)
  uint64_t conflicts = 0;
  bool saturated = false;     // a count exceeded 2^64 - 1 and is clamped there
  // smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
  uint64_t bank_conflicts() const { return conflicts; }
  void add(const AccessCost& c, uint64_t times, bool active = true) {
    instructions = sat_add(instructions, times, &saturated);
    if (active) active_instructions = sat_add(active_instructions, times, &saturated);
    wavefronts = sat_add(wavefronts, sat_mul(uint64_t(c.wavefronts), times, &saturated), &saturated);
    ideal = sat_add(ideal, sat_mul(uint64_t(c.ideal_wavefronts), times, &saturated), &saturated);
    conflicts = sat_add(conflicts, sat_mul(uint64_t(c.wavefronts - c.ideal_wavefronts), times, &saturated),
                        &saturated);
  }
  OpTotals scaled(uint64_t times) const {
    OpTotals o;
    o.saturated = saturated;
    o.instructions = sat_mul(instructions, times, &o.saturated);
    o.active_instructions = sat_mul(active_instructions, times, &o.saturated);
    o.wavefronts = sat_mul(wavefronts, times, &o.saturated);
    o.ideal = sat_mul(ideal, times, &o.saturated);
    o.conflicts = sat_mul(conflicts, times, &o.saturated);
    return o;
  }
  OpTotals& operator+=(const OpTotals& o) {
    saturated = saturated || o.saturated;
    instructions = sat_add(instructions, o.instructions, &saturated);
    active_instructions = sat_add(active_instructions, o.active_instructions, &saturated);
    wavefronts = sat_add(wavefronts, o.wavefronts, &saturated);
    ideal = sat_add(ideal, o.ideal, &saturated);
    conflicts = sat_add(conflicts, o.conflicts, &saturated);
    return *this;
  }
};

// Control over a per-launch total that may need many simulated blocks (an index that depends on
// blockIdx forces a visit of every block). Safe to share with another thread: the caller may set
// *cancel from the UI thread and read *blocks_done for a progress bar.
struct TotalsOptions {
  uint64_t max_simulated_blocks = 0;          // 0 = no limit; else stop after this many
  const std::atomic<bool>* cancel = nullptr;  // set to stop early
  std::atomic<uint64_t>* blocks_done = nullptr;  // progress: blocks accounted for so far
};

struct LaunchTotals {
  // One per instruction kind, each under its own counters (counter_names.hpp): ld, st, ldsm,
  // stsm, atom (ldgsts: never from a scenario, which has no such kind).
  OpTotals ld, st, ldsm, stsm, atom, ldgsts;
  OpTotals& of(Op op) {
    switch (op) {
      case Op::kLoad:
        return ld;
      case Op::kStore:
        return st;
      case Op::kLdmatrix:
        return ldsm;
      case Op::kStmatrix:
        return stsm;
      case Op::kAtomic:
        return atom;
      case Op::kLdgsts:
        return ldgsts;
    }
    return ld;
  }
  const OpTotals& of(Op op) const { return const_cast<LaunchTotals*>(this)->of(op); }
  std::vector<OpTotals> per_access;  // one per statement (its op decides which total it joins)
  Dim3 grid;
  uint64_t blocks = 0;
  uint64_t blocks_simulated = 0;  // blocks actually evaluated (the rest were proved identical)
  int max_n_way = 0;
  // When the run stopped early (cancelled or over max_simulated_blocks), the counts above cover
  // only `blocks_counted` of `blocks` (a lower bound: exact for those blocks), and `estimate`
  // scales them to the whole grid (a sample: the blocks are visited in a spread-out order).
  bool complete = true;
  uint64_t blocks_counted = 0;
  std::string stopped_because;  // "cancelled" or "over the limit of N simulated blocks"
  OpTotals estimate_ld, estimate_st, estimate_ldsm, estimate_stsm, estimate_atom, estimate_ldgsts;
  OpTotals& estimate_of(Op op) {
    switch (op) {
      case Op::kLoad:
        return estimate_ld;
      case Op::kStore:
        return estimate_st;
      case Op::kLdmatrix:
        return estimate_ldsm;
      case Op::kStmatrix:
        return estimate_stsm;
      case Op::kAtomic:
        return estimate_atom;
      case Op::kLdgsts:
        return estimate_ldgsts;
    }
    return estimate_ld;
  }
  const OpTotals& estimate_of(Op op) const {
    return const_cast<LaunchTotals*>(this)->estimate_of(op);
  }
};

Result<LaunchTotals> launch_totals(const Scenario& s, const TotalsOptions& opt = {});

// Brute force over every block: the reference launch_totals() is tested against.
Result<LaunchTotals> launch_totals_brute_force(const Scenario& s);

}  // namespace bankscope
