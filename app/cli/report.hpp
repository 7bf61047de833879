// report.hpp: `bankscope-cli report TRACE`: a trace's shared-memory instructions, costliest first.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankscope::cli {

struct ReportArgs {
  std::string trace;
  bool json = false;
  int top = 20;  // 0 = all rows
  std::string by = "pc";
  std::vector<std::string> arrays;   // --array tile@0:float[32][32]
  std::vector<std::string> layouts;  // --layout tile:stride=33
  bool ldgsts_r9 = false;            // --ldgsts-r9: accepted, no effect (.cg is costed by default)
};

// Registers the subcommand on `app`; returns it so main() can ask whether it was parsed.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);
// Exit codes: 0, 1 bad input (one line on stderr), 2 usage.
int run_report(const ReportArgs& args);

}  // namespace bankscope::cli
