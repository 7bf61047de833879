// fuzz_scenario.cpp: libFuzzer target for the scenario loader (sim/json_io.hpp), compile()
// (sim/scenario.hpp) and the kernel model (sim/kernel_model.hpp).
//
// Two kinds of input:
//   a scenario file (anything not starting with a 0 byte): it either fails with a one-line message
//     naming the file, or it loads;
//   a 0 byte, then bytes that build a random but plausible ScenarioSpec (shapes, layouts, several
//     statements with loops 1-2 deep whose names repeat across statements, index expressions and
//     guards that use loop variables and blockIdx, the three issue modes; and the newer grammar:
//     loops with init/cond/update (+=, *=, <<=, >>=, /=, -=, bounds of n, blockDim, params and
//     outer loop variables), bodies shared by consecutive statements, nested, with scoped defines
//     that use the loop variable, params, 1- to 4-D arrays of every element type, arrays at byte
//     offsets of an extern buffer; and issue 11's kinds: ldmatrix/stmatrix with num and trans and
//     row addresses that are often 16-byte aligned, atom with its operation and width). A loop
//     built to never end or never run (s *= 1, a false cond), or a bad kind field (num 3, a width
//     on ldmatrix, an unknown atom, a 64-bit atom add), must be a one-line compile error. Mutated
//     JSON rarely stays a valid scenario, so without this mode the kernel model behind the loader
//     would hardly be fuzzed. Now and then a statement names another statement's loop variable:
//     compile() must reject it (C scoping), in one line.
// A scenario that compiles is run: warp 0 of block 0; save -> load -> save gives the same file; and
// per-launch totals equal the brute force over every block in every field (on the scenario and on a
// copy shrunk to a few blocks), and a run capped at a few simulated blocks counts no more than the
// brute force. A scenario may describe a huge launch (n = 2^31, 4096^4 loop trips); the work is
// capped here so one input cannot hang the campaign: that cap is the fuzz target's, not a limit of
// bankscope.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/scenario.hpp"

using namespace bankscope;

namespace {

constexpr size_t kMaxInput = size_t{1} << 20;  // libFuzzer -max_len keeps generated inputs short; regressions may be long
constexpr int64_t kMaxBlocks = 4096;               // launch_totals only up to this grid size
constexpr int64_t kMaxWarpInstructions = 4096;     // per warp, over all statements
constexpr int64_t kMaxLaunchWork = int64_t{1} << 12;  // blocks x warps x instructions per warp
constexpr int64_t kMaxBruteWork = int64_t{1} << 11;

// How often the differential check ran, printed at exit so a test log shows it was exercised.
struct Tally {
  uint64_t compared = 0, multi_statement = 0, errors_agreed = 0, new_grammar = 0, new_kinds = 0,
           jsonl_checked = 0;
  Tally() {
    std::atexit([] {
      std::fprintf(stderr,
                   "fuzz_scenario: launch_totals == brute force on %llu launches (%llu with "
                   "several statements, "
                   "%llu with bodies, init/cond/update loops, params, N-D arrays or extern "
                   "offsets, %llu with "
                   "ldmatrix/stmatrix/atom), both failing on %llu; %llu such instructions equal to "
                   "predict --jsonl\n",
                   static_cast<unsigned long long>(tally().compared),
                   static_cast<unsigned long long>(tally().multi_statement),
                   static_cast<unsigned long long>(tally().new_grammar),
                   static_cast<unsigned long long>(tally().new_kinds),
                   static_cast<unsigned long long>(tally().errors_agreed),
                   static_cast<unsigned long long>(tally().jsonl_checked));
    });
  }
  static Tally& tally() {
    static Tally t;
    return t;
  }
};

bool same(const OpTotals& a, const OpTotals& b) {
  return a.instructions == b.instructions && a.wavefronts == b.wavefronts && a.ideal == b.ideal &&
         a.bank_conflicts() == b.bank_conflicts() && a.saturated == b.saturated;
}
bool at_most(const OpTotals& a, const OpTotals& b) {
  return a.instructions <= b.instructions && a.wavefronts <= b.wavefronts && a.ideal <= b.ideal &&
         a.bank_conflicts() <= b.bank_conflicts();
}

std::string totals_text(const LaunchTotals& t) {
  std::string out;
  for (Op op : kAllOps) {
    const OpTotals& o = t.of(op);
    out += std::string(out.empty() ? "" : ", ") + op_name(op) + " " +
           std::to_string(o.instructions) + "/" + std::to_string(o.wavefronts) + "/" +
           std::to_string(o.ideal);
  }
  return out;
}
// Every kind's totals, and each kind's total is the sum of its own statements' (no kind counted
// under another's counters).
bool same_totals(const LaunchTotals& a, const LaunchTotals& b) {
  for (Op op : kAllOps) {
    if (!same(a.of(op), b.of(op))) return false;
  }
  return true;
}
bool kinds_apart(const Scenario& s, const LaunchTotals& t) {
  for (Op op : kAllOps) {
    OpTotals sum;
    for (size_t i = 0; i < s.accesses.size(); ++i) {
      if (s.accesses[i].op == op) sum += t.per_access[i];
    }
    if (!same(sum, t.of(op))) return false;
  }
  return true;
}
bool at_most_totals(const LaunchTotals& a, const LaunchTotals& b) {
  for (Op op : kAllOps) {
    if (!at_most(a.of(op), b.of(op))) return false;
  }
  return true;
}

std::string err_text(const Error& e) { return e.message; }

bool uses_new_grammar(const ScenarioSpec& s) {
  if (!s.params.empty() || s.extern_bytes >= 0) return true;
  for (const ArraySpec& a : s.arrays) {
    if (a.dims.size() > 2) return true;
  }
  for (const AccessSpec& a : s.accesses) {
    if (a.op != "ld" && a.op != "st") return true;
    for (const LoopSpec& l : a.loops) {
      if (l.body >= 0 || !l.old_form()) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Structured mode: bytes -> ScenarioSpec
// ---------------------------------------------------------------------------------------------

struct SpecBuilder {
  FuzzedDataProvider& in;
  std::vector<std::string> vars;  // names an expression may use
  bool names_foreign_loop_variable = false;  // some statement names a loop variable it does not declare
  bool bad_loop = false;                     // some loop never ends or never runs
  bool bad_kind = false;                     // a bad ldmatrix/stmatrix/atom field
  int next_body = 0, next_scoped = 0;

  // A uniform bound: what every thread computes alike (constants, n, blockDim, params, `outer`).
  std::string uniform(const std::vector<std::string>& outer, int lo, int hi) {
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: return "n % " + std::to_string(hi) + " + " + std::to_string(lo);
      case 1: return "blockDim.x % " + std::to_string(hi) + " + " + std::to_string(lo);
      case 2:
        if (!params.empty()) return params[in.ConsumeIntegralInRange<size_t>(0, params.size() - 1)] + " + " + std::to_string(lo);
        break;
      case 3:
        if (!outer.empty()) return outer[in.ConsumeIntegralInRange<size_t>(0, outer.size() - 1)] + " % 5 + " + std::to_string(lo);
        break;
      default: break;
    }
    return std::to_string(in.ConsumeIntegralInRange<int>(lo, hi));
  }
  // A loop in the old form (numbers) or the new one (init, cond, update); `outer` are the loop
  // variables around it.
  LoopSpec loop(const std::string& var, const std::vector<std::string>& outer) {
    LoopSpec l;
    l.var = var;
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: {  // counting up by a constant
        l.init = std::to_string(in.ConsumeIntegralInRange<int>(-4, 4));
        l.cond = var + " < " + uniform(outer, 5, 12);
        l.update = var + " += " + std::to_string(in.ConsumeIntegralInRange<int>(1, 4));
        return l;
      }
      case 1: {  // multiplying
        static const char* const kUp[] = {" *= 2", " <<= 1", " = " , " *= 3"};
        const size_t k = in.ConsumeIntegralInRange<size_t>(0, 3);
        l.init = std::to_string(in.ConsumeIntegralInRange<int>(1, 3));
        l.cond = var + " < " + uniform(outer, 4, 40);
        l.update = k == 2 ? var + " = " + var + " * 2 + 1" : var + kUp[k];
        return l;
      }
      case 2: {  // halving down to 0
        static const char* const kDown[] = {" >>= 1", " /= 2", " -= 3", "--"};
        l.init = uniform(outer, 1, 33);
        l.cond = in.ConsumeBool() ? var + " > 0" : var + " >= 1";
        l.update = var + kDown[in.ConsumeIntegralInRange<size_t>(0, 3)];
        return l;
      }
      case 3:
        if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {  // bad: never ends or never runs
          bad_loop = true;
          l.init = "1";
          if (in.ConsumeBool()) {
            l.cond = var + " < 16";
            l.update = var + " *= 1";
          } else {
            l.cond = var + " < " + std::to_string(in.ConsumeIntegralInRange<int>(-9, 1));
            l.update = var + "++";
          }
          return l;
        }
        break;
      default: break;
    }
    l.begin = in.ConsumeIntegralInRange<int64_t>(-4, 8);
    l.end = l.begin + in.ConsumeIntegralInRange<int64_t>(1, 16);
    l.step = in.ConsumeIntegralInRange<int64_t>(1, 8);
    return l;
  }
  std::vector<std::string> params;

  std::string leaf() {
    if (in.ConsumeBool() && !vars.empty()) return vars[in.ConsumeIntegralInRange<size_t>(0, vars.size() - 1)];
    return std::to_string(in.ConsumeIntegralInRange<int>(-3, 40));
  }
  std::string expr(int depth) {
    if (depth <= 0 || in.ConsumeIntegralInRange<int>(0, 3) == 0) return leaf();
    static const char* const kOps[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
                                       "<", "<=", "==", "!=", "&&", "||"};
    const char* op = kOps[in.ConsumeIntegralInRange<size_t>(0, sizeof kOps / sizeof kOps[0] - 1)];
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
      return "(" + expr(depth - 1) + " ? " + expr(depth - 1) + " : " + expr(depth - 1) + ")";
    }
    return "(" + expr(depth - 1) + " " + op + " " + expr(depth - 1) + ")";
  }
  // An index that is usually inside [0, extent): wrapped into range half of the time.
  std::string index(int64_t extent) {
    const std::string e = expr(3);
    if (in.ConsumeBool()) {
      const std::string x = std::to_string(extent);
      return "((" + e + ") % " + x + " + " + x + ") % " + x;
    }
    return e;
  }

  ScenarioSpec build() {
    static const char* const kTypes[] = {"char", "half", "float", "double", "float2", "float4", "int",
                                         "unsigned", "short", "long long", "half2", "bfloat16", "int4"};
    ScenarioSpec s;
    s.name = "structured";
    s.block = {in.ConsumeIntegralInRange<int64_t>(1, 64), in.ConsumeIntegralInRange<int64_t>(1, 16),
               in.ConsumeIntegralInRange<int64_t>(1, 2)};
    s.n = in.ConsumeIntegralInRange<int64_t>(1, 300);
    s.tile = {in.ConsumeIntegralInRange<int64_t>(1, 64), in.ConsumeIntegralInRange<int64_t>(1, 64), 1};
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      s.grid = {in.ConsumeIntegralInRange<int64_t>(1, 9), in.ConsumeIntegralInRange<int64_t>(1, 9),
                in.ConsumeIntegralInRange<int64_t>(1, 2)};
    }
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      s.banks.banks = in.ConsumeIntegralInRange<int>(1, 64);
      s.banks.bank_bytes = in.ConsumeBool() ? 8 : 4;
    }
    s.arrays.clear();
    const int narrays = in.ConsumeIntegralInRange<int>(1, 2);
    for (int i = 0; i < narrays; ++i) {
      ArraySpec a;
      a.name = i == 0 ? "tile" : "buf";
      a.type = kTypes[in.ConsumeIntegralInRange<size_t>(0, 12)];
      const int64_t cols = in.ConsumeIntegralInRange<int64_t>(1, 64);
      switch (in.ConsumeIntegralInRange<int>(0, 5)) {
        case 0: a.dims = {cols}; break;
        case 4: a.dims = {in.ConsumeIntegralInRange<int64_t>(1, 4), in.ConsumeIntegralInRange<int64_t>(1, 16), cols}; break;
        case 5:
          a.dims = {in.ConsumeIntegralInRange<int64_t>(1, 3), in.ConsumeIntegralInRange<int64_t>(1, 4),
                    in.ConsumeIntegralInRange<int64_t>(1, 8), cols};
          break;
        default: a.dims = {in.ConsumeIntegralInRange<int64_t>(1, 64), cols}; break;
      }
      a.row_stride = in.ConsumeBool() ? 0 : cols + in.ConsumeIntegralInRange<int64_t>(0, 4);
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) a.xor_mask = in.ConsumeIntegralInRange<int64_t>(0, 63);
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        a.swizzle_bits = in.ConsumeIntegralInRange<int>(0, 4);
        a.swizzle_base = in.ConsumeIntegralInRange<int>(0, 4);
        a.swizzle_shift = in.ConsumeIntegralInRange<int>(0, 6);
      }
      // Now and then a TMA-written array (tma_swizzle 32B/64B/128B): valid only with rows of at
      // most the span, a multiple of 16 bytes (padded to the span), nothing else in the layout and
      // a 128-byte-aligned base; else one line.
      if (in.ConsumeIntegralInRange<int>(0, 7) == 0) a.tma_swizzle = 32 << in.ConsumeIntegralInRange<int>(0, 2);
      s.arrays.push_back(a);
    }
    // An extern buffer, with some arrays at byte offsets in it (aligned to the element, mostly; an
    // overlap, a misaligned offset or one past the end must be a one-line error).
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      s.extern_bytes = in.ConsumeIntegralInRange<int64_t>(1, 16384);
      for (ArraySpec& a : s.arrays) {
        if (!in.ConsumeBool()) continue;
        const int64_t esize = element_size(*parse_element_type(a.type));
        a.offset = in.ConsumeIntegralInRange<int64_t>(0, 256) * esize + (in.ConsumeIntegralInRange<int>(0, 15) == 0 ? 1 : 0);
      }
    }
    const int nparams = in.ConsumeIntegralInRange<int>(0, 2);
    for (int i = 0; i < nparams; ++i) {
      s.params.emplace_back("P" + std::to_string(i), in.ConsumeIntegralInRange<int64_t>(0, 8));
      params.push_back("P" + std::to_string(i));
    }
    vars = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockDim.x",
            "gridDim.x",   "lane",        "warp",        "n"};
    const int ndefines = in.ConsumeIntegralInRange<int>(0, 3);
    for (int i = 0; i < ndefines; ++i) {
      const std::string name = "d" + std::to_string(i);
      s.defines.emplace_back(name, expr(3));
      vars.push_back(name);
    }
    for (const std::string& p : params) vars.push_back(p);
    // Loop variables come from a small pool, so statements reuse each other's names (each its own
    // variable, as in C).
    static const char* const kLoopNames[] = {"j", "k", "i"};
    static const char* const kIssue[] = {"", "branch", "predicated", "hoisted"};
    std::vector<std::string> declared;  // loop variable names of earlier statements
    // Body loops open around consecutive statements (names from their own pool, "s" outermost),
    // each with a scoped define of its variable now and then.
    std::vector<LoopSpec> bodies;
    static const char* const kBodyNames[] = {"s", "t"};
    const int naccesses = in.ConsumeIntegralInRange<int>(1, 4);
    for (int i = 0; i < naccesses; ++i) {
      AccessSpec a;
      a.op = in.ConsumeBool() ? "ld" : "st";
      a.issue = kIssue[in.ConsumeIntegralInRange<size_t>(0, 3)];
      const size_t saved_vars = vars.size();
      switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: bodies.clear(); break;   // close every body
        case 1:                          // open one more
          if (bodies.size() < 2) {
            std::vector<std::string> outer;
            for (const LoopSpec& b : bodies) outer.push_back(b.var);
            LoopSpec b = loop(kBodyNames[bodies.size()], outer);
            b.body = next_body++;
            if (in.ConsumeBool()) {
              b.defines.emplace_back("e" + std::to_string(next_scoped++),
                                     "(" + b.var + " * " + std::to_string(in.ConsumeIntegralInRange<int>(1, 5)) + " + " + expr(1) + ")");
            }
            bodies.push_back(b);
          }
          break;
        default: break;  // stay in the bodies open
      }
      for (const LoopSpec& b : bodies) {
        a.loops.push_back(b);
        vars.push_back(b.var);
        for (const auto& d : b.defines) vars.push_back(d.first);
      }
      const int nloops = in.ConsumeIntegralInRange<int>(0, 2);
      const size_t first_name = in.ConsumeIntegralInRange<size_t>(0, 2);
      for (int k = 0; k < nloops; ++k) {
        std::vector<std::string> outer;
        for (const LoopSpec& l : a.loops) outer.push_back(l.var);
        const LoopSpec l = loop(kLoopNames[(first_name + static_cast<size_t>(k)) % 3], outer);
        a.loops.push_back(l);
        vars.push_back(l.var);
      }
      // Now and then, another statement's loop variable (C scoping makes it a compile error): in
      // the guard for sure, in the target maybe.
      std::string foreign;
      if (!declared.empty() && in.ConsumeIntegralInRange<int>(0, 7) == 0) {
        const std::string& name = declared[in.ConsumeIntegralInRange<size_t>(0, declared.size() - 1)];
        const bool own = std::any_of(a.loops.begin(), a.loops.end(), [&](const LoopSpec& l) { return l.var == name; });
        if (!own) {
          foreign = name;
          vars.push_back(name);
          names_foreign_loop_variable = true;
        }
      }
      const ArraySpec& arr = s.arrays[in.ConsumeIntegralInRange<size_t>(0, s.arrays.size() - 1)];
      a.target = arr.name;
      for (int64_t extent : arr.dims) {
        // Half the time, an index in range that moves with the innermost loop variable.
        if (!a.loops.empty() && in.ConsumeBool()) {
          const std::string x = std::to_string(extent);
          a.target += "[((" + a.loops.back().var + " + " + expr(2) + ") % " + x + " + " + x + ") % " + x + "]";
        } else {
          a.target += "[" + index(extent) + "]";
        }
      }
      switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: break;
        case 1: a.guard = expr(2); break;
        case 2: a.guard = "blockIdx.x * " + std::to_string(in.ConsumeIntegralInRange<int>(1, 40)) + " + " + leaf() + " < n"; break;
        default:
          a.guard = leaf() + " < " + (a.loops.empty() ? std::string("blockIdx.y") : a.loops.front().var) + " + blockIdx.x";
          break;
      }
      // Inside a body with a scoped define: a guard on it and blockIdx now and then (an edge strip
      // whose truth changes with the loop variable through the define).
      std::string scoped;
      for (const LoopSpec& b : bodies) {
        for (const auto& d : b.defines) scoped = d.first;
      }
      if (!scoped.empty() && in.ConsumeBool()) {
        a.guard = scoped + " + blockIdx.x * " + std::to_string(in.ConsumeIntegralInRange<int>(1, 40)) + " < n";
      }
      if (!foreign.empty()) {
        // Shapes that made the leak of issue 16 give wrong totals before scoping was enforced.
        static const char* const kUse[] = {" >= 0", " > blockIdx.x", " > blockIdx.x || threadIdx.x < 16"};
        const std::string use = foreign + kUse[in.ConsumeIntegralInRange<size_t>(0, 2)];
        a.guard = a.guard.empty() ? use : "(" + a.guard + ") && (" + use + ")";
      }
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        static const int kWidths[] = {1, 2, 4, 8, 16};
        a.width = kWidths[in.ConsumeIntegralInRange<size_t>(0, 4)];
      }
      // Issue 11's kinds (0 keeps ld/st, so an exhausted input builds what it did before).
      switch (in.ConsumeIntegralInRange<int>(0, 7)) {
        case 5:
        case 6: {
          a.op = in.ConsumeBool() ? "ldmatrix" : "stmatrix";
          static const int kNums[] = {1, 2, 4, 4, 3};
          a.num = kNums[in.ConsumeIntegralInRange<size_t>(0, 4)];
          a.trans = in.ConsumeBool();
          if (a.num == 3) bad_kind = true;
          if (a.width != 0) {
            if (in.ConsumeBool())
              a.width = 0;  // mostly none, as it must be
            else
              bad_kind = true;
          }
          // Often a 16-byte aligned row: the last index a multiple of 16 bytes' worth of elements.
          const int64_t esize = element_size(*parse_element_type(arr.type));
          if (esize <= 16 && in.ConsumeBool()) {
            const int64_t per = 16 / esize, cols = arr.dims.back(), q = cols / per;
            if (q >= 1) {
              a.target = arr.name;
              for (size_t d = 0; d + 1 < arr.dims.size(); ++d)
                a.target += "[" + index(arr.dims[d]) + "]";
              const std::string qs = std::to_string(q);
              a.target += "[((" + expr(2) + ") % " + qs + " + " + qs + ") % " + qs + " * " +
                          std::to_string(per) + "]";
            }
          }
          break;
        }
        case 7: {
          a.op = "atom";
          static const char* const kAtoms[] = {"add", "min", "max", "exch", "cas", "popc_inc", "xor"};
          a.atom = kAtoms[in.ConsumeIntegralInRange<size_t>(0, 6)];
          if (a.atom == "xor") bad_kind = true;
          if (in.ConsumeBool()) a.width = in.ConsumeBool() ? 8 : 4;
          // A 64-bit add/min/max/popc_inc (given, or the element size) is not one instruction: an error,
          // as is a width other than 4 or 8. Left to compile() to decide, checked below by kind.
          break;
        }
        default:
          break;
      }
      s.accesses.push_back(a);
      vars.resize(saved_vars);
      for (const LoopSpec& l : a.loops) declared.push_back(l.var);
    }
    return s;
  }
};

// ---------------------------------------------------------------------------------------------
// Checks on a compiled scenario
// ---------------------------------------------------------------------------------------------

int64_t instructions_per_warp(const Scenario& s) {
  int64_t per_warp = 0;  // saturating: 4 loops of 4096 trips are 2^48 instructions per statement
  for (const CompiledAccess& a : s.accesses) {
    per_warp = std::min<int64_t>(per_warp + a.instructions_per_warp(), kMaxWarpInstructions + 1);
  }
  return per_warp;
}

// The layout advisor's path (kernel_model.hpp): the launch evaluated once in logical coordinates,
// then costed under the scenario's own layouts and under array 0 padded by one element, must give
// what running the kernel gives (the totals, or the same error). A profile that fails met a
// layout-free error; the run then fails too (maybe earlier, at a misaligned access).
void check_profile(const Scenario& s, const Result<LaunchTotals>& fast, const std::string& what) {
  auto profile = launch_profile(s);
  if (!profile) {
    FUZZ_CHECK(!fast.ok(), "launch_profile failed (" + profile.error().message +
                               ") but launch_totals did not for " + what);
    return;
  }
  FUZZ_CHECK(profile->complete, "an uncapped launch_profile says it is incomplete for " + what);
  ScenarioSpec padded = s.spec;
  ArraySpec& a0 = padded.arrays[0];
  a0.row_stride = (a0.row_stride != 0 ? a0.row_stride : a0.dims.back()) + 1;
  auto sp = compile(padded);
  for (int k = 0; k < (sp.ok() ? 2 : 1); ++k) {
    const Scenario& sk = k == 0 ? s : *sp;
    auto run = k == 0 ? fast : launch_totals(sk);
    auto from = totals_from_profile(sk, *profile);
    const std::string which = k == 0 ? " for " : " with array 0 padded for ";
    FUZZ_CHECK(from.ok() == run.ok(),
               std::string("totals_from_profile ") +
                   (from.ok() ? "succeeded" : "failed (" + from.error().message + ")") +
                   " but launch_totals " +
                   (run.ok() ? "succeeded" : "failed (" + run.error().message + ")") + which +
                   what);
    if (!run.ok()) {
      FUZZ_CHECK(from.error().message == run.error().message,
                 "totals_from_profile failed with '" + from.error().message +
                     "', launch_totals with '" + run.error().message + "'" + which + what);
      continue;
    }
    bool equal = same(from->ld, run->ld) && same(from->st, run->st) &&
                 from->max_n_way == run->max_n_way &&
                 from->per_access.size() == run->per_access.size();
    for (size_t i = 0; equal && i < from->per_access.size(); ++i)
      equal = same(from->per_access[i], run->per_access[i]);
    FUZZ_CHECK(equal, "totals_from_profile " + totals_text(*from) + " != launch_totals " +
                          totals_text(*run) + which + what);
  }
}

void check_launch(const Scenario& s, const std::string& what) {
  const int64_t per_warp = instructions_per_warp(s);
  if (per_warp > kMaxWarpInstructions) return;
  const int64_t blocks = s.grid.count();
  if (blocks > kMaxBlocks) return;
  const int64_t work = blocks * s.warps_per_block() * std::max<int64_t>(per_warp, 1);
  if (work > kMaxLaunchWork) return;
  auto fast = launch_totals(s);
  if (!fast) FUZZ_NOTE(fuzz::one_line(fast.error().message), "error is not one line: '" + fast.error().message + "'");
  if (fast) {
    FUZZ_CHECK(fast->blocks == static_cast<uint64_t>(blocks), "launch_totals counted " + std::to_string(fast->blocks) + " blocks of " + std::to_string(blocks));
    for (Op op : kAllOps) {
      FUZZ_CHECK(fast->of(op).wavefronts >= fast->of(op).ideal,
                 "fewer wavefronts than ideal: " + what);
    }
    FUZZ_CHECK(kinds_apart(s, *fast), "a kind's launch total is not the sum of its statements (" +
                                          totals_text(*fast) + "): " + what);
  }
  check_profile(s, fast, what);
  if (work > kMaxBruteWork) return;
  auto brute = launch_totals_brute_force(s);
  if (fast.ok() && brute.ok()) {
    bool equal = same_totals(*fast, *brute) && fast->blocks == brute->blocks &&
                 fast->max_n_way == brute->max_n_way &&
                 fast->per_access.size() == brute->per_access.size();
    for (size_t i = 0; equal && i < fast->per_access.size(); ++i) equal = same(fast->per_access[i], brute->per_access[i]);
    FUZZ_CHECK(equal, "launch_totals " + totals_text(*fast) + " != brute force " + totals_text(*brute) + " for " + what);
    ++Tally::tally().compared;
    if (s.accesses.size() > 1) ++Tally::tally().multi_statement;
    if (uses_new_grammar(s.spec)) ++Tally::tally().new_grammar;
    if (std::any_of(s.accesses.begin(), s.accesses.end(),
                    [](const CompiledAccess& a) { return !is_plain(a.op); })) {
      ++Tally::tally().new_kinds;
    }
    FUZZ_CHECK(fast->complete && fast->blocks_counted == fast->blocks && brute->complete,
               "an uncapped run says it is incomplete for " + what);
    // Capped at 2 simulated blocks: what it counted is part of the whole (a lower bound).
    TotalsOptions cap;
    cap.max_simulated_blocks = 2;
    auto capped = launch_totals(s, cap);
    FUZZ_CHECK(capped.ok(), "a capped run failed where the full one did not: " + (capped.ok() ? std::string() : capped.error().message));
    FUZZ_CHECK(capped->blocks_simulated <= 2 && capped->blocks_counted <= capped->blocks &&
                   capped->complete == (capped->blocks_counted == capped->blocks),
               "a capped run counted " + std::to_string(capped->blocks_counted) + " of " + std::to_string(capped->blocks) +
                   " blocks with " + std::to_string(capped->blocks_simulated) + " simulated for " + what);
    FUZZ_CHECK(at_most_totals(*capped, *brute),
               "a capped run counted more than the whole: " + totals_text(*capped) + " > " +
                   totals_text(*brute) + " for " + what);
    if (capped->complete) {
      FUZZ_CHECK(same_totals(*capped, *brute),
                 "a capped run that completed differs from the brute force for " + what);
    }
  } else {
    if (!fast.ok() && !brute.ok()) ++Tally::tally().errors_agreed;
    // A user error (an index outside the array, a division by zero) in any block: launch_totals
    // promises the brute force's result, so both must report it.
    FUZZ_CHECK(fast.ok() == brute.ok(),
               std::string("launch_totals ") + (fast.ok() ? "succeeded" : "failed (" + fast.error().message + ")") +
                   " but the brute force " + (brute.ok() ? "succeeded" : "failed (" + brute.error().message + ")") +
                   " for " + what);
  }
}

void check_scenario(const ScenarioSpec& spec) {
  auto compiled = compile(spec);
  FUZZ_CHECK(compiled.ok(), "a loaded spec does not compile: " + (compiled.ok() ? std::string() : err_text(compiled.error())));
  const Scenario& s = *compiled;

  // Save and load again: what the app saves must load, unchanged.
  const std::string saved = scenario_to_json(spec).dump(2);
  auto reloaded = parse_scenario_json(saved, "saved.json");
  FUZZ_CHECK(reloaded.ok(), "a saved scenario does not load: " + (reloaded.ok() ? std::string() : err_text(reloaded.error())) + "\n" + saved);
  FUZZ_CHECK(scenario_to_json(*reloaded).dump(2) == saved, "save -> load -> save changed the file:\n" + saved);

  const int64_t per_warp = instructions_per_warp(s);
  if (per_warp > kMaxWarpInstructions) return;
  auto wi = warp_instructions(s, Dim3{0, 0, 0}, 0);
  if (!wi) {
    FUZZ_NOTE(fuzz::one_line(wi.error().message), "error is not one line: '" + wi.error().message + "'");
  } else {
    FUZZ_CHECK(static_cast<int64_t>(wi->size()) == per_warp,
               std::to_string(wi->size()) + " instructions for warp 0, loops say " + std::to_string(per_warp) + "\n" + saved);
    for (const WarpInstruction& w : *wi) {
      // An instruction the warp branches around is not executed: no lanes, nothing validated.
      if (!w.issued) {
        FUZZ_CHECK(w.access.mask == 0, "an instruction not issued has active lanes\n" + saved);
        continue;
      }
      FUZZ_CHECK(validate(w.access, s.spec.banks).ok(), "warp_instructions gave an access validate() rejects:\n" + saved);
      const AccessCost c = cost(w.access, s.spec.banks);
      const AccessReport r = simulate(w.access, s.spec.banks);
      FUZZ_CHECK(c.wavefronts == r.cost.wavefronts && c.ideal_wavefronts == r.cost.ideal_wavefronts,
                 "cost() != simulate() in " + w.text + "\n" + saved);
      // Issue 11's kinds: the scenario's instruction through the JSONL path (`predict --jsonl`)
      // costs the same, so the two readers of these kinds cannot drift apart.
      if (!is_plain(w.access.op) && w.access.mask != 0 && s.spec.banks.is_default()) {
        auto p = parse_pattern_object(pattern_to_json(w.access));
        FUZZ_CHECK(p.ok(), "the JSONL reader rejects a scenario instruction (" +
                               (p.ok() ? std::string() : p.error().message) + ") in " + w.text +
                               "\n" + saved);
        const auto out = predict_pattern(*p);
        FUZZ_CHECK(out["wavefronts"].get<int>() == c.wavefronts &&
                       out["bank_conflicts"].get<int>() == c.bank_conflicts(),
                   "predict --jsonl != scenario cost in " + w.text + "\n" + saved);
        ++Tally::tally().jsonl_checked;
      }
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!((w.access.mask >> lane) & 1u)) continue;
        const uint32_t addr = w.access.addr[static_cast<size_t>(lane)];
        FUZZ_CHECK(uint64_t(addr) + uint64_t(w.access.width) <= s.shared_bytes() + 15,
                   "lane " + std::to_string(lane) + " address " + std::to_string(addr) +
                       " outside the declared shared memory (" + std::to_string(s.shared_bytes()) + " bytes) in " +
                       w.text + "\n" + saved);
      }
    }
  }
  check_launch(s, "the scenario:\n" + saved);

  // The same kernel on a few blocks, so the brute force can check launch_totals (partial tiles
  // make guards differ between blocks, which is where launch_totals bisects).
  if (spec.grid.x == 0 && spec.grid.y == 0 && spec.grid.z == 0) {
    ScenarioSpec small = spec;
    small.n = std::min<int64_t>(spec.n, 2 * std::max(spec.tile.x, spec.tile.y) + spec.n % 5);
    auto cs = compile(small);
    if (cs) check_launch(*cs, "the scenario with n = " + std::to_string(small.n) + ":\n" + saved);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  if (size > 0 && data[0] == 0) {
    FuzzedDataProvider in(data + 1, size - 1);
    SpecBuilder builder{in, {}};
    const ScenarioSpec spec = builder.build();
    auto compiled = compile(spec);
    if (builder.names_foreign_loop_variable) {
      FUZZ_CHECK(!compiled.ok(), "a statement naming another statement's loop variable compiled:\n" +
                                     scenario_to_json(spec).dump(2));
    }
    if (builder.bad_kind) {
      FUZZ_CHECK(!compiled.ok(),
                 "a bad ldmatrix/stmatrix/atom field compiled:\n" + scenario_to_json(spec).dump(2));
    }
    if (builder.bad_loop) {
      FUZZ_CHECK(!compiled.ok(), "a loop that never ends or never runs compiled:\n" + scenario_to_json(spec).dump(2));
    }
    if (!compiled.ok()) {
      FUZZ_NOTE(fuzz::one_line(compiled.error().message), "error is not one line: '" + compiled.error().message + "'");
      return 0;
    }
    check_scenario(spec);
    return 0;
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = parse_scenario_json(text, "fuzz.json");
  if (!spec) {
    const std::string& m = spec.error().message;
    FUZZ_NOTE(fuzz::one_line(m), "error is not one line: '" + m + "'");
    FUZZ_CHECK(m.rfind("fuzz.json: ", 0) == 0, "error does not name the file: '" + m + "'");
    return 0;
  }
  check_scenario(*spec);
  return 0;
}
