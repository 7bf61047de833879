// realworld_command.cpp: `bankscope-gpu realworld` (realworld_command.hpp). It needs no CUDA in
// process: both sides are subprocesses (bankscope-cli for the prediction, so the numbers are
// exactly what `bankscope-cli predict` prints; ncu for the measurement).
#include "realworld_command.hpp"

#include "find_tool.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "ncu_runner.hpp"
#include "sim/counter_names.hpp"

namespace fs = std::filesystem;

namespace bankscope {

namespace {

struct SizeLine {
  int line = 0;
  std::string name;
  std::string n;
  std::vector<std::string> params;  // "P=V"
};

// The per-launch counters, in the order of the table: per op, the hardware instruction count, the
// instruction-level (SASS-patched) one and the instruction-level wavefronts; for ldmatrix (only
// when the prediction has an "ldsm" total) also its instruction-level bank-conflict counter, which
// sm_90 has for ldsm but not for LDS/STS (sim/counter_names.hpp).
struct Counter {
  Op op;
  const char* total;  // predict --json's totals.<total>
  const char* key;    // field of that total
  const char* name;
};
std::vector<Counter> counters_compared(bool ldsm = false) {
  std::vector<Counter> c;
  for (Op op : {Op::kLoad, Op::kStore}) {
    const char* total = op == Op::kLoad ? "ld" : "st";
    c.push_back({op, total, "instructions", counters::inst_executed(op)});
    c.push_back({op, total, "active_instructions", counters::sass_inst_executed(op)});
    c.push_back({op, total, "wavefronts", counters::wavefronts(op)});
  }
  if (ldsm) {
    const Op op = Op::kLdmatrix;
    c.push_back({op, "ldsm", "instructions", counters::inst_executed(op)});
    c.push_back({op, "ldsm", "active_instructions", counters::sass_inst_executed(op)});
    c.push_back({op, "ldsm", "wavefronts", counters::wavefronts(op)});
    c.push_back({op, "ldsm", "bank_conflicts", counters::bank_conflicts(op)});
  }
  return c;
}

// Runs `cmd` through the shell; returns its exit status (-1 if it could not start) and its output
// (standard output, and standard error too unless `err_file` is given: then it goes there).
int run_capture(const std::string& cmd, std::string* out, const std::string& err_file = "") {
  out->clear();
  const std::string redirect = err_file.empty() ? " 2>&1" : " 2>" + shell_quote(err_file);
  FILE* p = popen((cmd + redirect).c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool is_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_count(const std::string& s) {
  return !s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string::npos &&
         s[0] != '0';
}

// "NAME N [P=V ...]" lines; '#' starts a comment. Errors name the file and line.
bool read_sizes(const std::string& path, std::vector<SizeLine>* out, std::string* err) {
  std::ifstream in(path);
  if (!in) {
    *err = path + ": cannot open";
    return false;
  }
  std::string text;
  int line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    const size_t hash = text.find('#');
    if (hash != std::string::npos) text.resize(hash);
    std::istringstream ss(text);
    SizeLine l;
    l.line = line_no;
    if (!(ss >> l.name)) continue;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (!is_name(l.name)) {
      *err = where + "'" + l.name + "' is not a kernel name (letters, digits, _)";
      return false;
    }
    if (!(ss >> l.n) || !is_count(l.n)) {
      *err = where + "expected NAME N [P=V ...] with N a positive integer";
      return false;
    }
    std::string p;
    while (ss >> p) {
      const size_t eq = p.find('=');
      if (eq == std::string::npos || !is_name(p.substr(0, eq)) ||
          p.find_first_not_of("0123456789", eq + 1) != std::string::npos || eq + 1 == p.size()) {
        *err = where + "'" + p + "': expected PARAM=VALUE (a name and a non-negative integer)";
        return false;
      }
      l.params.push_back(p);
    }
    out->push_back(l);
  }
  return true;
}

std::string args_text(const SizeLine& l) {
  std::string s;
  for (const std::string& p : l.params) s += (s.empty() ? "" : " ") + p;
  return s.empty() ? "-" : s;
}

// bankscope-cli predict --json -> the six counts (by counter name). The counter names are read
// from the JSON too and must be the ones compared: a renamed counter fails loudly.
// `predictor` (may be empty): a command line run in place of `CLI predict`, with the same arguments
// and the same JSON out (scripts/mma_gemm_predict.py adds an "ldsm" total that scenarios cannot
// express yet). *compared gets the counters the JSON predicts, in table order.
bool predict(const std::string& cli, const std::string& predictor, const std::string& scenario,
             const SizeLine& l, std::map<std::string, uint64_t>* out,
             std::vector<Counter>* compared, std::string* err) {
  const std::string what = predictor.empty() ? "bankscope-cli predict" : predictor;
  std::string cmd = (predictor.empty() ? shell_quote(cli) + " predict" : predictor) + " " +
                    shell_quote(scenario) + " --n " + l.n + " --json";
  for (const std::string& p : l.params) cmd += " --param " + shell_quote(p);
  // Standard error apart: predict prints progress lines there when a launch takes over a second.
  char err_path[] = "/tmp/bankscope_realworld_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) {
    *err = "cannot create a temporary file for bankscope-cli's messages";
    return false;
  }
  close(fd);
  std::string text;
  const int rc = run_capture(cmd, &text, err_path);
  std::string messages;
  {
    std::ifstream e(err_path);
    std::string line;
    while (std::getline(e, line))
      if (line.find("per-launch totals:") == std::string::npos)
        messages = line;  // the last one that is not progress
  }
  std::remove(err_path);
  if (rc != 0) {
    *err = what + " exited with " + std::to_string(rc) + ": " + messages;
    return false;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.contains("complete") && !j.at("complete").get<bool>()) {
      *err = what + ": totals incomplete (a lower bound), not comparable";
      return false;
    }
    *compared = counters_compared(j.at("totals").contains("ldsm"));
    for (const Counter& c : *compared) {
      const nlohmann::json& t = j.at("totals").at(c.total);
      if (t.value("saturated", false)) {
        *err = what + ": " + c.name + " saturated";
        return false;
      }
      const std::string named = t.at("counters").at(c.key).get<std::string>();
      if (named != c.name) {
        *err = what + ": totals." + c.total + "." + c.key + " is named " + named + ", expected " +
               c.name;
        return false;
      }
      (*out)[c.name] = t.at(c.key).get<uint64_t>();
    }
  } catch (const std::exception& e) {
    *err = what + " --json: " + e.what();
    return false;
  }
  return true;
}

}  // namespace

CLI::App* add_realworld_command(CLI::App& app, RealworldArgs& a) {
  auto* r = app.add_subcommand("realworld",
                               "run the real kernels of assets/scenarios/realworld under ncu and "
                               "compare with bankscope's predictions");
  r->add_option("--sizes", a.sizes, "lines 'NAME N [PARAM=VALUE ...]'")->capture_default_str();
  r->add_option("--scenarios", a.scenarios, "directory of NAME.json (default: the sizes file's)");
  r->add_option("--bin", a.bin, "directory of the built programs BIN/NAME");
  r->add_option("--cli", a.cli, "bankscope-cli (default: beside bankscope-gpu)");
  r->add_option("--predictor", a.predictor,
                "command run instead of 'CLI predict' (same arguments, same JSON; an \"ldsm\" "
                "total adds the ldmatrix counters)");
  r->add_option("--ncu", a.ncu, "auto or a path")->capture_default_str();
  r->add_option("--ncu-log", a.ncu_log, "append each ncu run's output here");
  r->add_option("--only", a.only, "only these kernels");
  r->add_flag("--dry-run", a.dry_run,
              "predictions only, no GPU: the table of realworld_predictions.txt");
  return r;
}

int run_realworld(const RealworldArgs& a) {
  std::vector<SizeLine> lines;
  std::string err;
  if (!read_sizes(a.sizes, &lines, &err)) {
    std::cerr << "bankscope-gpu: realworld: " << err << "\n";
    return kExitUsage;
  }
  const fs::path dir =
      a.scenarios.empty() ? fs::path(a.sizes).parent_path() : fs::path(a.scenarios);
  const std::string cli = a.cli.empty() ? (fs::path(self_dir()) / "bankscope-cli").string() : a.cli;
  std::string ncu;
  if (!a.dry_run) {
    if (a.bin.empty()) {
      std::cerr << "bankscope-gpu: realworld: --bin DIR (the built programs) is required unless "
                   "--dry-run\n";
      return kExitUsage;
    }
    ncu = a.ncu == "auto" ? find_ncu() : a.ncu;
    if (ncu.empty()) {
      std::cerr << "bankscope-gpu: realworld: ncu not found (PATH, /usr/local/cuda/bin); no "
                   "measurement made\n";
      return kExitNoDevice;
    }
  }
  std::printf("realworld: %s, predicted by %s%s\n", a.sizes.c_str(),
              a.predictor.empty() ? (cli + " predict").c_str() : a.predictor.c_str(),
              a.dry_run ? " (dry run: no measurement)" : ", measured by ncu --clock-control none");
  if (a.dry_run)
    std::printf("%-20s %9s %-6s %-64s %14s\n", "kernel", "N", "params", "counter", "predicted");
  else
    std::printf("%-20s %9s %-6s %-64s %14s %14s\n", "kernel", "N", "params", "counter", "predicted",
                "measured");
  int rows = 0, comparisons = 0, differences = 0, wrong_output = 0, errors = 0;
  size_t predictions = 0;
  for (const SizeLine& l : lines) {
    if (!a.only.empty() && std::find(a.only.begin(), a.only.end(), l.name) == a.only.end())
      continue;
    ++rows;
    const std::string scenario = (dir / (l.name + ".json")).string();
    std::map<std::string, uint64_t> pred;
    std::vector<Counter> compared;
    if (!predict(cli, a.predictor, scenario, l, &pred, &compared, &err)) {
      std::printf("%-20s %9s %-6s ERROR %s (%s:%d)\n", l.name.c_str(), l.n.c_str(),
                  args_text(l).c_str(), err.c_str(), a.sizes.c_str(), l.line);
      ++errors;
      continue;
    }
    const NcuKernel* k = nullptr;
    std::vector<NcuKernel> measured;
    std::string verdict;
    predictions += compared.size();
    if (!a.dry_run) {
      std::string metrics;
      for (const Counter& c : compared)
        metrics += (metrics.empty() ? "" : ",") + std::string(c.name);
      const std::string exe = (fs::path(a.bin) / l.name).string();
      std::string cmd = shell_quote(ncu) +
                        " --csv --clock-control none --kernel-name-base demangled --kernel-name " +
                        shell_quote("regex:" + l.name) + " --metrics " + metrics + " " +
                        shell_quote(exe) + " " + l.n;
      for (const std::string& p : l.params) cmd += " " + shell_quote(p);
      std::string log;
      const int rc = run_capture(cmd, &log);
      if (!a.ncu_log.empty())
        std::ofstream(a.ncu_log, std::ios::app) << "$ " << cmd << "\n"
                                                << log << "(exit " << rc << ")\n";
      // The program checks its own output and prints one line: "... equal the CPU reference" or
      // "... MISMATCH ..." (assets/scenarios/realworld/realworld.cuh).
      const bool output_ok = log.find("equal the CPU reference") != std::string::npos &&
                             log.find("MISMATCH") == std::string::npos;
      if (!output_ok) {
        ++wrong_output;
        verdict =
            log.find("MISMATCH") != std::string::npos
                ? "the program's output differs from its CPU reference (ncu exit " +
                      std::to_string(rc) + ")"
                : "no CPU-check verdict from the program (ncu exit " + std::to_string(rc) + ")";
      }
      auto parsed = parse_ncu_csv(log);
      if (!parsed) {
        std::printf("%-20s %9s %-6s ERROR ncu: %s%s\n", l.name.c_str(), l.n.c_str(),
                    args_text(l).c_str(), parsed.error().message.c_str(),
                    verdict.empty() ? "" : ("; " + verdict).c_str());
        ++errors;
        continue;
      }
      measured = std::move(*parsed);
      if (measured.size() != 1) {
        std::printf("%-20s %9s %-6s ERROR ncu profiled %zu launches of %s, expected 1\n",
                    l.name.c_str(), l.n.c_str(), args_text(l).c_str(), measured.size(),
                    l.name.c_str());
        ++errors;
        continue;
      }
      k = &measured.front();
    }
    for (const Counter& c : compared) {
      const uint64_t p = pred.at(c.name);
      if (a.dry_run) {
        std::printf("%-20s %9s %-6s %-64s %14llu\n", l.name.c_str(), l.n.c_str(),
                    args_text(l).c_str(), c.name, static_cast<unsigned long long>(p));
        continue;
      }
      ++comparisons;
      const auto it = k->metrics.find(c.name);
      if (it == k->metrics.end()) {
        ++differences;
        std::printf("%-20s %9s %-6s %-64s %14llu %14s  DIFFERENT\n", l.name.c_str(), l.n.c_str(),
                    args_text(l).c_str(), c.name, static_cast<unsigned long long>(p), "(missing)");
        continue;
      }
      const bool equal = static_cast<double>(p) == it->second;
      if (!equal) ++differences;
      std::printf("%-20s %9s %-6s %-64s %14llu %14.0f  %s\n", l.name.c_str(), l.n.c_str(),
                  args_text(l).c_str(), c.name, static_cast<unsigned long long>(p), it->second,
                  equal ? "equal" : "DIFFERENT");
    }
    if (!verdict.empty())
      std::printf("%-20s %9s %-6s WRONG OUTPUT: %s\n", l.name.c_str(), l.n.c_str(),
                  args_text(l).c_str(), verdict.c_str());
  }
  if (a.dry_run) {
    std::printf("%d rows, %zu predictions, %d errors\n", rows, predictions, errors);
    return errors != 0 ? kExitError : kExitOk;
  }
  std::printf("%d rows, %d comparisons, %d differences", rows, comparisons, differences);
  if (wrong_output != 0) std::printf(", %d programs with wrong output", wrong_output);
  if (errors != 0) std::printf(", %d rows not compared (errors)", errors);
  std::printf("\n");
  if (errors != 0) return kExitError;
  if (wrong_output != 0) return kExitWrongOutput;
  return differences != 0 ? kExitMismatch : kExitOk;
}

}  // namespace bankscope
