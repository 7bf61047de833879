// sweep.cpp: see sweep.hpp.
#include "sweep.hpp"

#include <algorithm>

#include "predict_report.hpp"

namespace bankscope {

Result<Sweep> stride_sweep(const ScenarioSpec& spec, const SweepOptions& opt) {
  if (opt.last < opt.first || opt.first < 1) {
    return Error{"stride range " + std::to_string(opt.first) + ".." + std::to_string(opt.last) +
                 " is empty or starts below 1"};
  }
  auto base = compile(spec);
  if (!base) return base.error();
  const int nstmt = static_cast<int>(base->accesses.size());
  if (opt.access < 0 || opt.access >= nstmt) {
    return Error{"access " + std::to_string(opt.access) + " is outside 0.." +
                 std::to_string(nstmt - 1) + " (the scenario has " + std::to_string(nstmt) +
                 " statements)"};
  }
  const CompiledAccess& stmt = base->accesses[static_cast<size_t>(opt.access)];
  size_t ai = static_cast<size_t>(stmt.array);
  if (!opt.array.empty()) {
    std::string names;
    bool found = false;
    for (size_t i = 0; i < spec.arrays.size(); ++i) {
      names += (names.empty() ? "" : ", ") + spec.arrays[i].name;
      if (spec.arrays[i].name == opt.array) {
        ai = i;
        found = true;
      }
    }
    if (!found) return Error{"array: no array named '" + opt.array + "' (arrays: " + names + ")"};
  }
  const SharedArray& arr = base->arrays[ai];
  if (arr.shape.rank < 2) {  // N-D arrays sweep the stride of their flattened rows
    return Error{"array " + arr.name + " is one-dimensional: it has no row stride to sweep"};
  }
  constexpr int64_t kMaxPoints = 4096;  // a table and a chart, not a benchmark
  Sweep sw;
  sw.array = arr.name;
  sw.access = stmt.text;
  sw.element = element_name(arr.type);
  sw.cols = arr.shape.cols;
  sw.first = std::max(opt.first, sw.cols);
  if (opt.last < sw.first) {
    return Error{"stride range " + std::to_string(opt.first) + ".." + std::to_string(opt.last) +
                 " lies below " + arr.name + "'s row length " + std::to_string(sw.cols) +
                 " (a row stride must be >= cols)"};
  }
  if (opt.last - sw.first + 1 > kMaxPoints) {
    return Error{"stride range: " + std::to_string(opt.last - sw.first + 1) + " strides; at most " +
                 std::to_string(kMaxPoints) + " in one sweep"};
  }
  for (int64_t stride = sw.first; stride <= opt.last; ++stride) {
    ScenarioSpec s = spec;
    s.arrays[ai].row_stride = stride;
    SweepPoint p;
    p.stride = stride;
    auto sc = compile(s);
    if (!sc) {
      p.invalid = sc.error().message;
      sw.points.push_back(p);
      continue;
    }
    for (int w = 0; w < sc->warps_per_block() && p.invalid.empty(); ++w) {
      auto rows = warp_rows(*sc, w);
      if (!rows) {
        p = SweepPoint{};
        p.stride = stride;
        p.invalid = rows.error().message;
        break;
      }
      const AccessRow& r = (*rows)[static_cast<size_t>(opt.access)];
      if (r.instructions == 0) continue;
      p.wf_min = p.instructions == 0 ? r.wf_min : std::min(p.wf_min, r.wf_min);
      p.wf_max = std::max(p.wf_max, r.wf_max);
      p.n_way = std::max(p.n_way, r.n_way);
      p.instructions += uint64_t(r.instructions);
      p.wavefronts += uint64_t(r.wavefronts);
    }
    sw.points.push_back(p);
  }
  return sw;
}

}  // namespace bankscope
