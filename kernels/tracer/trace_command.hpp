// trace_command.hpp: `bankscope-gpu trace [options] -- PROGRAM ARGS...` (issue 10).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankscope {

struct TraceArgs {
  std::string kernel;          // regex on the demangled kernel name; empty = all
  uint64_t launch = 0;         // first matching launch traced
  std::string launches = "all";
  std::string blocks = "all";  // "all" or N: blocks with a linear index below N
  uint64_t records = 4ull << 20;
  std::string out = "bankscope.bstrace";
  bool check = false;          // also run ncu and compare per launch
  std::string ncu = "auto";
  bool ldgsts_r9 = false;      // --ldgsts-r9: accepted, no effect (.cg is costed by default)
  std::vector<std::string> command;  // PROGRAM ARGS...
};

CLI::App* add_trace_command(CLI::App& app, TraceArgs& args);
// Exit codes: 0, 1 error, 2 usage, 3 no tracer / sanitizer library, 5 --check found a mismatch;
// a program that fails is reported and its trace closed; the exit code is then 1.
int run_trace(const TraceArgs& args);

}  // namespace bankscope
