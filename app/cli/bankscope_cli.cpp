// bankscope_cli.cpp: the headless front end over sim/, for scripts, CI and SSH sessions.
//
//   bankscope-cli predict SCENARIO [--n N] [--stride S] [--warp W] [--json]
//   bankscope-cli predict --jsonl FILE|-
//   bankscope-cli explain SCENARIO [--warp W] [--block X,Y,Z] [--access K] [--stride S]
//   bankscope-cli compare [SCENARIO_A SCENARIO_B] [--n N]
//
// Exit codes: 0 success, 1 bad input (one line on stderr naming what and where), 2 usage.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "report.hpp"
#include "sim/bank_model.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/scenario.hpp"

namespace bs = bankscope;

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

// Scenario source plus the overrides every subcommand accepts.
struct ScenarioArgs {
  std::string path;  // "" = built-in seed pair member
  int64_t n = 0;
  int64_t stride = 0;
  std::string type;
};

int fail(const std::string& message) {
  std::cerr << "bankscope-cli: " << message << "\n";
  return kExitBadInput;
}

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
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
  if (a.n != 0) spec.n = a.n;
  if (a.stride != 0) {
    spec.arrays[0].row_stride = a.stride;
    if (spec.name.find('[') != std::string::npos) spec.name += " (stride " + std::to_string(a.stride) + ")";
  }
  if (!a.type.empty()) spec.arrays[0].type = a.type;
  auto s = bs::compile(spec);
  if (!s) {
    return bs::with_context(a.path.empty() ? "built-in scenario" : a.path, s.error());
  }
  return s;
}

void add_scenario_options(CLI::App* cmd, ScenarioArgs& a) {
  cmd->add_option("--n", a.n, "matrix size N (overrides the scenario's n)")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  cmd->add_option("--stride", a.stride, "physical row stride of the first array, in elements")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--type", a.type, "element type of the first array (char, half, float, double, float2, float4)");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] predict
// ---------------------------------------------------------------------------------------------

struct AccessRow {
  int stmt;
  int instructions = 0;      // for the chosen warp
  int wf_min = 0, wf_max = 0;
  int n_way = 0;
  int conflicts = 0;         // summed over the warp's instructions of this statement
  int wavefronts = 0;
};

bs::Result<std::vector<AccessRow>> warp_rows(const bs::Scenario& s, int warp) {
  auto instr = bs::warp_instructions(s, bs::Dim3{0, 0, 0}, warp);
  if (!instr) return instr.error();
  std::vector<AccessRow> rows(s.accesses.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i].stmt = static_cast<int>(i);
  for (const bs::WarpInstruction& wi : *instr) {
    if (!wi.issued) continue;  // the warp branches around it; issued with no lane: 0 wavefronts
    const bs::AccessCost c = bs::cost(wi.access, s.spec.banks);
    AccessRow& r = rows[static_cast<size_t>(wi.stmt)];
    r.wf_min = r.instructions == 0 ? c.wavefronts : std::min(r.wf_min, c.wavefronts);
    r.wf_max = std::max(r.wf_max, c.wavefronts);
    r.n_way = std::max(r.n_way, c.n_way);
    r.conflicts += c.bank_conflicts();
    r.wavefronts += c.wavefronts;
    ++r.instructions;
  }
  return rows;
}

nlohmann::ordered_json totals_json(const bs::OpTotals& t) {
  return {{"instructions", t.instructions}, {"wavefronts", t.wavefronts}, {"bank_conflicts", t.bank_conflicts()}};
}

int predict_scenario(const ScenarioArgs& args, int warp, bool as_json) {
  auto s = load(args);
  if (!s) return fail(s.error().message);
  auto rows = warp_rows(*s, warp);
  if (!rows) return fail(rows.error().message);
  auto lt = bs::launch_totals(*s);
  if (!lt) return fail(lt.error().message);

  if (as_json) {
    nlohmann::ordered_json j;
    j["scenario"] = s->spec.name;
    j["file"] = args.path;
    j["declaration"] = s->arrays[0].declaration();
    j["n"] = s->spec.n;
    j["block"] = {s->spec.block.x, s->spec.block.y, s->spec.block.z};
    j["grid"] = {s->grid.x, s->grid.y, s->grid.z};
    j["warp"] = warp;
    j["accesses"] = nlohmann::ordered_json::array();
    for (const AccessRow& r : *rows) {
      const bs::CompiledAccess& a = s->accesses[static_cast<size_t>(r.stmt)];
      nlohmann::ordered_json ja;
      ja["op"] = bs::op_name(a.op);
      ja["access"] = a.text;
      ja["label"] = a.label;
      ja["width"] = a.width;
      ja["warp_instructions"] = r.instructions;
      ja["wavefronts_per_instruction"] = r.instructions ? (r.wf_min == r.wf_max ? nlohmann::ordered_json(r.wf_min) : nlohmann::ordered_json({r.wf_min, r.wf_max})) : nlohmann::ordered_json(nullptr);
      ja["n_way"] = r.n_way;
      ja["launch"] = totals_json(lt->per_access[static_cast<size_t>(r.stmt)]);
      j["accesses"].push_back(ja);
    }
    j["totals"] = {{"ld", totals_json(lt->ld)}, {"st", totals_json(lt->st)}};
    j["blocks"] = lt->blocks;
    j["blocks_simulated"] = lt->blocks_simulated;
    std::cout << j.dump(2) << "\n";
    return 0;
  }

  const bs::Scenario& sc = *s;
  std::cout << "scenario  " << sc.spec.name << (args.path.empty() ? "" : "  (" + args.path + ")") << "\n";
  for (const bs::SharedArray& a : sc.arrays) {
    std::cout << "array     " << a.declaration() << "   logical [" << a.shape.rows << "][" << a.shape.cols
              << "], " << a.bytes() << " bytes\n";
  }
  std::cout << "launch    block " << sc.spec.block.x << "x" << sc.spec.block.y << "x" << sc.spec.block.z
            << ", grid " << sc.grid.x << "x" << sc.grid.y << "x" << sc.grid.z << " (n=" << sc.spec.n << "), "
            << with_commas(lt->blocks) << " blocks, " << sc.warps_per_block() << " warps each\n\n";
  std::cout << "per warp instruction (warp " << warp << " of block 0)                    | per launch\n";
  std::cout << std::left << std::setw(3) << "#" << std::setw(4) << "op" << std::setw(40) << "access"
            << std::right << std::setw(6) << "instr" << std::setw(6) << "wf" << std::setw(7) << "n-way"
            << std::setw(5) << "cf" << " |" << std::setw(14) << "instructions" << std::setw(14)
            << "wavefronts" << std::setw(15) << "bank_conflicts" << "\n";
  for (const AccessRow& r : *rows) {
    const bs::CompiledAccess& a = sc.accesses[static_cast<size_t>(r.stmt)];
    std::string target = a.text.substr(3);
    if (target.size() > 38) target = target.substr(0, 35) + "...";
    std::string wf = r.instructions == 0 ? "-" : std::to_string(r.wf_min);
    if (r.wf_max != r.wf_min) wf += ".." + std::to_string(r.wf_max);
    const bs::OpTotals& t = lt->per_access[static_cast<size_t>(r.stmt)];
    std::cout << std::left << std::setw(3) << r.stmt << std::setw(4) << bs::op_name(a.op) << std::setw(40)
              << target << std::right << std::setw(6) << r.instructions << std::setw(6) << wf
              << std::setw(6) << r.n_way << "w" << std::setw(5) << r.conflicts << " |" << std::setw(14)
              << with_commas(t.instructions) << std::setw(14) << with_commas(t.wavefronts) << std::setw(15)
              << with_commas(t.bank_conflicts()) << "\n";
  }
  std::cout << "\nper launch, as Nsight Compute counts it:\n";
  for (int k = 0; k < 2; ++k) {
    const bs::OpTotals& t = k == 0 ? lt->ld : lt->st;
    const char* op = k == 0 ? "ld" : "st";
    std::cout << "  smsp__inst_executed_op_shared_" << op << ".sum" << std::string(k == 0 ? 25 : 25, ' ')
              << std::setw(14) << with_commas(t.instructions) << "\n";
    std::cout << "  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" << op << ".sum         " << std::setw(14)
              << with_commas(t.wavefronts) << "\n";
    std::cout << "  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" << op << ".sum     " << std::setw(14)
              << with_commas(t.bank_conflicts()) << "\n";
  }
  std::cout << "worst access: " << lt->max_n_way << "-way"
            << (lt->max_n_way > 1 ? " bank conflict" : " (conflict-free)") << "\n";
  return 0;
}

int predict_jsonl(const std::string& path) {
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
  while (std::getline(*in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
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
    std::cout << bs::predict_pattern(*p).dump() << "\n";
  }
  if (failed > 0) {
    std::cerr << "bankscope-cli: " << src << ": " << failed << " of " << lineno << " lines failed\n";
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
  std::cout << "  " << s->arrays[0].declaration() << ", warp " << warp << " of block (" << block[0] << ","
            << block[1] << "," << block[2] << "), " << wi.access.width << "-byte "
            << (wi.access.op == bs::Op::kLoad ? "loads" : "stores") << ", "
            << __builtin_popcount(wi.access.mask) << " active lanes\n\n";
  if (!wi.issued) {
    std::cout << "  no lane is active: the warp branches around it (not issued, 0 wavefronts)\n";
    return 0;
  }
  if (wi.access.mask == 0) {
    std::cout << "  issued with no active lane (predicated): counted as an instruction, 0 wavefronts\n";
    return 0;
  }
  std::cout << "lanes -> banks\n";
  for (int lane = 0; lane < bs::kWarpSize; ++lane) {
    const bs::LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
    std::cout << "  lane " << std::setw(2) << lane;
    if (!d.active) {
      std::cout << "  inactive\n";
      continue;
    }
    std::cout << "  byte " << std::setw(6) << d.addr << "  bank";
    for (int k = 0; k < d.words; ++k) std::cout << (k ? "," : " ") << std::setw(2) << d.bank[static_cast<size_t>(k)];
    std::cout << "  word";
    for (int k = 0; k < d.words; ++k) std::cout << (k ? "," : " ") << std::setw(5) << d.word[static_cast<size_t>(k)];
    std::cout << "  -> wavefront " << d.wavefront << "\n";
  }
  std::cout << "\nwavefronts (one per cycle): each cell is the lowest lane a bank serves; '+' = more lanes get\n"
               "the same word (broadcast); '.' = bank idle\n";
  std::cout << "        bank";
  for (int b = 0; b < nb; ++b) std::cout << std::setw(4) << b;
  std::cout << "\n";
  for (size_t w = 0; w < rep.wavefronts.size(); ++w) {
    const bs::WavefrontDetail& wf = rep.wavefronts[w];
    std::cout << "  wf " << std::setw(3) << w << " p" << wf.phase << " ";
    for (int b = 0; b < nb; ++b) {
      int first = -1, count = 0;
      for (const auto& [bank, word] : wf.words) {
        if (bank != b) continue;
        for (int lane = 0; lane < bs::kWarpSize; ++lane) {
          const bs::LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
          if (!d.active || d.phase != wf.phase) continue;
          for (int k = 0; k < d.words; ++k) {
            if (d.word[static_cast<size_t>(k)] == word) {
              if (first < 0) first = lane;
              ++count;
            }
          }
        }
      }
      std::string cell = first < 0 ? "." : std::to_string(first) + (count > 1 ? "+" : "");
      std::cout << std::setw(4) << cell;
    }
    std::cout << "\n";
  }
  const bs::AccessCost& c = rep.cost;
  std::cout << "\n" << c.wavefronts << " wavefront(s), ideal " << c.ideal_wavefronts << ", bank conflicts "
            << c.bank_conflicts() << " (ncu definition), " << c.n_way << "-way, efficiency "
            << std::fixed << std::setprecision(1) << 100.0 * rep.efficiency() << "%\n";
  return 0;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] compare
// ---------------------------------------------------------------------------------------------

int compare(const ScenarioArgs& a_args, const ScenarioArgs& b_args) {
  auto a = load(a_args, 32);
  if (!a) return fail(a.error().message);
  auto b = load(b_args, 33);
  if (!b) return fail(b.error().message);
  auto ta = bs::launch_totals(*a);
  if (!ta) return fail(ta.error().message);
  auto tb = bs::launch_totals(*b);
  if (!tb) return fail(tb.error().message);
  auto wa = warp_rows(*a, 0);
  if (!wa) return fail(wa.error().message);
  auto wb = warp_rows(*b, 0);
  if (!wb) return fail(wb.error().message);
  std::cout << "A: " << a->spec.name << "\n   " << a->arrays[0].declaration() << "\n";
  std::cout << "B: " << b->spec.name << "\n   " << b->arrays[0].declaration() << "\n\n";
  std::cout << std::left << std::setw(46) << "warp 0, per instruction" << std::right << std::setw(12) << "A"
            << std::setw(12) << "B" << "\n";
  const size_t rows = std::max(wa->size(), wb->size());
  for (size_t i = 0; i < rows; ++i) {
    auto cell = [](const std::vector<AccessRow>& r, const bs::Scenario& s, size_t k) -> std::string {
      if (k >= r.size() || r[k].instructions == 0) return "-";
      const std::string wf = std::to_string(r[k].wf_max) + " wf";
      (void)s;
      return wf + " " + std::to_string(r[k].n_way) + "w";
    };
    const bs::Scenario& ref = i < wa->size() ? *a : *b;
    std::string label = ref.accesses[i].label;
    if (label.size() > 44) label = label.substr(0, 41) + "...";
    std::cout << "  " << std::left << std::setw(44) << label << std::right << std::setw(12)
              << cell(*wa, *a, i) << std::setw(12) << cell(*wb, *b, i) << "\n";
  }
  std::cout << "\nper launch (n=" << a->spec.n << " / " << b->spec.n << ")\n";
  auto row = [](const std::string& name, uint64_t x, uint64_t y) {
    std::cout << "  " << std::left << std::setw(44) << name << std::right << std::setw(12) << with_commas(x)
              << std::setw(12) << with_commas(y) << "\n";
  };
  row("shared ld instructions", ta->ld.instructions, tb->ld.instructions);
  row("shared ld wavefronts", ta->ld.wavefronts, tb->ld.wavefronts);
  row("shared ld bank conflicts", ta->ld.bank_conflicts(), tb->ld.bank_conflicts());
  row("shared st instructions", ta->st.instructions, tb->st.instructions);
  row("shared st wavefronts", ta->st.wavefronts, tb->st.wavefronts);
  row("shared st bank conflicts", ta->st.bank_conflicts(), tb->st.bank_conflicts());
  const double wa_total = double(ta->ld.wavefronts + ta->st.wavefronts);
  const double wb_total = double(tb->ld.wavefronts + tb->st.wavefronts);
  std::cout << "\nB issues " << std::fixed << std::setprecision(2) << (wb_total > 0 ? wa_total / wb_total : 0.0)
            << "x fewer shared-memory wavefronts than A (worst access " << ta->max_n_way << "-way vs "
            << tb->max_n_way << "-way)\n";
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
  predict->add_option("--warp", warp, "warp of block 0 shown per instruction")->check(CLI::NonNegativeNumber);
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
  auto* cmp = app.add_subcommand("compare", "two scenarios side by side (default: the seed's tile[32][32] vs tile[32][33])");
  cmp->add_option("a", ca.path, "first scenario")->check(CLI::ExistingFile);
  cmp->add_option("b", cb.path, "second scenario")->check(CLI::ExistingFile);
  cmp->add_option("--n", cn, "matrix size N for both")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));

  bs::cli::ReportArgs rargs;
  auto* rep = bs::cli::add_report_command(app, rargs);

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
      return predict_jsonl(jsonl);
    }
    if (pargs.path.empty()) {
      std::cerr << "bankscope-cli: predict: needs a SCENARIO file or --jsonl FILE|- (see --help)\n";
      return kExitUsage;
    }
    return predict_scenario(pargs, warp, as_json);
  }
  if (ex->parsed()) return explain(eargs, ewarp, eblock, eaccess);
  if (rep->parsed()) return bs::cli::run_report(rargs);
  if (cmp->parsed()) {
    ca.n = cb.n = cn;
    return compare(ca, cb);
  }
  return kExitUsage;
}
