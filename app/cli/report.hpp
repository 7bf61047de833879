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

// `bankscope-cli upgrade TRACE OUT`: the trace written again in the current format version
// (rewrite_trace(): a trace recorded by an older tracer, smaller and faster to report where its
// lanes repeat). OUT is written whole or not at all; it may be TRACE itself.
struct UpgradeArgs {
  std::string trace, out;
};
CLI::App* add_upgrade_command(CLI::App& app, UpgradeArgs& args);
int run_upgrade(const UpgradeArgs& args);  // 0, or 1 with one line on stderr

}  // namespace bankscope::cli
