// kernel_model.hpp: a Scenario run the CUDA way.
//
//   (block, warp, lane) -> thread index    threads are numbered x fastest, then y, then z;
//                                          warp w holds threads 32w .. 32w+31 of its block
//   (statement, loop values, warp) -> one warp instruction (a WarpAccess), lanes whose guard is
//                                     false are inactive; a warp with no active lane does not issue
//   launch -> totals that correspond to what ncu reports for the whole kernel
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bank_model.hpp"
#include "scenario.hpp"

namespace bankscope {

inline constexpr int kMaxLoopsPerAccess = 4;

struct WarpInstruction {
  int stmt = 0;                                   // index into Scenario::accesses
  std::array<int64_t, kMaxLoopsPerAccess> loop_values{};
  int nloops = 0;
  WarpAccess access;                              // mask 0: the warp skips this instruction
  std::string text;                               // "ld tile[threadIdx.x][threadIdx.y + j]  (j=8)"
};

// Every instruction warp `warp` of block `block` executes, in program order (statements in order,
// loops unrolled). Errors (an index out of the array, division by zero) name the statement, the
// thread and the block.
Result<std::vector<WarpInstruction>> warp_instructions(const Scenario& s, Dim3 block, int warp);

struct OpTotals {
  uint64_t instructions = 0;  // smsp__inst_executed_op_shared_{ld,st}
  uint64_t wavefronts = 0;    // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
  uint64_t ideal = 0;
  uint64_t bank_conflicts() const { return wavefronts - ideal; }  // l1tex__data_bank_conflicts_...
  void add(const AccessCost& c, uint64_t times) {
    instructions += times;
    wavefronts += uint64_t(c.wavefronts) * times;
    ideal += uint64_t(c.ideal_wavefronts) * times;
  }
  OpTotals& operator+=(const OpTotals& o) {
    instructions += o.instructions;
    wavefronts += o.wavefronts;
    ideal += o.ideal;
    return *this;
  }
};

struct LaunchTotals {
  OpTotals ld, st;
  std::vector<OpTotals> per_access;  // one per statement (its op decides ld or st)
  Dim3 grid;
  uint64_t blocks = 0;
  uint64_t blocks_simulated = 0;  // blocks actually evaluated (the rest were proved identical)
  int max_n_way = 0;
};

Result<LaunchTotals> launch_totals(const Scenario& s);

// Brute force over every block: the reference launch_totals() is tested against.
Result<LaunchTotals> launch_totals_brute_force(const Scenario& s);

}  // namespace bankscope
