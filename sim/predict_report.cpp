// predict_report.cpp: see predict_report.hpp.
#include "predict_report.hpp"

#include <algorithm>

#include "counter_names.hpp"

namespace bankscope {

using ojson = nlohmann::ordered_json;

Result<std::vector<AccessRow>> warp_rows(const Scenario& s, int warp) {
  auto instr = warp_instructions(s, Dim3{0, 0, 0}, warp);
  if (!instr) return instr.error();
  std::vector<AccessRow> rows(s.accesses.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i].stmt = static_cast<int>(i);
  for (const WarpInstruction& wi : *instr) {
    if (!wi.issued) continue;  // the warp branches around it; issued with no lane: 0 wavefronts
    const AccessCost c = cost(wi.access, s.spec.banks);
    AccessRow& r = rows[static_cast<size_t>(wi.stmt)];
    r.wf_min = r.instructions == 0 ? c.wavefronts : std::min(r.wf_min, c.wavefronts);
    r.wf_max = std::max(r.wf_max, c.wavefronts);
    r.cf_min = r.instructions == 0 ? c.bank_conflicts() : std::min(r.cf_min, c.bank_conflicts());
    r.cf_max = std::max(r.cf_max, c.bank_conflicts());
    r.n_way = std::max(r.n_way, c.n_way);
    r.conflicts += c.bank_conflicts();
    r.wavefronts += c.wavefronts;
    ++r.instructions;
  }
  return rows;
}

Result<std::vector<WorstWarpRow>> worst_warp_rows(const Scenario& s) {
  std::vector<WorstWarpRow> worst(s.accesses.size());
  for (int w = 0; w < s.warps_per_block(); ++w) {
    auto rows = warp_rows(s, w);
    if (!rows) return rows.error();
    for (size_t i = 0; i < worst.size(); ++i) {
      const AccessRow& r = (*rows)[i];
      if (r.instructions == 0) continue;
      WorstWarpRow& best = worst[i];
      if (best.warp < 0 || r.wf_max > best.row.wf_max ||
          (r.wf_max == best.row.wf_max && r.wavefronts > best.row.wavefronts)) {
        best.warp = w;
        best.row = r;
      }
    }
  }
  return worst;
}

const char* totals_key(Op op) {
  switch (op) {
    case Op::kLoad:
      return "ld";
    case Op::kStore:
      return "st";
    case Op::kLdmatrix:
      return "ldsm";
    case Op::kStmatrix:
      return "stsm";
    case Op::kAtomic:
      return "atom";
    case Op::kLdgsts:
      return "ldgsts";
  }
  return "?";
}

std::vector<Op> kinds_of(const Scenario& s, bool always_plain) {
  auto has = [&](Op op) {
    return std::any_of(s.accesses.begin(), s.accesses.end(),
                       [&](const CompiledAccess& a) { return a.op == op; });
  };
  std::vector<Op> out;
  for (Op op : kAllOps) {
    if (!is_plain(op) && has(op)) out.push_back(op);
  }
  if (always_plain || out.empty() || has(Op::kLoad) || has(Op::kStore))
    out.insert(out.begin(), {Op::kLoad, Op::kStore});
  return out;
}

bool conflicts_unknown(const OpTotals& t) {
  return t.saturated && (t.wavefronts == kCountMax || t.ideal == kCountMax);
}

ojson totals_json(const OpTotals& t, Op op) {
  ojson j;
  j["instructions"] = t.instructions;
  j["active_instructions"] = t.active_instructions;
  j["wavefronts"] = t.wavefronts;
  j["bank_conflicts"] = conflicts_unknown(t) ? ojson(nullptr) : ojson(t.wavefronts - t.ideal);
  j["saturated"] = t.saturated;  // true: a count reached 2^64 - 1 and the true one is larger
  j["counters"] = {{"instructions", counters::inst_executed(op)},
                   {"active_instructions", counters::sass_inst_executed(op)},
                   {"wavefronts", counters::wavefronts(op)},
                   {"bank_conflicts", counters::bank_conflicts(op)}};
  return j;
}

ojson predict_json(const Scenario& s, const std::string& file, int warp, const std::vector<AccessRow>& rows,
                   const LaunchTotals& lt, const std::vector<WorstWarpRow>* worst) {
  ojson j;
  j["scenario"] = s.spec.name;
  j["file"] = file;
  j["declaration"] = s.arrays[0].declaration();
  j["declarations"] = ojson::array();
  for (const SharedArray& a : s.arrays) j["declarations"].push_back(a.declaration());
  j["n"] = s.spec.n;
  if (s.spec.n_defaulted) j["n_default"] = true;  // the file gave no n: 2048 is the documented default
  j["block"] = {s.spec.block.x, s.spec.block.y, s.spec.block.z};
  j["grid"] = {s.grid.x, s.grid.y, s.grid.z};
  j["warp"] = warp;
  // Per warp instruction (this warp alone): the hardware l1tex__ counters.
  // ld and st always (older readers expect them), the issue-11 kinds where the scenario has them.
  const std::vector<Op> kinds = kinds_of(s, /*always_plain=*/true);
  j["per_instruction_counters"] = ojson::object();
  for (Op op : kinds) {
    j["per_instruction_counters"][totals_key(op)] = {
        {"wavefronts", counters::l1tex_wavefronts(op)},
        {"bank_conflicts", counters::l1tex_bank_conflicts(op)}};
  }
  j["accesses"] = ojson::array();
  for (const AccessRow& r : rows) {
    const CompiledAccess& a = s.accesses[static_cast<size_t>(r.stmt)];
    ojson ja;
    ja["op"] = op_name(a.op);
    ja["access"] = a.text;
    ja["label"] = a.label;
    ja["width"] = a.width;
    ja["issue"] = issue_mode_name(a.issue);
    ja["warp_instructions"] = r.instructions;
    ja["wavefronts_per_instruction"] =
        r.instructions ? (r.wf_min == r.wf_max ? ojson(r.wf_min) : ojson({r.wf_min, r.wf_max})) : ojson(nullptr);
    ja["n_way"] = r.n_way;
    ja["declaration"] = s.arrays[static_cast<size_t>(a.array)].declaration();
    if (worst != nullptr && static_cast<size_t>(r.stmt) < worst->size()) {
      const WorstWarpRow& ww = (*worst)[static_cast<size_t>(r.stmt)];
      ja["worst_warp"] = ww.warp < 0 ? ojson(nullptr)
                                     : ojson{{"warp", ww.warp},
                                             {"wavefronts_per_instruction", ww.row.wf_max},
                                             {"n_way", ww.row.n_way}};
    }
    ja["launch"] = totals_json(lt.per_access[static_cast<size_t>(r.stmt)], a.op);
    j["accesses"].push_back(ja);
  }
  j["totals"] = ojson::object();
  for (Op op : kinds) j["totals"][totals_key(op)] = totals_json(lt.of(op), op);
  j["blocks"] = lt.blocks;
  j["blocks_simulated"] = lt.blocks_simulated;
  // An incomplete run: "totals" are exact over blocks_counted blocks (a lower bound for the
  // launch); "estimate" scales them to the whole grid.
  j["complete"] = lt.complete;
  j["blocks_counted"] = lt.blocks_counted;
  if (!lt.complete) {
    j["stopped_because"] = lt.stopped_because;
    j["estimate"] = ojson::object();
    for (Op op : kinds) j["estimate"][totals_key(op)] = totals_json(lt.estimate_of(op), op);
  }
  return j;
}

}  // namespace bankscope
