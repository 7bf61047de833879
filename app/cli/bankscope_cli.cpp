// bankscope_cli.cpp: the headless front end over sim/, for scripts, CI and SSH sessions.
//
//   bankscope-cli predict SCENARIO [--n N] [--stride S] [--type T] [--array NAME] [--warp W] [--json] [--max-blocks K]
//   bankscope-cli predict --jsonl FILE|-
//   bankscope-cli explain SCENARIO [--warp W] [--block X,Y,Z] [--access K] [--stride S]
//   bankscope-cli compare [SCENARIO_A [SCENARIO_B]] [--n N] [--stride S] [--type T] [--array NAME] [--max-blocks K]
//   bankscope-cli sweep SCENARIO [--access K] [--stride A..B] [--array NAME] [--svg out.svg]
//   bankscope-cli sass FILE.cu [--kernel K] [--arch sm_90] [-- NVCC_ARGS]; check SCENARIO --cu FILE.cu
//   bankscope-cli fix SCENARIO [--array NAME] [--budget BYTES] [--top K] [--write OUT.json]
//
// Every count names the Nsight Compute counter it predicts (sim/counter_names.hpp): per launch the
// instruction-level smsp__sass_* counters, per warp instruction (one warp alone) the l1tex__ ones.
//
// Exit codes: 0 success, 1 bad input (one line on stderr naming what and where), 2 usage,
// 3 per-launch totals stopped at --max-blocks (a lower bound and an estimate are printed, labelled),
// 130 interrupted by Ctrl-C (the partial totals are printed, labelled).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/svg/svg_export.hpp"
#include "fix_cmd.hpp"
#include "report.hpp"
#include "sass_cmd.hpp"
#include "sim/bank_model.hpp"
#include "sim/counter_names.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/predict_report.hpp"
#include "sim/rules.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep.hpp"

namespace bs = bankscope;

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPartial = 3;        // stopped at --max-blocks
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

namespace cnt = bs::counters;

// Scenario source plus the overrides every subcommand accepts.
struct ScenarioArgs {
  std::string path;  // "" = built-in seed pair member
  int64_t n = 0;
  int64_t stride = 0;
  std::string type;
  std::string array;  // which array --stride/--type change; "" = the first
  bool overridden() const { return stride != 0 || !type.empty() || !array.empty(); }
  std::vector<std::string> params;  // --param NAME=VALUE, applied in order
};

// "n=2048" or, when the file gave no n, "n=2048, the default: the scenario gives no \"n\"".
std::string n_text(const bs::ScenarioSpec& s) {
  return "n=" + std::to_string(s.n) + (s.n_defaulted ? ", the default: the scenario gives no \"n\"" : "");
}

int fail(const std::string& message) {
  std::cerr << "bankscope-cli: " << message << "\n";
  return kExitBadInput;
}

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// A count that saturated (OpTotals::saturated) is at least 2^64 - 1: say so instead of a number.
std::string count_text(uint64_t v, bool saturated) {
  if (saturated && v == bs::kCountMax) return "> " + with_commas(v) + " (exceeds 2^64)";
  return with_commas(v);
}

// wavefronts - ideal is unknown once either of them saturated.
std::string conflicts_text(const bs::OpTotals& t) {
  if (conflicts_unknown(t)) return "unknown (wavefronts exceed 2^64)";
  return with_commas(t.wavefronts - t.ideal);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] per-launch totals: --max-blocks, Ctrl-C and a progress line
// ---------------------------------------------------------------------------------------------

// Set by SIGINT; launch_totals() polls it and returns what it has (a lower bound). A second
// Ctrl-C ends the process the default way.
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

// launch_totals() with the user's block limit, Ctrl-C as its cancel flag, and a progress line on
// stderr once it has run for a second (an index that depends on blockIdx makes it visit every block).
bs::Result<bs::LaunchTotals> run_totals(const bs::Scenario& s, uint64_t max_blocks) {
  std::atomic<uint64_t> done{0};
  bs::TotalsOptions opt;
  opt.max_simulated_blocks = max_blocks;
  opt.cancel = &g_interrupted;
  opt.blocks_done = &done;
  const uint64_t blocks = uint64_t(s.grid.x) * uint64_t(s.grid.y) * uint64_t(s.grid.z);
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::thread progress([&] {
    const auto start = std::chrono::steady_clock::now();
    const bool tty = isatty(STDERR_FILENO) != 0;
    auto last = start;
    bool shown = false;
    std::unique_lock<std::mutex> lock(m);
    while (!cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return finished; })) {
      const auto now = std::chrono::steady_clock::now();
      if (now - start < std::chrono::seconds(1)) continue;
      if (!tty && shown && now - last < std::chrono::seconds(1)) continue;
      last = now;
      shown = true;
      std::fprintf(stderr, "%sbankscope-cli: per-launch totals: %s of %s blocks (Ctrl-C stops with a lower bound)%s",
                   tty ? "\r" : "", with_commas(done.load()).c_str(), with_commas(blocks).c_str(),
                   tty ? "" : "\n");
      std::fflush(stderr);
    }
    if (shown && tty) std::fputs("\n", stderr);
  });
  std::signal(SIGINT, on_sigint);
  bs::Result<bs::LaunchTotals> r = bs::launch_totals(s, opt);
  std::signal(SIGINT, SIG_DFL);
  {
    std::lock_guard<std::mutex> lock(m);
    finished = true;
  }
  cv.notify_one();
  progress.join();
  return r;
}

// What an incomplete run is, in words: "lower bound: exact over K of N blocks (cancelled)".
std::string bound_text(const bs::LaunchTotals& lt) {
  return "lower bound: exact over " + with_commas(lt.blocks_counted) + " of " + with_commas(lt.blocks) +
         " blocks (" + (lt.stopped_because.empty() ? std::string("stopped early") : lt.stopped_because) + ")";
}
std::string estimate_text(const bs::LaunchTotals& lt) {
  return "estimate (sample of " + with_commas(lt.blocks_counted) + " blocks), whole grid";
}
int totals_exit_code(const bs::LaunchTotals& lt) {
  if (lt.complete) return 0;
  return g_interrupted.load() ? kExitInterrupted : kExitPartial;
}

bs::Result<bs::Scenario> load(const ScenarioArgs& a, int64_t default_stride = 32) {
  bs::ScenarioSpec spec;
  if (a.path.empty()) {
    spec = bs::seed_transpose_spec(default_stride);
  } else {
    auto r = bs::load_scenario_file(a.path);
    if (!r) return r.error();
    spec = *r;
  }
  if (a.n != 0) {
    spec.n = a.n;
    spec.n_defaulted = false;
  }
  for (const std::string& p : a.params) {
    const size_t eq = p.find('=');
    const std::string name = p.substr(0, eq);
    auto it = std::find_if(spec.params.begin(), spec.params.end(), [&](const auto& kv) { return kv.first == name; });
    if (eq == std::string::npos || it == spec.params.end()) {
      std::string known;
      for (const auto& kv : spec.params) known += (known.empty() ? "" : ", ") + kv.first;
      return bs::Error{"--param " + p + ": " +
                       (eq == std::string::npos ? "expected NAME=VALUE"
                                                : "the scenario declares no param '" + name + "' (params: " +
                                                      (known.empty() ? "none" : known) + ")")};
    }
    const std::string v = p.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || x < INT32_MIN || x > INT32_MAX) {
      return bs::Error{"--param " + p + ": '" + v + "' is not an int"};
    }
    it->second = x;
  }
  size_t ai = 0;
  if (!a.array.empty()) {
    std::string names;
    bool found = false;
    for (size_t i = 0; i < spec.arrays.size(); ++i) {
      names += (names.empty() ? "" : ", ") + spec.arrays[i].name;
      if (spec.arrays[i].name == a.array) {
        ai = i;
        found = true;
      }
    }
    if (!found) {
      return bs::Error{"--array: " + (a.path.empty() ? std::string("the built-in scenario") : a.path) +
                       " has no array named '" + a.array + "' (arrays: " + names + ")"};
    }
  }
  if (a.stride != 0) {
    spec.arrays[ai].row_stride = a.stride;
    if (spec.name.find('[') != std::string::npos) spec.name += " (stride " + std::to_string(a.stride) + ")";
  }
  if (!a.type.empty()) {
    // One parser for type names (sim/layout): an alias such as fp32 is refused, never shown as another type.
    auto t = bs::parse_element_type_exact(a.type);
    if (!t) return bs::Error{"--type: " + t.error().message};
    spec.arrays[ai].type = bs::element_name(*t);
  }
  auto s = bs::compile(spec);
  if (!s) {
    return bs::with_context(a.path.empty() ? "built-in scenario" : a.path, s.error());
  }
  return s;
}

void add_scenario_options(CLI::App* cmd, ScenarioArgs& a) {
  cmd->add_option("--n", a.n, "matrix size N (overrides the scenario's n)")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  cmd->add_option("--stride", a.stride, "physical row stride, in elements, of the first array (or --array)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  std::string types;
  for (bs::ElementType t : bs::kAllElementTypes) types += std::string(types.empty() ? "" : ", ") + bs::element_name(t);
  cmd->add_option("--type", a.type, "element type of the first array (or --array): " + types);
  cmd->add_option("--array", a.array, "the array --stride and --type change, by name (default: the first)");
  cmd->add_option("--param", a.params, "NAME=VALUE: override a kernel parameter the scenario declares in \"params\" (repeatable)");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] predict
// ---------------------------------------------------------------------------------------------

using bs::AccessRow;
using bs::conflicts_unknown;
using bs::totals_json;
using bs::warp_rows;

int predict_scenario(const ScenarioArgs& args, int warp, bool as_json, uint64_t max_blocks) {
  auto s = load(args);
  if (!s) return fail(s.error().message);
  auto rows = warp_rows(*s, warp);
  if (!rows) return fail(rows.error().message);
  auto lt = run_totals(*s, max_blocks);
  if (!lt) return fail(lt.error().message);

  if (as_json) {
    auto worst = bs::worst_warp_rows(*s);
    if (!worst) return fail(worst.error().message);
    const nlohmann::ordered_json j = bs::predict_json(*s, args.path, warp, *rows, *lt, &*worst);
    std::cout << j.dump(2) << "\n";
    return totals_exit_code(*lt);
  }

  const bs::Scenario& sc = *s;
  std::cout << "scenario  " << sc.spec.name << (args.path.empty() ? "" : "  (" + args.path + ")") << "\n";
  for (size_t i = 0; i < sc.arrays.size(); ++i) {
    const bs::SharedArray& a = sc.arrays[i];
    std::string logical;
    if (a.shape.rank > 2) {
      for (int d = 0; d < a.shape.rank; ++d) logical += "[" + std::to_string(a.shape.dim(d)) + "]";
    } else {
      logical = "[" + std::to_string(a.shape.rows) + "][" + std::to_string(a.shape.cols) + "]";
    }
    std::cout << "array     " << a.declaration() << "   logical " << logical << ", " << a.bytes() << " bytes";
    if (sc.spec.arrays[i].offset >= 0) {
      std::cout << ", extern buffer byte " << sc.spec.arrays[i].offset << " (shared byte " << a.base << ", bank "
                << (a.base / uint32_t(sc.spec.banks.bank_bytes)) % uint32_t(sc.spec.banks.banks) << ")";
    }
    std::cout << "\n";
  }
  std::cout << "launch    block " << sc.spec.block.x << "x" << sc.spec.block.y << "x" << sc.spec.block.z
            << ", grid " << sc.grid.x << "x" << sc.grid.y << "x" << sc.grid.z << " (" << n_text(sc.spec) << "), "
            << with_commas(lt->blocks) << " blocks, " << sc.warps_per_block() << " warps each\n\n";
  // Two tables, each in one unit: per launch (sums over every block) and per warp instruction (one
  // warp alone). Warp 0 beside the worst warp of block 0, so a warp 0 without conflicts cannot make
  // a conflicting statement look clean; the per-launch mean shows what other blocks do.
  auto worst = bs::worst_warp_rows(sc);
  if (!worst) return fail(worst.error().message);
  // The op column: "ld"/"st", or the ncu kind ("ldsm", "stsm", "atom") with the instruction's
  // variant ("ldsm.x4", "atom.add") in the access column; wider only where such a kind appears, so
  // an LDS/STS table is unchanged.
  const std::vector<bs::Op> kinds = bs::kinds_of(sc);
  const bool new_kinds =
      std::any_of(kinds.begin(), kinds.end(), [](bs::Op op) { return !bs::is_plain(op); });
  const int opw = new_kinds ? 5 : 4;
  const int accw = new_kinds ? 39 : 40;
  auto access_text = [&](const AccessRow& r) {
    const std::string& text = sc.accesses[static_cast<size_t>(r.stmt)].text;
    const size_t sp = text.find(' ');
    std::string target = text.substr(sp + 1);
    if (new_kinds && sp != std::string::npos && text.find('.') < sp)
      target = text.substr(text.find('.'), sp - text.find('.')) + " " + target;
    const size_t max = size_t(accw - 2);
    return target.size() > max ? target.substr(0, max - 3) + "..." : target;
  };
  auto range = [](int lo, int hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi); };
  std::cout << "per launch, per statement: summed over all " << with_commas(lt->blocks) << " blocks"
            << (lt->complete ? "" : " (" + bound_text(*lt) + ")") << ", as Nsight Compute counts it\n";
  std::cout << std::left << std::setw(3) << "#" << std::setw(opw) << "op" << std::setw(accw)
            << "access" << std::right << std::setw(18) << "instructions" << std::setw(16)
            << "wavefronts" << std::setw(16) << "bank conflicts" << std::setw(14) << "wavefronts"
            << "\n"
            << std::setw(47 + 18 + 16 + 16) << "" << std::setw(14) << "per instr."
            << "\n";
  for (const AccessRow& r : *rows) {
    const bs::CompiledAccess& a = sc.accesses[static_cast<size_t>(r.stmt)];
    const bs::OpTotals& t = lt->per_access[static_cast<size_t>(r.stmt)];
    std::ostringstream mean;
    if (t.instructions == 0 || t.saturated) {
      mean << "-";
    } else {
      mean << std::fixed << std::setprecision(2) << double(t.wavefronts) / double(t.instructions);
    }
    std::cout << std::left << std::setw(3) << r.stmt << std::setw(opw) << bs::totals_key(a.op)
              << std::setw(accw) << access_text(r) << std::right << std::setw(18)
              << count_text(t.instructions, t.saturated) << std::setw(16)
              << count_text(t.wavefronts, t.saturated) << std::setw(16) << conflicts_text(t)
              << std::setw(14) << mean.str() << "\n";
  }
  std::cout << "\nper warp instruction, one warp alone, block 0: warp " << warp << " and the worst of its "
            << sc.warps_per_block() << " warp" << (sc.warps_per_block() == 1 ? "" : "s") << "\n";
  std::cout << std::left << std::setw(47) << "" << std::setw(51) << ("warp " + std::to_string(warp))
            << "| worst warp of block 0\n";
  std::cout << std::setw(3) << "#" << std::setw(opw) << "op" << std::setw(accw) << "access"
            << std::right << std::setw(13) << "instructions" << std::setw(12) << "wavefronts"
            << std::setw(7) << "n-way" << std::setw(17) << "bank conflicts"
            << "  |" << std::setw(6) << "warp" << std::setw(12) << "wavefronts" << std::setw(7)
            << "n-way"
            << "\n";
  std::cout << std::setw(47 + 13 + 12) << "per instr." << std::setw(7 + 17) << "per instr." << "  |"
            << std::setw(6 + 12) << "per instr." << "\n";
  for (const AccessRow& r : *rows) {
    const bs::CompiledAccess& a = sc.accesses[static_cast<size_t>(r.stmt)];
    const bs::WorstWarpRow& ww = (*worst)[static_cast<size_t>(r.stmt)];
    const bool none = r.instructions == 0;
    std::cout << std::left << std::setw(3) << r.stmt << std::setw(opw) << bs::totals_key(a.op)
              << std::setw(accw) << access_text(r) << std::right << std::setw(13) << r.instructions
              << std::setw(12) << (none ? "-" : range(r.wf_min, r.wf_max)) << std::setw(7)
              << (none ? "-" : std::to_string(r.n_way)) << std::setw(17)
              << (none ? "-" : range(r.cf_min, r.cf_max)) << "  |" << std::setw(6)
              << (ww.warp < 0 ? "-" : std::to_string(ww.warp)) << std::setw(12)
              << (ww.warp < 0 ? "-" : range(ww.row.wf_min, ww.row.wf_max)) << std::setw(7)
              << (ww.warp < 0 ? "-" : std::to_string(ww.row.n_way)) << "\n";
  }
  std::cout << "legend: instructions = warp instructions of the statement (loops unrolled)\n"
               "  wavefronts per instr. = bank cycles of one warp instruction, that warp alone (a..b: smallest..largest\n"
               "    of the warp's); " << cnt::l1tex_wavefronts(bs::Op::kLoad) << " and _st\n"
               "  n-way = most distinct words one bank serves in one instruction\n"
               "  bank conflicts per instr. = wavefronts - ideal; " << cnt::l1tex_bank_conflicts(bs::Op::kLoad) << " and _st\n"
               "  worst warp = the warp of block 0 with the most wavefronts per instruction; '-' = not issued\n";
  for (bs::Op op : kinds) {
    if (bs::is_plain(op)) continue;
    std::cout << "  " << bs::totals_key(op) << ": " << cnt::l1tex_wavefronts(op) << ", "
              << cnt::l1tex_bank_conflicts(op) << "\n";
  }
  auto print_counts = [](const bs::OpTotals& t, bs::Op op, const char* prefix) {
    auto line = [&](const std::string& name, const std::string& value) {
      std::cout << "  " << std::left << std::setw(72) << name << std::right << prefix << std::setw(14)
                << value << "\n";
    };
    line(cnt::inst_executed(op), count_text(t.instructions, t.saturated));
    line(cnt::sass_inst_executed(op), count_text(t.active_instructions, t.saturated));
    line(cnt::wavefronts(op), count_text(t.wavefronts, t.saturated));
    line(cnt::bank_conflicts(op), conflicts_text(t));
  };
  if (lt->complete) {
    std::cout << "\nper launch, as Nsight Compute counts it (exact: the hardware instruction counter and the instruction-level ones):\n";
  } else {
    std::cout << "\nper launch, " << bound_text(*lt) << ":\n";
  }
  for (bs::Op op : kinds) print_counts(lt->of(op), op, lt->complete ? "" : ">= ");
  if (!lt->complete) {
    std::cout << estimate_text(*lt) << ":\n";
    for (bs::Op op : kinds) print_counts(lt->estimate_of(op), op, "~ ");
  }
  std::cout << "worst access: " << lt->max_n_way << "-way"
            << (lt->max_n_way > 1 ? " bank conflict" : " (conflict-free)") << "\n";
  return totals_exit_code(*lt);
}

int predict_jsonl(const std::string& path, bool sass) {
  std::istream* in = &std::cin;
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return fail(path + ": cannot open");
    in = &file;
  }
  const std::string src = path == "-" ? "<stdin>" : path;
  std::string line;
  int lineno = 0;
  int failed = 0;
  int patterns = 0;  // non-blank lines: a blank line is no pattern, neither run nor failed
  while (std::getline(*in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++patterns;
    auto p = bs::parse_pattern_line(line);
    if (!p) {
      ++failed;
      nlohmann::ordered_json out;
      try {
        out = nlohmann::ordered_json::parse(line);
        if (!out.is_object()) out = nlohmann::ordered_json{{"input", line}};
      } catch (...) {
        out = nlohmann::ordered_json{{"input", line}};
      }
      out["error"] = src + ": line " + std::to_string(lineno) + ": " + p.error().message;
      std::cout << out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
      continue;
    }
    std::cout << bs::predict_pattern(*p, {}, sass).dump() << "\n";
  }
  if (failed > 0) {
    std::cerr << "bankscope-cli: " << src << ": " << failed << " of " << patterns << " patterns failed (blank lines not counted)\n";
    return kExitBadInput;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] explain
// ---------------------------------------------------------------------------------------------

int explain(const ScenarioArgs& args, int warp, std::vector<int64_t> block, int access) {
  auto s = load(args);
  if (!s) return fail(s.error().message);
  while (block.size() < 3) block.push_back(0);
  auto instr = bs::warp_instructions(*s, bs::Dim3{block[0], block[1], block[2]}, warp);
  if (!instr) return fail(instr.error().message);
  if (access < 0 || access >= static_cast<int>(instr->size())) {
    return fail("--access: " + std::to_string(access) + " is outside 0.." + std::to_string(instr->size() - 1) +
                " (this warp issues " + std::to_string(instr->size()) + " shared-memory instructions)");
  }
  const bs::WarpInstruction& wi = (*instr)[static_cast<size_t>(access)];
  const bs::AccessReport rep = bs::simulate(wi.access, s->spec.banks);
  const int nb = s->spec.banks.banks;

  std::cout << "instruction " << access << ": " << wi.text << "\n";
  // The array this statement indexes, not the first one declared.
  const bs::SharedArray& arr = s->arrays[static_cast<size_t>(s->accesses[static_cast<size_t>(wi.stmt)].array)];
  const bs::WarpAccess& acc = wi.access;
  const bool matrix = bs::is_matrix(acc.op);
  // Served alone lane by lane (R8); ATOMS.POPC.INC is not (R8b): drawn as a load of its lanes.
  const bool atomic = acc.op == bs::Op::kAtomic && acc.atom != bs::AtomOp::kPopcInc;
  std::cout << "  " << arr.declaration() << ", warp " << warp << " of block (" << block[0] << ","
            << block[1] << "," << block[2] << "), ";
  if (matrix) {
    // PTX ISA "ldmatrix" (documented): lane 8 i + r gives row r of matrix i.
    std::cout << bs::op_name(acc.op) << ".x" << acc.matrices << (acc.trans ? ".trans" : "") << ": "
              << acc.matrices
              << " 8x8 b16 matrices, lane 8i+r gives the 16-byte row r of matrix i (lanes 0.."
              << 8 * acc.matrices - 1 << ")\n\n";
  } else if (atomic) {
    std::cout << acc.width << "-byte atom." << bs::atom_name(acc.atom) << ", "
              << __builtin_popcount(acc.mask)
              << " active lanes; each lane is served alone: lanes on one word serialize (R8)\n\n";
  } else if (acc.op == bs::Op::kAtomic) {
    std::cout << "4-byte atom.popc_inc (atomicAdd(&x, 1): ATOMS.POPC.INC.32), " << __builtin_popcount(acc.mask)
              << " active lanes; lanes on one word are one increment, served once (R8b)\n\n";
  } else {
    std::cout << acc.width << "-byte " << (acc.op == bs::Op::kLoad ? "loads" : "stores") << ", "
              << __builtin_popcount(acc.mask) << " active lanes\n\n";
  }
  if (!wi.issued) {
    std::cout << "  no lane is active: the warp branches around it (not issued, 0 wavefronts)\n";
    return 0;
  }
  if (wi.access.mask == 0) {
    std::cout << "  issued with no active lane (predicated): counted as an instruction, 0 wavefronts\n";
    return 0;
  }
  // Atomics: lanes on the same address, each served in its own wavefront (R8).
  auto same_address = [&](int lane) {
    std::vector<int> others;
    for (int o = 0; o < bs::kWarpSize; ++o) {
      if (o != lane && rep.lanes[static_cast<size_t>(o)].active &&
          acc.addr[static_cast<size_t>(o)] == acc.addr[static_cast<size_t>(lane)]) {
        others.push_back(o);
      }
    }
    return others;
  };
  auto matrix_row = [](int lane) {
    return "matrix " + std::to_string(lane / 8) + " row " + std::to_string(lane % 8);
  };
  std::cout << "lanes -> banks\n";
  for (int lane = 0; lane < bs::kWarpSize; ++lane) {
    const bs::LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
    std::cout << "  lane " << std::setw(2) << lane;
    if (!d.active) {
      std::cout << (matrix && lane >= 8 * acc.matrices
                        ? "  unused (no row of a .x" + std::to_string(acc.matrices) + ")"
                        : "  inactive")
                << "\n";
      continue;
    }
    if (matrix) std::cout << "  " << matrix_row(lane);
    std::cout << "  byte " << std::setw(6) << d.addr << "  bank";
    for (int k = 0; k < d.words; ++k) std::cout << (k ? "," : " ") << std::setw(2) << d.bank[static_cast<size_t>(k)];
    std::cout << "  word";
    for (int k = 0; k < d.words; ++k) std::cout << (k ? "," : " ") << std::setw(5) << d.word[static_cast<size_t>(k)];
    std::cout << "  -> wavefront " << d.wavefront;
    if (atomic) {
      const std::vector<int> others = same_address(lane);
      if (!others.empty()) {
        std::cout << "  same address as lane";
        if (others.size() > 1) std::cout << "s";
        for (size_t i = 0; i < others.size(); ++i) std::cout << (i ? "," : "") << " " << others[i];
        std::cout << ": serialized";
      }
    }
    std::cout << "\n";
  }
  if (matrix) {
    std::cout << "\nwavefronts (one per cycle): each cell is the lowest lane whose row a bank "
                 "serves; '+' = more lanes\n"
                 "give the same row (read once); '.' = bank idle; then the 16-byte rows the "
                 "wavefront reads\n";
  } else if (atomic) {
    std::cout << "\nwavefronts (one per cycle): each cell is the one lane a bank serves; '*' = "
                 "other lanes wait for\n"
                 "the same address (an atomic serializes them, no broadcast); '.' = bank idle\n";
  } else {
    std::cout << "\nwavefronts (one per cycle): each cell is the lowest lane a bank serves; '+' = "
                 "more lanes get\n"
                 "the same word (broadcast); '.' = bank idle\n";
  }
  std::cout << "        bank";
  for (int b = 0; b < nb; ++b) std::cout << std::setw(4) << b;
  std::cout << "\n";
  // An atomic lane is served in one wavefront of its own (R8): its d.wavefront, and for CAS also
  // the first pass, half the wavefronts earlier (bank_model.cpp lays the passes out that way).
  const int passes = bs::rules::second_pass(acc) ? 2 : 1;
  const int per_pass = static_cast<int>(rep.wavefronts.size()) / passes;
  auto served_alone_in = [&](const bs::LaneDetail& d, int w) {
    return d.wavefront == w || (passes == 2 && d.wavefront - per_pass == w);
  };
  for (size_t w = 0; w < rep.wavefronts.size(); ++w) {
    const bs::WavefrontDetail& wf = rep.wavefronts[w];
    std::cout << "  wf " << std::setw(3) << w << " p" << wf.phase << " ";
    uint32_t rows = 0;  // ldmatrix: lanes whose row this wavefront reads
    for (int b = 0; b < nb; ++b) {
      int first = -1, count = 0;
      for (const auto& [bank, word] : wf.words) {
        if (bank != b) continue;
        for (int lane = 0; lane < bs::kWarpSize; ++lane) {
          const bs::LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
          if (!d.active || d.phase != wf.phase) continue;
          if (atomic && !served_alone_in(d, static_cast<int>(w))) continue;
          for (int k = 0; k < d.words; ++k) {
            if (d.word[static_cast<size_t>(k)] == word) {
              if (first < 0) first = lane;
              ++count;
              rows |= uint32_t{1} << lane;
            }
          }
        }
      }
      std::string cell = first < 0 ? "." : std::to_string(first);
      if (first >= 0 && atomic && !same_address(first).empty()) cell += "*";
      if (first >= 0 && !atomic && count > 1) cell += "+";
      std::cout << std::setw(4) << cell;
    }
    if (matrix) {
      std::cout << "   reads";
      const char* sep = " ";
      for (uint32_t m = rows; m != 0; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        std::cout << sep << "m" << lane / 8 << ".r" << lane % 8;
        sep = ", ";
      }
    }
    std::cout << "\n";
  }
  const bs::AccessCost& c = rep.cost;
  std::cout << "\n" << c.wavefronts << " wavefront(s), ideal " << c.ideal_wavefronts << ", bank conflicts "
            << c.bank_conflicts() << " (ncu definition), " << c.n_way << "-way, efficiency "
            << std::fixed << std::setprecision(1) << 100.0 * rep.efficiency() << "%\n";
  std::cout << "  as this warp alone would count: " << cnt::l1tex_wavefronts(wi.access.op) << " = "
            << c.wavefronts << ", " << cnt::l1tex_bank_conflicts(wi.access.op) << " = "
            << c.bank_conflicts() << "\n";
  return 0;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] compare
// ---------------------------------------------------------------------------------------------

// What --stride/--type/--array did to B, in words ("" = nothing).
std::string overrides_text(const ScenarioArgs& o) {
  std::string t;
  if (o.stride != 0) t += " --stride " + std::to_string(o.stride);
  if (!o.type.empty()) t += " --type " + o.type;
  if (!o.array.empty()) t += " --array " + o.array;
  return t;
}

// A and B as the user gave them: B carries the overrides; with no file, A is the seed tile[32][32]
// and B the seed with the overrides or, without any, tile[32][33]; with one file, B is that file
// with the overrides (and without any it is an error, never a silent comparison with the seed).
int compare(const ScenarioArgs& a_args, const ScenarioArgs& b_args, uint64_t max_blocks) {
  auto a = load(a_args, 32);
  if (!a) return fail(a.error().message);
  auto b = load(b_args, b_args.overridden() ? 32 : 33);
  if (!b) return fail(b.error().message);
  auto ta = run_totals(*a, max_blocks);
  if (!ta) return fail(ta.error().message);
  bs::LaunchTotals not_run;  // Ctrl-C during A: B's totals were never started
  not_run.complete = false;
  not_run.blocks = uint64_t(b->grid.x) * uint64_t(b->grid.y) * uint64_t(b->grid.z);
  not_run.stopped_because = "cancelled before it started";
  auto tb = g_interrupted.load() ? bs::Result<bs::LaunchTotals>(not_run) : run_totals(*b, max_blocks);
  if (!tb) return fail(tb.error().message);
  auto wa = warp_rows(*a, 0);
  if (!wa) return fail(wa.error().message);
  auto wb = warp_rows(*b, 0);
  if (!wb) return fail(wb.error().message);
  // ld and st, then every other kind either side has, each under its own counters.
  std::vector<bs::Op> kinds = bs::kinds_of(*a);
  for (bs::Op op : bs::kinds_of(*b)) {
    if (std::find(kinds.begin(), kinds.end(), op) == kinds.end()) kinds.push_back(op);
  }
  auto source = [](const ScenarioArgs& x) {
    return x.path.empty() ? std::string("built-in seed kernel") : x.path;
  };
  std::cout << "A: " << a->spec.name << "  (" << source(a_args) << ")\n";
  for (const bs::SharedArray& arr : a->arrays) std::cout << "   " << arr.declaration() << "\n";
  std::cout << "B: " << b->spec.name << "  (" << source(b_args) << overrides_text(b_args) << ")\n";
  for (const bs::SharedArray& arr : b->arrays) std::cout << "   " << arr.declaration() << "\n";
  std::cout << "\n" << std::left << std::setw(56) << "per warp instruction, warp 0 of block 0 alone" << std::right
            << std::setw(22) << "A" << std::setw(22) << "B" << "\n";
  std::cout << std::left << std::setw(56) << "statement (paired by position)" << std::right << std::setw(15)
            << "wavefronts" << std::setw(7) << "n-way" << std::setw(15) << "wavefronts" << std::setw(7) << "n-way"
            << "\n";
  const size_t rows = std::max(wa->size(), wb->size());
  for (size_t i = 0; i < rows; ++i) {
    auto wf = [](const std::vector<AccessRow>& r, size_t k) -> std::string {
      if (k >= r.size() || r[k].instructions == 0) return "-";
      return r[k].wf_min == r[k].wf_max ? std::to_string(r[k].wf_max)
                                        : std::to_string(r[k].wf_min) + ".." + std::to_string(r[k].wf_max);
    };
    auto nway = [](const std::vector<AccessRow>& r, size_t k) -> std::string {
      return k >= r.size() || r[k].instructions == 0 ? "-" : std::to_string(r[k].n_way);
    };
    const bs::Scenario& ref = i < wa->size() ? *a : *b;
    std::string label = std::to_string(i) + "  " + ref.accesses[i].label;
    if (label.size() > 54) label = label.substr(0, 51) + "...";
    std::cout << "  " << std::left << std::setw(54) << label << std::right << std::setw(15) << wf(*wa, i)
              << std::setw(7) << nway(*wa, i) << std::setw(15) << wf(*wb, i) << std::setw(7) << nway(*wb, i)
              << "\n";
  }
  std::cout << "(wavefronts: per warp instruction, this warp alone: "
            << cnt::l1tex_wavefronts(bs::Op::kLoad) << " and _st";
  for (bs::Op op : kinds) {
    if (!bs::is_plain(op))
      std::cout << ",\n " << bs::totals_key(op) << ": " << cnt::l1tex_wavefronts(op);
  }
  std::cout << ";\n n-way: most distinct words one bank serves in one instruction)\n";
  std::cout << "\nper launch (" << n_text(a->spec) << " / " << n_text(b->spec)
            << "), as Nsight Compute counts it" << (ta->complete && tb->complete ? ", exact" : "") << "\n";
  for (const auto* t : {&*ta, &*tb}) {
    if (!t->complete) std::cout << "  " << (t == &*ta ? "A" : "B") << ": " << bound_text(*t) << "\n";
  }
  auto row = [](const std::string& name, const std::string& x, const std::string& y) {
    std::cout << "  " << std::left << std::setw(70) << name << std::right << std::setw(14) << x
              << std::setw(14) << y << "\n";
  };
  for (bs::Op op : kinds) {
    const bs::OpTotals& x = ta->of(op);
    const bs::OpTotals& y = tb->of(op);
    row(cnt::inst_executed(op), count_text(x.instructions, x.saturated), count_text(y.instructions, y.saturated));
    row(cnt::sass_inst_executed(op), count_text(x.active_instructions, x.saturated),
        count_text(y.active_instructions, y.saturated));
    row(cnt::wavefronts(op), count_text(x.wavefronts, x.saturated), count_text(y.wavefronts, y.saturated));
    row(cnt::bank_conflicts(op), conflicts_text(x), conflicts_text(y));
  }
  if (!ta->complete || !tb->complete) {
    std::cout << "\nper launch, incomplete: the ratio below compares lower bounds\n";
  }
  double wa_total = 0, wb_total = 0;
  for (bs::Op op : kinds) {
    wa_total += double(ta->of(op).wavefronts);
    wb_total += double(tb->of(op).wavefronts);
  }
  std::cout << "\nB issues ";
  if (wa_total == wb_total) {
    std::cout << "as many shared-memory wavefronts as A";
  } else if (wb_total == 0) {
    std::cout << "no shared-memory wavefronts (A: " << std::fixed << std::setprecision(0) << wa_total << ")";
  } else if (wa_total == 0) {
    std::cout << std::fixed << std::setprecision(0) << wb_total << " shared-memory wavefronts, A none";
  } else if (wb_total < wa_total) {
    std::cout << std::fixed << std::setprecision(2) << wa_total / wb_total << "x fewer shared-memory wavefronts than A";
  } else {
    std::cout << std::fixed << std::setprecision(2) << wb_total / wa_total << "x more shared-memory wavefronts than A";
  }
  std::cout << " (worst access " << ta->max_n_way << "-way vs " << tb->max_n_way << "-way)\n";
  return std::max(totals_exit_code(*ta), totals_exit_code(*tb));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] sweep
// ---------------------------------------------------------------------------------------------

// "A..B" or "A" -> (A, B).
bool parse_range(const std::string& text, int64_t* first, int64_t* last) {
  const size_t dots = text.find("..");
  try {
    size_t used = 0;
    if (dots == std::string::npos) {
      *first = *last = std::stoll(text, &used);
      return used == text.size();
    }
    *first = std::stoll(text.substr(0, dots), &used);
    if (used != dots) return false;
    const std::string tail = text.substr(dots + 2);
    *last = std::stoll(tail, &used);
    return used == tail.size();
  } catch (...) {
    return false;
  }
}

int sweep(const std::string& path, int access, const std::string& range, const std::string& array,
          const std::string& svg_path) {
  bs::SweepOptions opt;
  opt.access = access;
  opt.array = array;
  if (!parse_range(range, &opt.first, &opt.last)) {
    return fail("--stride: '" + range + "' is not a stride range A..B (e.g. 1..128)");
  }
  auto spec = bs::load_scenario_file(path);
  if (!spec) return fail(spec.error().message);
  auto sw = bs::stride_sweep(*spec, opt);
  if (!sw) return fail(path + ": " + sw.error().message);
  std::cout << "sweep     " << sw->access.substr(0, 2) << " " << sw->access.substr(3) << "  (statement " << access
            << " of " << path << ")\n";
  std::cout << "array     " << sw->array << ": " << sw->element << ", row length " << sw->cols
            << "; row stride swept " << sw->first << ".." << opt.last;
  if (sw->first > opt.first) std::cout << " (strides below the row length would overlap rows)";
  std::cout << "\ncounted   every warp of block 0, one warp instruction at a time (l1tex__ view)\n\n";
  std::cout << std::right << std::setw(6) << "stride" << std::setw(14) << "instructions" << std::setw(12)
            << "wavefronts" << std::setw(12) << "wavefronts" << std::setw(7) << "n-way" << "\n"
            << std::setw(32 + 12) << "per instr." << "\n";
  const bs::SweepPoint* first_invalid = nullptr;
  int invalid = 0;
  for (const bs::SweepPoint& p : sw->points) {
    if (!p.invalid.empty()) {
      if (invalid++ == 0) first_invalid = &p;
      std::cout << std::setw(6) << p.stride << "  cannot run (see below)\n";
      continue;
    }
    std::ostringstream per;
    if (p.instructions == 0) {
      per << "-";
    } else if (p.wf_min == p.wf_max) {
      per << p.wf_max;
    } else {
      per << std::fixed << std::setprecision(2) << p.wavefronts_per_instruction();
    }
    std::cout << std::setw(6) << p.stride << std::setw(14) << with_commas(p.instructions) << std::setw(12)
              << with_commas(p.wavefronts) << std::setw(12) << per.str() << std::setw(7) << p.n_way << "\n";
  }
  std::cout << "(instructions, wavefronts: summed over block 0's warps; per instr.: their mean, exact when all\n"
               " are equal; n-way: most distinct words one bank serves in one instruction)\n";
  if (first_invalid != nullptr) {
    std::cout << invalid << " stride" << (invalid == 1 ? "" : "s") << " cannot run; stride " << first_invalid->stride
              << ": " << first_invalid->invalid << "\n";
  }
  if (!svg_path.empty()) {
    bs::SweepSeries series;
    series.label = sw->access + "  (" + sw->element + ")";
    for (const bs::SweepPoint& p : sw->points) {
      if (!p.invalid.empty()) continue;  // a gap in the chart
      series.strides.push_back(static_cast<int>(p.stride));
      series.wavefronts.push_back(p.wf_max);
    }
    const std::string svg = bs::svg_stride_sweep(
        {series}, "wavefronts per warp instruction (largest in block 0) against " + sw->array + "'s row stride");
    // Atomic: a failed write never leaves half a file under the user's name.
    const std::string tmp = svg_path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out || !(out << svg) || !out.flush()) {
        std::remove(tmp.c_str());
        return fail("--svg: " + svg_path + ": cannot write");
      }
    }
    if (std::rename(tmp.c_str(), svg_path.c_str()) != 0) {
      std::remove(tmp.c_str());
      return fail("--svg: " + svg_path + ": cannot write");
    }
    std::cout << "wrote " << svg_path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bankscope-cli: predict CUDA shared-memory bank conflicts (headless)"};
  app.require_subcommand(1);

  ScenarioArgs pargs;
  std::string jsonl;
  bool as_json = false;
  int warp = 0;
  auto* predict = app.add_subcommand("predict", "per-access table and per-launch totals, or a JSONL batch of raw patterns");
  predict->add_option("scenario", pargs.path, "scenario JSON file")->check(CLI::ExistingFile);
  predict->add_option("--jsonl", jsonl, "JSONL patterns, one {width, op, mask, offsets} object per line ('-' = stdin)");
  predict->add_flag("--json", as_json, "print JSON instead of a table");
  bool jsonl_sass = false;
  predict->add_flag("--sass", jsonl_sass,
                    "with --jsonl: also \"sass_wavefronts\" and \"sass_ideal\", what Nsight Compute's instruction-level "
                    "counters and source view count (they differ from the hardware counters for some 8/16-byte loads)");
  predict->add_option("--warp", warp, "warp of block 0 shown per instruction")->check(CLI::NonNegativeNumber);
  uint64_t max_blocks = 0;
  predict->add_option("--max-blocks", max_blocks,
                      "stop the per-launch totals after K simulated blocks (prints a lower bound and an estimate; exit 3)")
      ->check(CLI::Range(uint64_t{1}, bs::kCountMax));
  add_scenario_options(predict, pargs);

  ScenarioArgs eargs;
  int ewarp = 0, eaccess = 0;
  std::vector<int64_t> eblock;
  auto* ex = app.add_subcommand("explain", "text picture of lanes -> banks -> wavefronts for one warp instruction");
  ex->add_option("scenario", eargs.path, "scenario JSON file (default: the seed kernel, tile[32][32])")->check(CLI::ExistingFile);
  ex->add_option("--warp", ewarp, "warp index in the block")->check(CLI::NonNegativeNumber);
  ex->add_option("--block", eblock, "block index X,Y,Z")->delimiter(',')->expected(1, 3);
  ex->add_option("--access", eaccess, "which of the warp's shared-memory instructions (program order, loops unrolled)")
      ->check(CLI::NonNegativeNumber);
  add_scenario_options(ex, eargs);

  ScenarioArgs ca, cb;
  int64_t cn = 0;
  auto* cmp = app.add_subcommand(
      "compare",
      "two scenarios side by side; --stride/--type/--array change B. No file: the seed's tile[32][32] vs "
      "tile[32][33] (or vs the seed changed by the options); one file: that file vs itself changed by the options");
  cmp->add_option("a", ca.path, "first scenario")->check(CLI::ExistingFile);
  cmp->add_option("b", cb.path, "second scenario")->check(CLI::ExistingFile);
  cmp->add_option("--n", cn, "matrix size N for both")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  cmp->add_option("--stride", cb.stride, "B: physical row stride of its first array (or --array), in elements")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmp->add_option("--type", cb.type, "B: element type of its first array (or --array)");
  cmp->add_option("--array", cb.array, "B: the array --stride and --type change, by name");
  uint64_t cmax_blocks = 0;
  cmp->add_option("--max-blocks", cmax_blocks,
                  "stop each scenario's per-launch totals after K simulated blocks (lower bounds; exit 3)")
      ->check(CLI::Range(uint64_t{1}, bs::kCountMax));

  std::string sw_path, sw_range = "1..128", sw_array, sw_svg;
  int sw_access = 0;
  auto* swc = app.add_subcommand("sweep", "wavefronts per instruction of one statement against a row stride (table, SVG chart)");
  swc->add_option("scenario", sw_path, "scenario JSON file")->required()->check(CLI::ExistingFile);
  swc->add_option("--access", sw_access, "statement index K (as in predict's # column)")->check(CLI::NonNegativeNumber);
  swc->add_option("--stride", sw_range, "stride range A..B in elements (default 1..128; starts at the row length)");
  swc->add_option("--array", sw_array, "the array whose row stride varies (default: the one statement K accesses)");
  swc->add_option("--svg", sw_svg, "also write the chart as SVG to this file");

  bs::cli::ReportArgs rargs;
  auto* rep = bs::cli::add_report_command(app, rargs);
  bs::cli::UpgradeArgs uargs;
  auto* upgrade = bs::cli::add_upgrade_command(app, uargs);
  bs::cli::SassArgs sargs, kargs;
  auto* sass = bs::cli::add_sass_command(app, sargs);
  auto* check = bs::cli::add_check_command(app, kargs);
  bs::cli::FixArgs fargs;
  auto* fix = bs::cli::add_fix_command(app, fargs);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "bankscope-cli: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }

  if (predict->parsed()) {
    if (!jsonl.empty()) {
      if (!pargs.path.empty()) {
        std::cerr << "bankscope-cli: predict: give a scenario or --jsonl, not both\n";
        return kExitUsage;
      }
      return predict_jsonl(jsonl, jsonl_sass);
    }
    if (jsonl_sass) {
      std::cerr << "bankscope-cli: predict: --sass goes with --jsonl (a scenario's totals are per launch)\n";
      return kExitUsage;
    }
    if (pargs.path.empty()) {
      std::cerr << "bankscope-cli: predict: needs a SCENARIO file or --jsonl FILE|- (see --help)\n";
      return kExitUsage;
    }
    return predict_scenario(pargs, warp, as_json, max_blocks);
  }
  if (ex->parsed()) return explain(eargs, ewarp, eblock, eaccess);
  if (swc->parsed()) return sweep(sw_path, sw_access, sw_range, sw_array, sw_svg);
  if (rep->parsed()) return bs::cli::run_report(rargs);
  if (upgrade->parsed()) return bs::cli::run_upgrade(uargs);
  if (sass->parsed()) return bs::cli::run_sass(sargs);
  if (check->parsed()) return bs::cli::run_check(kargs);
  if (fix->parsed()) return bs::cli::run_fix(fargs);
  if (cmp->parsed()) {
    ca.n = cb.n = cn;
    if (!ca.path.empty() && cb.path.empty()) {
      if (!cb.overridden()) {
        std::cerr << "bankscope-cli: compare: one scenario (" << ca.path
                  << ") and nothing to compare it with: give a second scenario, or --stride/--type to compare it "
                     "with itself changed\n";
        return kExitUsage;
      }
      cb.path = ca.path;
    }
    return compare(ca, cb, cmax_blocks);
  }
  return kExitUsage;
}
