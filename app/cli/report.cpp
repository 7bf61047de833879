// report.cpp: `bankscope-cli report TRACE [--json] [--top K] [--by line|pc] [--array A --layout L]`.
// Reads a trace (sim/trace.hpp), costs every warp execution with the bank model, and prints the
// instructions sorted by excess wavefronts, then per-launch totals under the ncu metric names;
// with a what-if layout, both side by side.
#include "report.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/counter_names.hpp"
#include "sim/json_io.hpp"  // save_text_file_atomic
#include "sim/trace_report.hpp"

namespace bankscope::cli {

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

nlohmann::json row_json(const ReportRow& r) {
  nlohmann::json j = {{"kernel", r.kernel},           {"where", r.where},           {"opcode", r.opcode},
          {"kind", trace_op_kind_name(r.kind)}, {"modelled", r.modelled}, {"executions", r.executions},
          {"wavefronts", r.wavefronts},   {"ideal", r.ideal},           {"bank_conflicts", r.excess()},
          {"worst_n_way", r.worst_n_way}, {"typical_n_way", r.typical_n_way}, {"why_not_modelled", r.why}};
  if (!r.note.empty()) j["note"] = r.note;  // only where there is one: other rows are as before
  return j;
}

// LDS/STS always; the other kinds when some of their executions were costed.
std::vector<TraceOpKind> kinds_shown(const LaunchReport& l) {
  std::vector<TraceOpKind> out{TraceOpKind::kLoad, TraceOpKind::kStore};
  for (TraceOpKind k : {TraceOpKind::kLdsm, TraceOpKind::kStsm, TraceOpKind::kAtomic, TraceOpKind::kLdgsts}) {
    if (l.by_kind[static_cast<size_t>(k)].instructions != 0) out.push_back(k);
  }
  return out;
}

nlohmann::json totals_json(const LaunchReport& l) {
  nlohmann::json j;
  for (TraceOpKind k : kinds_shown(l)) {
    const Op op = op_of(k);
    const OpTotals& t = l.by_kind[static_cast<size_t>(k)];
    j[counters::sass_inst_executed(op)] = t.instructions;
    j[counters::wavefronts(op)] = t.wavefronts;
    j[counters::bank_conflicts(op)] = t.bank_conflicts();
  }
  return j;
}

nlohmann::json launch_json(const LaunchReport& l, const LaunchReport* w) {
  nlohmann::json j = {{"launch", l.launch.launch},
                      {"kernel", l.launch.kernel},
                      {"grid", l.launch.grid},
                      {"block", l.launch.block},
                      {"blocks_traced", l.launch.blocks_traced == 0 ? std::string("all")
                                                                    : std::to_string(l.launch.blocks_traced)},
                      {"status", l.ended ? trace_status_name(l.end.status) : "no end record"},
                      {"dropped", l.end.dropped},
                      {"predicted", totals_json(l)}};
  nlohmann::json nm = nlohmann::json::object();
  for (int k = 0; k < kTraceOpKinds; ++k) {
    if (l.uncosted_by_kind[k] != 0) nm[trace_op_kind_name(static_cast<TraceOpKind>(k))] = l.uncosted_by_kind[k];
  }
  j["not_modelled_executions"] = nm;
  if (w != nullptr) j["what_if"] = totals_json(*w);
  // Executions the what-if layout leaves without an instruction (a vector lane moved off its
  // alignment): named only when there are some, so other outputs are unchanged.
  nlohmann::json wnm = nlohmann::json::object();
  for (int k = 0; w != nullptr && k < kTraceOpKinds; ++k) {
    const uint64_t extra = w->uncosted_by_kind[k] > l.uncosted_by_kind[k] ? w->uncosted_by_kind[k] - l.uncosted_by_kind[k] : 0;
    if (extra != 0) wnm[trace_op_kind_name(static_cast<TraceOpKind>(k))] = extra;
  }
  if (!wnm.empty()) j["what_if_misaligned_executions"] = wnm;
  return j;
}

void print_rows(const std::vector<ReportRow>& rows, const std::vector<ReportRow>* what_if, int top) {
  std::printf("%-28s %-20s %-18s %10s %12s %12s %12s %5s %5s", "kernel", "where", "opcode", "executions",
              "wavefronts", "ideal", "conflicts", "worst", "typ");
  if (what_if) std::printf(" %14s %14s", "what-if wavef.", "what-if confl.");
  std::printf("\n");
  int shown = 0;
  for (const ReportRow& r : rows) {
    if (top > 0 && shown++ >= top) break;
    std::string k = r.kernel.size() > 28 ? r.kernel.substr(0, 25) + "..." : r.kernel;
    if (!r.modelled) {
      std::printf("%-28s %-20s %-18s %10llu %12s (%s: not modelled: %s)\n", k.c_str(), r.where.c_str(),
                  r.opcode.c_str(), static_cast<unsigned long long>(r.executions), "-", trace_op_kind_name(r.kind),
                  r.why.c_str());
      continue;
    }
    std::printf("%-28s %-20s %-18s %10llu %12llu %12llu %12llu %5d %5d", k.c_str(), r.where.c_str(), r.opcode.c_str(),
                static_cast<unsigned long long>(r.executions), static_cast<unsigned long long>(r.wavefronts),
                static_cast<unsigned long long>(r.ideal), static_cast<unsigned long long>(r.excess()), r.worst_n_way,
                r.typical_n_way);
    if (what_if) {
      for (const ReportRow& w : *what_if) {
        if (w.kernel == r.kernel && w.where == r.where) {
          std::printf(" %14llu %14llu", static_cast<unsigned long long>(w.wavefronts),
                      static_cast<unsigned long long>(w.excess()));
          break;
        }
      }
    }
    if (!r.note.empty()) std::printf("  (%s)", r.note.c_str());
    std::printf("\n");
  }
  if (top > 0 && static_cast<int>(rows.size()) > top) std::printf("(%zu more rows: --top 0 shows all)\n", rows.size() - top);
}

void print_launch(const LaunchReport& l, const LaunchReport* w) {
  std::printf("\nlaunch %llu  %s  grid %u,%u,%u  block %u,%u,%u  blocks traced: %s  %s\n",
              static_cast<unsigned long long>(l.launch.launch), l.launch.kernel.c_str(), l.launch.grid[0],
              l.launch.grid[1], l.launch.grid[2], l.launch.block[0], l.launch.block[1], l.launch.block[2],
              l.launch.blocks_traced == 0 ? "all" : std::to_string(l.launch.blocks_traced).c_str(),
              l.ended ? trace_status_name(l.end.status) : "no end record");
  if (l.ended && l.end.dropped != 0) {
    std::printf("  WARNING: %llu warp executions dropped (trace buffer full): the counts below are lower bounds\n",
                static_cast<unsigned long long>(l.end.dropped));
  }
  for (TraceOpKind k : kinds_shown(l)) {
    const Op op = op_of(k);
    const OpTotals& t = l.by_kind[static_cast<size_t>(k)];
    const OpTotals* wt = w ? &w->by_kind[static_cast<size_t>(k)] : nullptr;
    auto line = [&](const char* name, uint64_t v, uint64_t wv) {
      if (wt) {
        std::printf("  %-70s %14llu   what-if %14llu\n", name, static_cast<unsigned long long>(v),
                    static_cast<unsigned long long>(wv));
      } else {
        std::printf("  %-70s %14llu\n", name, static_cast<unsigned long long>(v));
      }
    };
    line(counters::sass_inst_executed(op), t.instructions, wt ? wt->instructions : 0);
    line(counters::wavefronts(op), t.wavefronts, wt ? wt->wavefronts : 0);
    line(counters::bank_conflicts(op), t.bank_conflicts(), wt ? wt->bank_conflicts() : 0);
  }
  for (int k = 0; k < kTraceOpKinds; ++k) {
    if (l.uncosted_by_kind[k] != 0) {
      std::printf("  %s: %llu warp executions, not modelled (not in the totals above)\n",
                  trace_op_kind_name(static_cast<TraceOpKind>(k)),
                  static_cast<unsigned long long>(l.uncosted_by_kind[k]));
    }
  }
  for (int k = 0; w != nullptr && k < kTraceOpKinds; ++k) {
    if (w->uncosted_by_kind[k] > l.uncosted_by_kind[k]) {
      const uint64_t extra = w->uncosted_by_kind[k] - l.uncosted_by_kind[k];
      std::printf("  what-if: %s: %llu warp executions whose lanes the layout misaligns: no such instruction, "
                  "not in the what-if totals\n",
                  trace_op_kind_name(static_cast<TraceOpKind>(k)), static_cast<unsigned long long>(extra));
    }
  }
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportArgs& a) {
  auto* r = app.add_subcommand("report", "a trace's shared-memory instructions (bankscope-gpu trace), costliest first");
  r->add_option("trace", a.trace, "trace file")->required()->check(CLI::ExistingFile);
  r->add_flag("--json", a.json, "print JSON");
  r->add_option("--top", a.top, "rows shown (0 = all)")->check(CLI::NonNegativeNumber);
  r->add_option("--by", a.by, "one row per SASS instruction (pc) or per source line (line)")
      ->check(CLI::IsMember({"pc", "line"}));
  r->add_option("--array", a.arrays, "a shared array of the kernel: NAME@BYTE_OFFSET:TYPE[ROWS][COLS]");
  r->add_option("--layout", a.layouts, "what-if layout: NAME:stride=S, NAME:xor=M, NAME:swizzle=B,M,S or NAME:tma_swizzle=32B|64B|128B");
  r->add_flag("--ldgsts-r9", a.ldgsts_r9,
              "accepted for old scripts: cp.async .cg (LDGSTS.E.BYPASS) is costed by default since rule H10 "
              "(an @P0-guarded one counts 0, as ncu counts it)");
  return r;
}

int run_report(const ReportArgs& a) {
  std::vector<ArrayRemap> remaps;
  for (const std::string& l : a.layouts) {
    const std::string name = l.substr(0, l.find(':'));
    const SharedArray* found = nullptr;
    std::vector<SharedArray> arrays;
    for (const std::string& s : a.arrays) {
      auto arr = parse_array_spec(s);
      if (!arr) {
        std::cerr << "bankscope-cli: report: " << arr.error().message << "\n";
        return kExitBadInput;
      }
      arrays.push_back(*arr);
    }
    for (const SharedArray& arr : arrays)
      if (arr.name == name) found = &arr;
    if (found == nullptr) {
      std::cerr << "bankscope-cli: report: --layout '" << l << "': no --array named '" << name << "'\n";
      return kExitUsage;
    }
    auto replaced = apply_layout_spec(*found, l);
    if (!replaced) {
      std::cerr << "bankscope-cli: report: " << replaced.error().message << "\n";
      return kExitBadInput;
    }
    remaps.push_back(ArrayRemap{*found, *replaced});
  }
  if (!a.arrays.empty() && remaps.empty()) {
    std::cerr << "bankscope-cli: report: --array needs a --layout to try\n";
    return kExitUsage;
  }

  const auto bytes = read_trace_file_buffer(a.trace);
  if (!bytes) {
    std::cerr << "bankscope-cli: report: " << a.trace << ": " << bytes.error().message << "\n";
    return kExitBadInput;
  }
  auto r = report_trace(bytes->data(), bytes->size, remaps);
  if (!r) {
    std::cerr << "bankscope-cli: report: " << a.trace << ": " << r.error().message << "\n";
    return kExitBadInput;
  }
  const bool by_line = a.by == "line";
  const auto rows = report_rows(r->traced, by_line);
  const auto what_rows = remaps.empty() ? std::vector<ReportRow>{} : report_rows(r->what_if, by_line);
  const TraceReport& t = r->traced;
  if (a.json) {
    nlohmann::json j;
    j["trace"] = a.trace;
    j["executions"] = t.summary.executions;
    j["dropped"] = t.summary.dropped;
    j["program_exit_code"] = t.end.exit_code;
    j["rows"] = nlohmann::json::array();
    int shown = 0;
    for (const ReportRow& row : rows) {
      if (a.top > 0 && shown++ >= a.top) break;
      j["rows"].push_back(row_json(row));
    }
    if (!remaps.empty()) {
      j["what_if_rows"] = nlohmann::json::array();
      for (const ReportRow& row : what_rows) j["what_if_rows"].push_back(row_json(row));
      j["what_if_layouts"] = a.layouts;
    }
    j["launches"] = nlohmann::json::array();
    for (size_t i = 0; i < t.launches.size(); ++i) {
      j["launches"].push_back(launch_json(t.launches[i], remaps.empty() ? nullptr : &r->what_if.launches[i]));
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s: %zu launches, %llu warp executions, %llu dropped, program exit code %lld\n", a.trace.c_str(),
              t.launches.size(), static_cast<unsigned long long>(t.summary.executions),
              static_cast<unsigned long long>(t.summary.dropped), static_cast<long long>(t.end.exit_code));
  if (!remaps.empty()) {
    std::printf("what-if:");
    for (const std::string& l : a.layouts) std::printf(" %s", l.c_str());
    std::printf(" (traced beside what-if)\n");
  }
  std::printf("\n");
  print_rows(rows, remaps.empty() ? nullptr : &what_rows, a.top);
  for (size_t i = 0; i < t.launches.size(); ++i) {
    print_launch(t.launches[i], remaps.empty() ? nullptr : &r->what_if.launches[i]);
  }
  return 0;
}

CLI::App* add_upgrade_command(CLI::App& app, UpgradeArgs& a) {
  auto* u = app.add_subcommand("upgrade", "write a trace again in the current format version (smaller, faster to report)");
  u->add_option("trace", a.trace, "trace file")->required()->check(CLI::ExistingFile);
  u->add_option("out", a.out, "where to write it (may be the trace itself: written whole or not at all)")->required();
  return u;
}

int run_upgrade(const UpgradeArgs& a) {
  const auto bytes = read_trace_file_buffer(a.trace);
  if (!bytes) {
    std::cerr << "bankscope-cli: upgrade: " << a.trace << ": " << bytes.error().message << "\n";
    return kExitBadInput;
  }
  const uint32_t from = bytes->size >= 12 ? uint32_t{bytes->data()[8]} | uint32_t{bytes->data()[9]} << 8 |
                                                uint32_t{bytes->data()[10]} << 16 | uint32_t{bytes->data()[11]} << 24
                                          : 0;
  auto out = rewrite_trace(bytes->data(), bytes->size);
  if (!out) {
    std::cerr << "bankscope-cli: upgrade: " << a.trace << ": " << out.error().message << "\n";
    return kExitBadInput;
  }
  auto saved = save_text_file_atomic(a.out, std::string(out->begin(), out->end()));
  if (!saved) {
    std::cerr << "bankscope-cli: upgrade: " << saved.error().message << "\n";
    return kExitBadInput;
  }
  std::cout << a.trace << " (version " << from << ", " << bytes->size << " bytes) -> " << a.out << " (version "
            << kTraceVersion << ", " << out->size() << " bytes)\n";
  return 0;
}

}  // namespace bankscope::cli
