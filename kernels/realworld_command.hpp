// realworld_command.hpp: `bankscope-gpu realworld` (issue 13): the real kernels of
// assets/scenarios/realworld/, each a complete program, measured by ncu and set beside bankscope's
// prediction for the same size.
//
//   sizes file line "NAME N [P=V ...]"
//     -> predicted: bankscope-cli predict DIR/NAME.json --n N [--param P=V ...] --json
//     -> measured:  ncu --csv --clock-control none --kernel-name-base demangled
//                       --kernel-name regex:NAME --metrics M,... BIN/NAME N [P=V ...]
//     -> one row: the six per-launch counters (ten when the prediction has an "ldsm" total),
//        predicted vs measured, and the program's own check
// --clock-control none: the card's clocks are left as found (never lock or change them).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bankscope {

struct RealworldArgs {
  std::string sizes = "assets/scenarios/realworld/sizes.txt";  // "NAME N [P=V ...]" per line
  std::string scenarios;  // directory of NAME.json; default: the sizes file's directory
  std::string bin;        // directory of the built programs (BIN/NAME); not needed with --dry-run
  std::string cli;        // bankscope-cli; default: beside this executable
  // A command line (not quoted: a prefix) run in place of `CLI predict`, with the same arguments
  // and JSON; used where a scenario cannot say everything yet (scripts/mma_gemm_predict.py).
  std::string predictor;
  std::string ncu = "auto";
  std::string ncu_log;            // append every ncu run's output here
  std::vector<std::string> only;  // kernel names; empty = every line
  bool dry_run =
      false;  // predictions only (no GPU): the table the committed predictions file holds
};

CLI::App* add_realworld_command(CLI::App& app, RealworldArgs& args);
// Exit codes: 0 every count equal and every program's CPU check passed; 1 an error (a bad sizes
// line, a prediction or ncu run that failed); 2 usage; 3 ncu not found; 4 a program's output was
// wrong; 5 a measured count differs from its prediction.
int run_realworld(const RealworldArgs& args);

}  // namespace bankscope
