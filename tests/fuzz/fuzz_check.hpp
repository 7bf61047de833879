// fuzz_check.hpp: the two kinds of check the libFuzzer targets make.
//
// FUZZ_CHECK is a hard property of the model (cost() equals simulate().cost, an interval holds the
// value it bounds): when it fails the target aborts, libFuzzer saves the input as a crash, and the
// input belongs in tests/fuzz/regressions/<target>/.
// FUZZ_NOTE is a house rule that is not worth stopping a campaign for (an error message is one
// line): it prints the first violation per process with its input and carries on, so a long run
// still explores past it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond, what)                                                         \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n  %s\n", __FILE__, __LINE__, \
                   #cond, std::string(what).c_str());                                  \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

#define FUZZ_NOTE(cond, what)                                                              \
  do {                                                                                     \
    static bool fuzz_note_seen = false;                                                    \
    if (!(cond) && !fuzz_note_seen) {                                                      \
      fuzz_note_seen = true;                                                               \
      std::fprintf(stderr, "FUZZ_NOTE at %s:%d: %s\n  %s\n", __FILE__, __LINE__, #cond,    \
                   std::string(what).c_str());                                             \
    }                                                                                      \
  } while (0)

namespace bankscope::fuzz {

// Error messages are one line ("<where>: <what>"), so the CLI and the app can show them as such.
inline bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace bankscope::fuzz
