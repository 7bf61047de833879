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
  switch (op) {
    case Op::kLoad: return "smsp__inst_executed_op_shared_ld.sum";
    case Op::kStore: return "smsp__inst_executed_op_shared_st.sum";
    case Op::kLdmatrix: return "smsp__inst_executed_op_ldsm.sum";
    case Op::kStmatrix: return "smsp__inst_executed_op_stsm.sum";
    case Op::kAtomic: return "smsp__inst_executed_op_shared_atom.sum";
    case Op::kLdgsts: return "smsp__inst_executed_op_ldgsts.sum";
  }
  return "?";
}
// The issue-11 kinds have their own instruction-level counters on sm_90 (ncu --query-metrics on the
// H200: assets/results/h200/ncu_shared_metrics.txt); ldgsts counts both .ca and .cg.
inline const char* sass_inst_executed(Op op) {
  switch (op) {
    case Op::kLoad: return "smsp__sass_inst_executed_op_shared_ld.sum";
    case Op::kStore: return "smsp__sass_inst_executed_op_shared_st.sum";
    case Op::kLdmatrix: return "smsp__sass_inst_executed_op_ldsm.sum";
    case Op::kStmatrix: return "smsp__sass_inst_executed_op_shared_stsm.sum";
    case Op::kAtomic: return "smsp__sass_inst_executed_op_shared_atom.sum";
    case Op::kLdgsts: return "smsp__sass_inst_executed_op_ldgsts.sum";
  }
  return "?";
}
inline const char* wavefronts(Op op) {
  switch (op) {
    case Op::kLoad: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    case Op::kStore: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
    case Op::kLdmatrix: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum";
    case Op::kStmatrix: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum";
    case Op::kAtomic: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
    case Op::kLdgsts: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
  }
  return "?";
}
// Bank conflicts per launch = wavefronts - ideal. sm_90 has no instruction-level bank-conflict
// counter for LDS/STS (ncu 2025.3.1 on the H200: `smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_
// mem_shared_op_ld` "is invalid"; it exists only for ldsm, stsm and ldgsts:
// assets/results/h200/ncu_shared_metrics.txt), so the per-launch conflicts are derived from the
// instruction-level wavefronts; the hardware l1tex__data_bank_conflicts counter is exact only for
// one warp.
inline const char* bank_conflicts(Op op) {
  switch (op) {
    case Op::kLoad: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum - ideal";
    case Op::kStore: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum - ideal";
    case Op::kLdmatrix: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum";
    case Op::kStmatrix: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum";
    case Op::kAtomic: return "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum - ideal";
    case Op::kLdgsts: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum";
  }
  return "?";
}

// One warp instruction in a one-warp launch: the hardware counters are exact there too. The
// issue-11 kinds were measured on their own counters (sim/RULES.md R7-R9): the instruction-level
// ones for ldsm, stsm and ldgsts, the l1tex ones for atom.
inline const char* l1tex_wavefronts(Op op) {
  switch (op) {
    case Op::kLoad: return "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    case Op::kStore: return "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
    case Op::kAtomic: return "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
    default: return wavefronts(op);
  }
}
inline const char* l1tex_bank_conflicts(Op op) {
  switch (op) {
    case Op::kLoad: return "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    case Op::kStore: return "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
    case Op::kLdmatrix: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum";
    case Op::kStmatrix: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum";
    case Op::kAtomic: return "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum";
    case Op::kLdgsts: return "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum";
  }
  return "?";
}

}  // namespace bankscope::counters
