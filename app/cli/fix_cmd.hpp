// fix_cmd.hpp: the layout advisor from the command line (issue 13, item 3).
//   bankscope-cli fix SCENARIO [--array NAME] [--budget BYTES] [--top K] [--write OUT.json]
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace bankscope::cli {

struct FixArgs {
  std::string scenario;
  std::string array;    // "" = the array whose accesses cost the most wavefronts
  int64_t budget = -1;  // extra bytes allowed; -1 = no limit
  int top = 10;         // rows of the table
  std::string write;    // "" = print only; else save the scenario with the best layout here
};

CLI::App* add_fix_command(CLI::App& app, FixArgs& args);
// Exit codes: 0 printed (and written), 1 bad input or a failed save.
int run_fix(const FixArgs& args);

}  // namespace bankscope::cli
