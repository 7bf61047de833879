// sass.hpp: a reader for SASS text (`cuobjdump -sass` or `nvdisasm` output) that lists, per
// function, every shared-memory instruction and how it is issued. It knows no kernel: it reads
// whatever text it is given (issue 16 point 4; `bankscope-cli sass` reuses it).
//
//   SASS text -> [function (mangled name) -> shared-memory instructions in address order]
//
// How an instruction is issued, read from the code around it:
//   predicated     it carries a guard (@P0, @!P3, @UP1, ...; @PT counts as no guard): every warp
//                  that reaches it executes it, lanes whose predicate is false inactive. Nsight
//                  Compute counts it as executed even when no lane is active (measured on the H200:
//                  smsp__inst_executed_op_shared_st = 128 at N = 33 where 66 warps have a lane
//                  that stores; GPU_FACTS.md).
//   branch         no guard, but it lies in a region that a preceding forward conditional BRA
//                  jumps over, or after a predicated EXIT: a warp whose lanes all take the branch
//                  (or exit) never issues it.
//   unconditional  neither: every warp that enters the function executes it.
//
// With line information (`nvdisasm -g` of a cubin built with -lineinfo prints
// `//## File "k.cu", line 18` before the instructions of that line) each instruction also carries
// its source file and line; and an instruction between a backward branch's target and the branch
// is marked in_loop (its static count is per iteration of a loop the SASS kept).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "status.hpp"

namespace bankscope {

enum class SassIssue : uint8_t { kUnconditional, kPredicated, kBranch };
const char* sass_issue_name(SassIssue i);

struct SassSharedInst {
  uint64_t address = 0;  // the instruction's offset in the function (/*05a0*/ -> 0x5a0)
  std::string opcode;    // with every suffix: "STS.128", "LDSM.16.M88.4", "ATOMS.ADD"
  std::string base;      // "STS", "LDSM", ...
  std::string guard;     // "@!P3", or "" when none (or @PT)
  SassIssue issue = SassIssue::kUnconditional;
  bool in_branch_region = false;  // also true for a predicated one that a branch may skip
  int width = 0;  // bytes per lane for LDS/STS/ATOMS (4 unless a .64/.128/.U8/... suffix); 0 else
  int line = 0;   // 1-based line in the text
  std::string src_file;  // from the last `//## File "...", line N` comment; "" without one
  int src_line = 0;      // 0 without line information
  bool in_loop = false;  // inside [target, BRA] of a backward branch
};

struct SassFunction {
  std::string name;  // as the text names it (mangled for cuobjdump)
  std::vector<SassSharedInst> shared;
};

// True for the shared-memory opcodes this reader lists: LDS, STS, LDSM, STSM, ATOMS, LDGSTS.
bool is_shared_memory_opcode(const std::string& base);

// Every function in the text, in order of appearance. Errors (no "Function :" header at all, an
// instruction before any function) name the line.
Result<std::vector<SassFunction>> parse_sass(const std::string& text);

// One line per function ("function NAME") and one per shared instruction
// ("  0x05a0 STS.128 predicated @P0"); the form `bankscope-cli sass` prints and the tests compare.
std::string format_sass_shared(const std::vector<SassFunction>& functions);

}  // namespace bankscope
