// trace_command.cpp: `bankscope-gpu trace`: runs a program with the injection library
// (libbankscope_tracer.so, injection.cpp) loaded through CUDA_INJECTION64_PATH, then closes the
// trace it wrote: a launch the program never finished gets its end record with the status
// "program exited", and the file its end-of-file record with the program's exit status. With
// --check, runs the program again under ncu and sets the predicted-from-trace per-launch totals
// beside the instruction-level counters.
#include "trace_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

#include <CLI/CLI.hpp>

#include "find_tool.hpp"
#include "harness.hpp"
#include "ncu_runner.hpp"
#include "sim/counter_names.hpp"
#include "sim/sass.hpp"
#include "sim/trace.hpp"
#include "sim/trace_annotate.hpp"
#include "sim/trace_report.hpp"

namespace fs = std::filesystem;

namespace bankscope {

namespace {

std::string env_or(const char* name, const std::string& def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : def;
}

// The directory holding libsanitizer-public.so that matches the driver: the toolkit's own
// compute-sanitizer (on the H200: /usr/local/cuda-13.0/compute-sanitizer).
std::string find_sanitizer_dir() {
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("BANKSCOPE_SANITIZER_DIR")) dirs.emplace_back(d);
  dirs.emplace_back("/usr/local/cuda/compute-sanitizer");
  dirs.emplace_back("/usr/local/cuda-13.0/compute-sanitizer");
  for (const std::string& d : dirs) {
    if (fs::exists(fs::path(d) / "libsanitizer-public.so")) return d;
  }
  return {};
}

// Tracks whether the file ends inside a launch.
struct OpenLaunch : TraceSink {
  bool open = false;
  uint64_t launch = 0, launches = 0;
  void on_launch(const TraceLaunch& l) override {
    open = true;
    launch = l.launch;
    ++launches;
  }
  void on_launch_end(const TraceLaunchEnd&) override { open = false; }
};

std::vector<uint8_t> read_all(const std::string& path) {  // empty when it cannot be read
  auto bytes = read_trace_file(path);
  return bytes ? std::move(*bytes) : std::vector<uint8_t>{};
}

// Appends the records the tracer could not write itself. Returns false when the file is damaged
// in a way closing cannot fix (it is then left as it is, and the reader will say why).
bool close_trace(const std::string& path, int64_t exit_code, std::string* note) {
  std::vector<uint8_t> bytes = read_all(path);
  if (bytes.empty()) {
    // The injection never ran (not loaded, or the program made no CUDA call): a valid, empty trace.
    TraceWriter w;
    w.end(TraceEnd{0, exit_code});
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(w.bytes().data()),
                                                static_cast<std::streamsize>(w.bytes().size()));
    *note = "no CUDA launch was traced (the program made none, or the tracer did not load)";
    return true;
  }
  OpenLaunch sink;
  auto r = read_trace(bytes.data(), bytes.size(), sink);
  if (r.ok()) return true;  // already closed
  if (r.error().message.find("no end-of-file record") == std::string::npos) {
    *note = r.error().message;
    return false;
  }
  TraceWriter w(false);
  if (sink.open) {
    w.launch_end(TraceLaunchEnd{sink.launch, 0, 0, TraceStatus::kProgramExited});
    *note = "the program ended inside launch " + std::to_string(sink.launch) + " (recorded as such)";
  }
  w.end(TraceEnd{sink.launches, exit_code});
  std::ofstream(path, std::ios::binary | std::ios::app)
      .write(reinterpret_cast<const char*>(w.bytes().data()), static_cast<std::streamsize>(w.bytes().size()));
  return true;
}

// Reads what the injection library left in `dir` (index.txt: "<launch> <cubin> <mangled>" per
// traced launch), disassembles each cubin once with `nvdisasm -g`, and rewrites the trace with the
// SASS opcode and source line of every instruction found at its offset (sim/trace_annotate.hpp).
// Returns one line for the user; the trace is left as it was when anything fails.
std::string annotate_from_cubins(const std::string& trace_path, const fs::path& dir) {
  std::ifstream index(dir / "index.txt");
  if (!index) return "opcodes named from the Compute Sanitizer API (no cubin of a traced kernel was kept)";
  const std::string nvdisasm = find_tool("nvdisasm", "BANKSCOPE_NVDISASM");
  if (nvdisasm.empty()) return "opcodes named from the Compute Sanitizer API; no source lines (nvdisasm not found)";
  std::map<std::string, std::vector<SassFunction>> sass;  // cubin file -> its functions
  std::map<uint64_t, const SassFunction*> by_launch;
  std::string failed;
  uint64_t launch = 0;
  std::string cubin, mangled;
  while (index >> launch >> cubin >> mangled) {
    auto it = sass.find(cubin);
    if (it == sass.end()) {
      std::string text;
      const std::string cmd = shell_quote(nvdisasm) + " -g " + shell_quote((dir / cubin).string()) + " 2>/dev/null";
      if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
        if (pclose(p) != 0) text.clear();
      }
      auto fns = parse_sass(text);
      if (!fns) failed = cubin;
      it = sass.emplace(cubin, fns ? std::move(*fns) : std::vector<SassFunction>{}).first;
    }
    for (const SassFunction& f : it->second) {
      if (f.name == mangled) by_launch[launch] = &f;
    }
  }
  const std::vector<uint8_t> bytes = read_all(trace_path);
  AnnotateSummary sum;
  auto out = annotate_trace(bytes, by_launch, &sum);
  if (!out) return "opcodes named from the Compute Sanitizer API (" + out.error().message + ")";
  const std::string tmp = trace_path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(reinterpret_cast<const char*>(out->data()), static_cast<std::streamsize>(out->size()));
    if (!f) return "opcodes named from the Compute Sanitizer API (cannot write " + tmp + ")";
  }
  std::error_code ec;
  fs::rename(tmp, trace_path, ec);
  if (ec) return "opcodes named from the Compute Sanitizer API (cannot replace " + trace_path + ")";
  return "SASS (nvdisasm -g): " + std::to_string(sum.with_opcode) + " of " + std::to_string(sum.instructions) +
         " instructions named, " + std::to_string(sum.with_line) + " with a source line" +
         (failed.empty() ? "" : "; " + failed + " could not be disassembled");
}

int run_program(const std::vector<std::string>& command, const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "bankscope-gpu: trace: cannot run '%s'\n", argv[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string run_capture(const std::string& cmd) {
  std::string log;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
    pclose(p);
  }
  return log;
}

// ncu on the traced program, over the launches the trace selected (--kernel, --launch,
// --launches), CSV on stdout with stderr merged; `what` says what to collect.
std::string ncu_command(const TraceArgs& a, const std::string& ncu, const std::string& what) {
  std::string cmd = shell_quote(ncu) + " --csv --clock-control none --kernel-name-base demangled " + what;
  if (!a.kernel.empty()) cmd += " --kernel-name " + shell_quote("regex:" + a.kernel);
  if (a.launch != 0) cmd += " --launch-skip " + std::to_string(a.launch);
  if (a.launches != "all") cmd += " --launch-count " + a.launches;
  for (const std::string& c : a.command) cmd += " " + shell_quote(c);
  return cmd + " 2>&1";
}

// Per instruction: ncu's source view (SASS) of the same launches, "L1 Wavefronts Shared" and its
// "Ideal" at each traced instruction's offset, beside the trace's predicted per-PC counts. Returns
// the number of mismatching instructions; prints one line per mismatch and a summary line.
int check_per_instruction(const TraceArgs& a, const std::string& ncu, const TraceReport& traced,
                          const std::string& trace_path) {
  const std::string cmd = ncu_command(a, ncu, "--section SourceCounters --page source --print-source sass");
  const std::string csv = run_capture(cmd);
  // The raw source view is kept beside the trace (TRACE.ncu_source.csv): the per-instruction
  // verdict can be checked by hand.
  std::ofstream(trace_path + ".ncu_source.csv", std::ios::binary) << csv;
  auto source = parse_ncu_source_csv(csv);
  if (!source) {
    std::printf("--check per instruction: %s\n", source.error().message.c_str());
    return 1;
  }
  const std::vector<NcuSourceKernel> tables = std::move(*source);
  const auto& launches = traced.launches;
  std::vector<SourceLaunchKey> keys;
  for (const LaunchReport& l : launches) {
    SourceLaunchKey k;
    k.kernel = l.launch.kernel;
    for (const PcStats& s : l.pcs) k.executions[s.pc.pc] = s.executions;
    keys.push_back(std::move(k));
  }
  const std::vector<size_t> which = align_source_tables(tables, keys);
  if (which.size() != launches.size()) {
    std::printf("--check per instruction: ncu's source view has %zu tables for the trace's %zu launches, and no "
                "assignment of them (a launch's table printed at most twice) uses them all, or too many to search: "
                "not compared\n",
                tables.size(), launches.size());
    return 1;
  }
  std::vector<const NcuSourceKernel*> ks;
  for (size_t t : which) ks.push_back(&tables[t]);
  int compared = 0, bad = 0, missing = 0, skipped = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    std::map<uint64_t, const NcuSourceInst*> at;
    for (const NcuSourceInst& x : ks[i]->insts) at[x.offset] = &x;
    for (const PcStats& s : launches[i].pcs) {
      if (!s.modelled()) {
        ++skipped;
        continue;
      }
      const auto it = at.find(s.pc.pc);
      if (it == at.end()) {
        std::printf("    launch %zu pc 0x%llx %s: not in ncu's source view\n", i, static_cast<unsigned long long>(s.pc.pc),
                    s.pc.opcode.c_str());
        ++missing;
        continue;
      }
      ++compared;
      const NcuSourceInst& x = *it->second;
      if (static_cast<double>(s.wavefronts) != x.wavefronts || static_cast<double>(s.ideal) != x.ideal) {
        ++bad;
        std::printf("    launch %zu pc 0x%llx %-18s wavefronts %llu ideal %llu predicted; ncu %.0f / %.0f (%s)  MISMATCH\n", i,
                    static_cast<unsigned long long>(s.pc.pc), s.pc.opcode.c_str(),
                    static_cast<unsigned long long>(s.wavefronts), static_cast<unsigned long long>(s.ideal), x.wavefronts,
                    x.ideal, x.sass.c_str());
      }
    }
  }
  const std::string note = skipped ? ", " + std::to_string(skipped) + " not modelled, not compared" : "";
  std::printf("--check per instruction (ncu source view, L1 Wavefronts Shared and Ideal): %d of %d instructions equal%s\n",
              compared - bad, compared + missing, note.c_str());
  return bad + missing;
}

int check_against_ncu(const TraceArgs& a, const std::string& trace_path) {
  const std::string ncu = a.ncu == "auto" ? find_ncu() : a.ncu;
  if (ncu.empty()) {
    std::cerr << "bankscope-gpu: trace --check: ncu not found (PATH, /usr/local/cuda/bin); no comparison made\n";
    return kExitNoDevice;
  }
  if (a.blocks != "all") {
    std::cerr << "bankscope-gpu: trace --check: the trace covers only --blocks " << a.blocks
              << " per launch; ncu counts whole launches: no comparison made\n";
    return kExitUsage;
  }
  // The trace holds what the patched instructions saw: executions with at least one active thread,
  // which is what the instruction-level counter counts. The hardware instruction counter also counts
  // predicated executions with no active thread (measured on the H200: a reduction's guarded LDS/STS
  // 1,344 vs 7,744); it is printed beside, as context, not compared.
  // The issue-11 kinds (ldsm, stsm, atom, ldgsts) have their own instruction-level counters on sm_90.
  std::vector<std::string> metrics = {counters::inst_executed(Op::kLoad), counters::inst_executed(Op::kStore)};
  for (Op op : {Op::kLoad, Op::kStore, Op::kLdmatrix, Op::kStmatrix, Op::kAtomic, Op::kLdgsts}) {
    metrics.push_back(counters::sass_inst_executed(op));
    metrics.push_back(counters::wavefronts(op));
  }
  std::string joined;
  for (const std::string& m : metrics) joined += (joined.empty() ? "" : ",") + m;
  const std::string cmd = ncu_command(a, ncu, "--metrics " + joined);
  auto measured = parse_ncu_csv(run_capture(cmd));
  if (!measured) {
    std::cerr << "bankscope-gpu: trace --check: " << measured.error().message << "\n";
    return kExitError;
  }
  const std::vector<uint8_t> bytes = read_all(trace_path);
  auto rep = report_trace(bytes.data(), bytes.size());
  if (!rep) {
    std::cerr << "bankscope-gpu: trace --check: " << trace_path << ": " << rep.error().message << "\n";
    return kExitError;
  }
  const auto& launches = rep->traced.launches;
  std::printf("\n--check: predicted from the trace vs ncu, per launch (%zu traced, %zu measured)\n", launches.size(),
              measured->size());
  int mismatches = 0;
  const size_t n = std::max(launches.size(), measured->size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= launches.size() || i >= measured->size()) {
      std::printf("  launch #%zu: %s\n", i, i >= launches.size() ? "measured by ncu, not in the trace" : "traced, not measured by ncu");
      ++mismatches;
      continue;
    }
    const LaunchReport& l = launches[i];
    const NcuKernel& k = (*measured)[i];
    std::printf("  launch %llu %s (ncu: %s)%s\n", static_cast<unsigned long long>(l.launch.launch), l.launch.kernel.c_str(),
                k.name.c_str(), l.end.dropped ? "  [trace dropped executions: lower bounds]" : "");
    for (int kind = 0; kind < kTraceOpKinds; ++kind) {
      const TraceOpKind tk = static_cast<TraceOpKind>(kind);
      if (tk == TraceOpKind::kOther) continue;
      const Op op = op_of(tk);
      const OpTotals& t = l.by_kind[static_cast<size_t>(kind)];
      const bool plain = tk == TraceOpKind::kLoad || tk == TraceOpKind::kStore;
      if (l.uncosted_by_kind[kind] != 0) {
        std::printf("    (%s: %llu of %llu warp executions not modelled: not compared)\n", trace_op_kind_name(tk),
                    static_cast<unsigned long long>(l.uncosted_by_kind[kind]),
                    static_cast<unsigned long long>(l.executions_by_kind[kind]));
        continue;
      }
      if (!plain && t.instructions == 0) {
        // Not in the trace: the counter should read 0 (printed only when it does not).
        for (const char* name : {counters::sass_inst_executed(op), counters::wavefronts(op)}) {
          const auto it = k.metrics.find(name);
          if (it != k.metrics.end() && it->second != 0) {
            std::printf("    %-66s %14d  measured %14.0f  MISMATCH\n", name, 0, it->second);
            ++mismatches;
          }
        }
        continue;
      }
      for (int which = 0; which < 2; ++which) {
        const char* name = which == 0 ? counters::sass_inst_executed(op) : counters::wavefronts(op);
        const uint64_t pred = which == 0 ? t.instructions : t.wavefronts;
        const auto it = k.metrics.find(name);
        if (it == k.metrics.end()) {
          std::printf("    %-66s %14llu  measured: (missing)\n", name, static_cast<unsigned long long>(pred));
          ++mismatches;
          continue;
        }
        const bool ok = static_cast<double>(pred) == it->second;
        if (!ok) ++mismatches;
        std::printf("    %-66s %14llu  measured %14.0f  %s\n", name, static_cast<unsigned long long>(pred), it->second,
                    ok ? "equal" : "MISMATCH");
      }
    }
    for (Op op : {Op::kLoad, Op::kStore}) {
      const auto it = k.metrics.find(counters::inst_executed(op));
      if (it != k.metrics.end()) {
        std::printf("    %-66s %14s  measured %14.0f  (context: predicated-off executions included)\n",
                    counters::inst_executed(op), "-", it->second);
      }
    }
  }
  const int per_instruction = check_per_instruction(a, ncu, rep->traced, trace_path);
  std::printf("--check: %s (%d mismatching counts per launch, %d per instruction)\n",
              mismatches + per_instruction == 0 ? "all equal" : "MISMATCH", mismatches, per_instruction);
  mismatches += per_instruction;
  return mismatches == 0 ? kExitOk : kExitMismatch;
}

}  // namespace

CLI::App* add_trace_command(CLI::App& app, TraceArgs& a) {
  auto* t = app.add_subcommand("trace", "trace a CUDA program's shared-memory instructions: trace [options] -- PROGRAM ARGS...");
  t->add_option("--kernel", a.kernel, "only kernels whose demangled name matches this regex (ECMAScript)");
  t->add_option("--launch", a.launch, "first matching launch traced (0-based)")->capture_default_str();
  t->add_option("--launches", a.launches, "matching launches traced: all or N")->capture_default_str();
  t->add_option("--blocks", a.blocks, "blocks traced per launch: all or N (linear block index below N)")->capture_default_str();
  t->add_option("--records", a.records, "device buffer, in 160-byte slots: one per warp execution, two for an LDGSTS (its sources); overflow is counted as dropped")
      ->capture_default_str();
  t->add_option("-o,--out", a.out, "trace file")->capture_default_str();
  t->add_flag("--check", a.check, "run the program again under ncu and compare per launch");
  t->add_option("--ncu", a.ncu, "ncu for --check: auto or a path")->capture_default_str();
  t->add_flag("--ldgsts-r9", a.ldgsts_r9,
              "accepted for old scripts: cp.async .cg (LDGSTS.E.BYPASS) is costed by default since rule H10 "
              "(an @P0-guarded one counts 0, as ncu counts it)");
  t->add_option("command", a.command, "-- PROGRAM ARGS...")->required();
  return t;
}

int run_trace(const TraceArgs& a) {
  if (a.launches != "all" && a.launches.find_first_not_of("0123456789") != std::string::npos) {
    std::cerr << "bankscope-gpu: trace: --launches '" << a.launches << "': all or a number\n";
    return kExitUsage;
  }
  if (a.blocks != "all" && (a.blocks.empty() || a.blocks.find_first_not_of("0123456789") != std::string::npos)) {
    std::cerr << "bankscope-gpu: trace: --blocks '" << a.blocks << "': all or a number\n";
    return kExitUsage;
  }
  const fs::path dir(self_dir());
  const std::string lib = env_or("BANKSCOPE_TRACER_LIB", (dir / "libbankscope_tracer.so").string());
  const std::string patch = env_or("BANKSCOPE_TRACER_PATCH", (dir / "bankscope_tracer_patch.fatbin").string());
  for (const std::string& f : {lib, patch}) {
    if (!fs::exists(f)) {
      std::cerr << "bankscope-gpu: trace: " << f << " not found (built with bankscope-gpu when the Compute Sanitizer headers are found)\n";
      return kExitNoDevice;
    }
  }
  const std::string san = find_sanitizer_dir();
  if (san.empty()) {
    std::cerr << "bankscope-gpu: trace: libsanitizer-public.so not found (looked in $BANKSCOPE_SANITIZER_DIR, "
                 "/usr/local/cuda/compute-sanitizer, /usr/local/cuda-13.0/compute-sanitizer)\n";
    return kExitNoDevice;
  }
  std::error_code ec;
  fs::remove(a.out, ec);
  // The traced kernels' cubins, for their SASS (removed when done).
  const fs::path cubins = a.out + ".cubins";
  fs::remove_all(cubins, ec);
  fs::create_directories(cubins, ec);
  const std::string ld = env_or("LD_LIBRARY_PATH", "");
  const std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", fs::absolute(lib).string()},
      {"LD_LIBRARY_PATH", san + (ld.empty() ? "" : ":" + ld)},
      {"BANKSCOPE_TRACE_OUT", fs::absolute(a.out).string()},
      {"BANKSCOPE_TRACE_PATCH", fs::absolute(patch).string()},
      {"BANKSCOPE_TRACE_KERNEL", a.kernel},
      {"BANKSCOPE_TRACE_LAUNCH", std::to_string(a.launch)},
      {"BANKSCOPE_TRACE_LAUNCHES", a.launches},
      {"BANKSCOPE_TRACE_BLOCKS", a.blocks},
      {"BANKSCOPE_TRACE_RECORDS", std::to_string(a.records)},
      {"BANKSCOPE_TRACE_CUBINS", fs::absolute(cubins).string()},
  };
  const auto t0 = std::chrono::steady_clock::now();
  const int code = run_program(a.command, env);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string note;
  const bool closed = close_trace(a.out, code, &note);
  const std::string sass_note = closed ? annotate_from_cubins(a.out, cubins) : "";
  fs::remove_all(cubins, ec);
  const std::vector<uint8_t> bytes = read_all(a.out);
  auto rep = report_trace(bytes.data(), bytes.size());
  std::printf("bankscope-gpu: trace: %s exited with %d; ran %.3f s under the tracer; trace %s (%zu bytes)\n",
              a.command[0].c_str(), code, secs, a.out.c_str(), bytes.size());
  if (!note.empty()) std::printf("  %s\n", note.c_str());
  if (!sass_note.empty()) std::printf("  %s\n", sass_note.c_str());
  if (!closed || !rep) {
    std::cerr << "bankscope-gpu: trace: " << a.out << ": " << (rep ? note : rep.error().message) << "\n";
    return kExitError;
  }
  for (const LaunchReport& l : rep->traced.launches) {
    std::printf("  launch %llu %s: %llu ld + %llu st warp instructions, %llu + %llu wavefronts predicted, %s%s\n",
                static_cast<unsigned long long>(l.launch.launch), l.launch.kernel.c_str(),
                static_cast<unsigned long long>(l.ld.instructions), static_cast<unsigned long long>(l.st.instructions),
                static_cast<unsigned long long>(l.ld.wavefronts), static_cast<unsigned long long>(l.st.wavefronts),
                trace_status_name(l.end.status),
                l.end.dropped ? (", " + std::to_string(l.end.dropped) + " dropped").c_str() : "");
  }
  std::printf("  next: bankscope-cli report %s\n", a.out.c_str());
  int rc = code == 0 ? kExitOk : kExitError;
  if (a.check) {
    const int c = check_against_ncu(a, a.out);
    if (rc == kExitOk) rc = c;
  }
  return rc;
}

}  // namespace bankscope
