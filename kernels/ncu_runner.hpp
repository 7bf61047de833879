// ncu_runner.hpp: Nsight Compute as a subprocess, for the metrics CUPTI's range profiler cannot
// collect (the instruction-level smsp__sass_* metrics need SASS patching) or as the fallback for
// all of them.
//
//   bankscope-gpu validate ... --ncu PATH
//     -> PATH --csv --clock-control none --kernel-name-base demangled
//             --kernel-name regex:bankscope::k_ --metrics M,... <this exe> run-jobs <same jobs>
//     -> one NcuKernel per profiled launch, in launch order
// --clock-control none: the card's clocks are left as found (never lock or change them).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/status.hpp"

namespace bankscope {

struct NcuKernel {
  std::string id;    // ncu's launch ID
  std::string name;  // demangled kernel name
  std::map<std::string, double> metrics;
};

// Parses `ncu --csv` output (other lines, e.g. "==PROF==" or the program's own, are skipped).
// Numbers may carry thousands separators. Kernels come back in order of first appearance.
Result<std::vector<NcuKernel>> parse_ncu_csv(const std::string& text);

// One SASS instruction of ncu's source view (`--section SourceCounters --page source --print-source
// sass --csv`): per profiled launch a line "Kernel Name",NAME, a header line starting "Address",
// then one line per instruction with its absolute address (measured on the H200 with ncu 2025.3.1:
// assets/results/h200/2026-12-01a). `offset` is the address minus the function's first one, the
// offset the tracer records.
struct NcuSourceInst {
  uint64_t offset = 0;
  std::string sass;  // "LDS R9, [R0+-0x40]"
  double executed = 0, wavefronts = 0, ideal = 0;  // Instructions Executed, L1 Wavefronts Shared (Ideal)
};
struct NcuSourceKernel {
  std::string name;
  std::vector<NcuSourceInst> insts;
};
Result<std::vector<NcuSourceKernel>> parse_ncu_source_csv(const std::string& text);

// Which source-view table belongs to which launch. ncu 2025.3.1 prints some launches' tables twice,
// identically (the corpus transpose, PyTorch's: 2026-12-01a/c), and every launch's of the atomics
// probe (2026-12-01x: 152 tables for 76 launches), while two different launches may print equal
// tables too; so a table equal to the one before it is not simply a repeat. Each launch takes one
// table, or two equal ones in a row; of the assignments that use every table, the one whose tables
// best fit their launches: the kernel's name, then the PCs whose execution count equals the
// table's "Instructions Executed". Returns a table index per launch, or nothing when no assignment
// uses every table (fewer tables than launches, or repeats that are not equal) or the search would
// be too large (more than 2^26 launch x repeat states).
struct SourceLaunchKey {
  std::string kernel;                       // the traced kernel's name
  std::map<uint64_t, uint64_t> executions;  // offset -> executions the trace recorded
};
std::vector<size_t> align_source_tables(const std::vector<NcuSourceKernel>& tables,
                                        const std::vector<SourceLaunchKey>& launches);

// Runs ncu on `exe args...` and parses its report. `log` receives ncu's full stdout.
Result<std::vector<NcuKernel>> run_ncu(const std::string& ncu, const std::vector<std::string>& metrics,
                                       const std::string& exe, const std::vector<std::string>& args,
                                       std::string* log);

// "ncu" on PATH, else /usr/local/cuda/bin/ncu, else "".
std::string find_ncu();

}  // namespace bankscope
