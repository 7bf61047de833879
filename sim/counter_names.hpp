// counter_names.hpp: the Nsight Compute metrics bankscope predicts, named in one place, so the CLI,
// the app, the JSON and bankscope-gpu print the same names.
//
// Per launch the model predicts the instruction-level (SASS-patched) counters, which count exactly
// what each instruction needs. The hardware l1tex__ counters equal them only for a single warp (a
// single block in practice); with many resident blocks the L1 data pipe also counts work for
// other traffic and reads high (measured on the H200: assets/results/h200/README.md).
#pragma once

#include "bank_model.hpp"

namespace bankscope::counters {

// Whole launch, exact: what bankscope's per-launch totals predict. Two instruction counts,
// measured apart on the H200 (assets/results/h200/validate.json, 2026-11-30): the hardware counter
// counts every warp-level execution of the instruction, including a predicated one whose lanes are
// all off (nvcc predicates guarded stores: 128 at N = 33 for the seed kernel's STS), while the
// SASS-patched counter counts executions with at least one active thread (66 there).
inline const char* inst_executed(Op op) {
  return op == Op::kLoad ? "smsp__inst_executed_op_shared_ld.sum"
                         : "smsp__inst_executed_op_shared_st.sum";
}
inline const char* sass_inst_executed(Op op) {
  return op == Op::kLoad ? "smsp__sass_inst_executed_op_shared_ld.sum"
                         : "smsp__sass_inst_executed_op_shared_st.sum";
}
inline const char* wavefronts(Op op) {
  return op == Op::kLoad ? "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
                         : "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
}
// Bank conflicts per launch = wavefronts - ideal. sm_90 has no instruction-level bank-conflict
// counter for LDS/STS (ncu 2025.3.1 on the H200: `smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_
// mem_shared_op_ld` "is invalid"; it exists only for ldsm, stsm and ldgsts:
// assets/results/h200/ncu_shared_metrics.txt), so the per-launch conflicts are derived from the
// instruction-level wavefronts; the hardware l1tex__data_bank_conflicts counter is exact only for
// one warp.
inline const char* bank_conflicts(Op op) {
  return op == Op::kLoad ? "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum - ideal"
                         : "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum - ideal";
}

// One warp instruction in a one-warp launch: the hardware counters are exact there too.
inline const char* l1tex_wavefronts(Op op) {
  return op == Op::kLoad ? "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
                         : "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
}
inline const char* l1tex_bank_conflicts(Op op) {
  return op == Op::kLoad ? "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
                         : "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
}

}  // namespace bankscope::counters
