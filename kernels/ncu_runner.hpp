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

// Runs ncu on `exe args...` and parses its report. `log` receives ncu's full stdout.
Result<std::vector<NcuKernel>> run_ncu(const std::string& ncu, const std::vector<std::string>& metrics,
                                       const std::string& exe, const std::vector<std::string>& args,
                                       std::string* log);

// "ncu" on PATH, else /usr/local/cuda/bin/ncu, else "".
std::string find_ncu();

}  // namespace bankscope
