// sass_cmd.hpp: what nvcc emits for a .cu file, with no GPU (issue 13, item 2).
//   bankscope-cli sass FILE.cu [--kernel NAME] [--arch sm_90] [-- NVCC_ARGS...]
//   bankscope-cli check SCENARIO --cu FILE.cu [--kernel NAME] [--arch sm_90]
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankscope::cli {

struct SassArgs {
  std::string cu;                      // the .cu file
  std::string kernel;                  // "" = every kernel (sass) / the only one with shared accesses (check)
  std::string arch = "sm_90";
  std::vector<std::string> nvcc_args;  // after "--"
  std::string scenario;                // check only
};

// Register the subcommands on `app`; main() asks whether each was parsed.
CLI::App* add_sass_command(CLI::App& app, SassArgs& args);
CLI::App* add_check_command(CLI::App& app, SassArgs& args);
// Exit codes: 0 (check: every access agrees with nvcc), 1 bad input or (check) a disagreement.
int run_sass(const SassArgs& args);
int run_check(const SassArgs& args);

}  // namespace bankscope::cli
