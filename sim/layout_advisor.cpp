// layout_advisor.cpp: see layout_advisor.hpp.
//
// The search range comes from the bank geometry (documented by NVIDIA: 32 banks of 4 bytes, the
// bank of a word is word % 32). A row stride changes which bank each row starts on only modulo one
// turn of the banks (banks * bank_bytes = 128 bytes), so padding beyond one turn repeats a smaller
// pad's bank pattern at a higher cost: pads 0 .. 128 / element size cover every distinct pattern.
// XOR masks are runs of ones (2^k - 1) << s inside the column bits: the hand-written col ^ row and
// its variants that keep a 2^s-element unit contiguous (what a 2^s-wide vector access needs).
// Swizzle<B,M,S>: B up to log2(banks), M up to 4 (a 16-element unit), every S >= B whose bits fall
// inside the array. TMA swizzle modes (32B, 64B, 128B) where the copy engine could write the array
// (rows at most the span and a multiple of 16 bytes, base on the repeat); they come before the
// generic swizzles, so a placement both give is named as the TMA mode (with its Swizzle). An array
// the scenario says TMA writes (tma_swizzle) can only get another TMA mode or none: the copy engine
// writes nothing else. Two layouts that put every element at the same offset are evaluated once.
#include "layout_advisor.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace bankscope {

namespace {

int bits_for(int64_t n) {  // smallest b with 2^b >= n
  int b = 0;
  while ((int64_t{1} << b) < n) ++b;
  return b;
}

// Where layout `l` puts every element of `a`, row by row, after its row stride: two layouts with
// the same list (e.g. xor 63 on a 32-row tile and xor 31) are the same candidate.
void layout_offsets(const SharedArray& a, const PhysicalLayout& l, std::vector<int64_t>* out) {
  out->clear();
  out->reserve(size_t(a.shape.rows) * size_t(a.shape.cols) + 1);
  out->push_back(l.row_stride);
  for (int r = 0; r < a.shape.rows; ++r) {
    for (int c = 0; c < a.shape.cols; ++c) out->push_back(l.offset(r, c));
  }
}

// A hash of the list, word by word; equal hashes are compared in full (no candidate is lost to a
// collision).
uint64_t hash_offsets(const std::vector<int64_t>& offsets) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int64_t v : offsets) {
    h = (h ^ uint64_t(v)) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  return h;
}

// A fixed reason per kind of failure, so that the counts group (the messages carry numbers).
std::string compile_reason(const std::string& m) {
  if (m.find("outside the array") != std::string::npos)
    return "xor/swizzle moves an element outside the array";
  if (m.find("two elements map") != std::string::npos)
    return "xor/swizzle is not a permutation of the shape";
  if (m.find("bytes of shared memory") != std::string::npos)
    return "over the 227 KiB a block may use";
  return "layout rejected: " + m;
}
std::string totals_reason(const std::string& m) {
  if (m.find("aligned") != std::string::npos) return "a wide access becomes misaligned";
  if (m.find("is outside [0,") != std::string::npos) return "an index is out of bounds";
  return "the kernel cannot run: " + m;
}

void count_skip(AdvisorResult& r, const std::string& reason) {
  for (auto& [text, n] : r.skipped) {
    if (text == reason) {
      ++n;
      return;
    }
  }
  r.skipped.emplace_back(reason, 1);
}

int parts_of(const PhysicalLayout& l, int cols) {
  if (l.tma_span != 0) return 1;  // the swizzle it carries is the mode itself
  return (l.row_stride != cols ? 1 : 0) + (l.xor_mask != 0 ? 1 : 0) +
         (l.swizzle.is_identity() ? 0 : 1);
}

}  // namespace

Result<int> costliest_array(const Scenario& s, const TotalsOptions& opt) {
  if (s.arrays.size() == 1) return 0;
  auto lt = launch_totals(s, opt);
  if (!lt) return lt.error();
  if (!lt->complete) return Error{"per-launch totals stopped (" + lt->stopped_because + ")"};
  std::vector<uint64_t> per_array(s.arrays.size(), 0);
  bool sat = false;
  for (size_t i = 0; i < s.accesses.size(); ++i) {
    uint64_t& v = per_array[static_cast<size_t>(s.accesses[i].array)];
    v = sat_add(v, lt->per_access[i].wavefronts, &sat);
  }
  return static_cast<int>(std::max_element(per_array.begin(), per_array.end()) - per_array.begin());
}

ScenarioSpec with_layout(const ScenarioSpec& spec, int array, const PhysicalLayout& layout) {
  ScenarioSpec out = spec;
  ArraySpec& a = out.arrays.at(static_cast<size_t>(array));
  a.row_stride = layout.row_stride;
  a.xor_mask = layout.xor_mask;
  a.swizzle_bits = layout.swizzle.bits;
  a.swizzle_base = layout.swizzle.base;
  a.swizzle_shift = layout.swizzle.shift;
  a.tma_swizzle = layout.tma_span;
  if (layout.tma_span != 0) {  // the mode is the whole layout (the file says tma_swizzle only)
    a.row_stride = 0;
    a.xor_mask = 0;
    a.swizzle_bits = a.swizzle_base = a.swizzle_shift = 0;
  }
  return out;
}

std::string layout_text(const PhysicalLayout& l, int cols) {
  std::string t;
  auto add = [&](const std::string& part) { t += (t.empty() ? "" : " + ") + part; };
  if (l.tma_span != 0) {
    t = "tma_swizzle " + tma_swizzle_name(l.tma_span);
    if (!l.swizzle.is_identity()) {
      t += " (= Swizzle<" + std::to_string(l.swizzle.bits) + "," + std::to_string(l.swizzle.base) + "," +
           std::to_string(l.swizzle.shift) + ">";
      // Rows narrower than the span: the copy engine pads them to it (measured).
      if (l.row_stride != cols && l.row_stride != 0) t += ", stride " + std::to_string(l.row_stride);
      t += ")";
    }
    return t;
  }
  if (l.row_stride != cols && l.row_stride != 0) add("stride " + std::to_string(l.row_stride));
  if (l.xor_mask != 0) add("xor " + std::to_string(l.xor_mask));
  if (!l.swizzle.is_identity()) {
    add("Swizzle<" + std::to_string(l.swizzle.bits) + "," + std::to_string(l.swizzle.base) + "," +
        std::to_string(l.swizzle.shift) + ">");
  }
  return t.empty() ? "none" : t;
}

Result<int> access_n_way(const Scenario& s, int stmt) {
  int n_way = 0;
  for (int w = 0; w < s.warps_per_block(); ++w) {
    auto instr = warp_instructions(s, Dim3{0, 0, 0}, w, stmt);
    if (!instr) return instr.error();
    for (const WarpInstruction& wi : *instr) {
      if (wi.stmt != stmt || !wi.issued || wi.access.mask == 0) continue;
      n_way = std::max(n_way, cost(wi.access, s.spec.banks).n_way);
    }
  }
  return n_way;
}

Result<AdvisorResult> advise_layout(const Scenario& s, int array, const AdvisorOptions& opt) {
  if (array < 0 || array >= static_cast<int>(s.arrays.size())) {
    return Error{"array: " + std::to_string(array) + " is outside 0.." +
                 std::to_string(s.arrays.size() - 1)};
  }
  const SharedArray& arr = s.arrays[static_cast<size_t>(array)];
  const int rows = arr.shape.rows, cols = arr.shape.cols, elem = arr.elem_bytes();
  const uint64_t logical_bytes = uint64_t(rows) * uint64_t(cols) * uint64_t(elem);
  AdvisorResult res;
  res.array = array;
  res.array_name = arr.name;

  TotalsOptions topt;
  topt.max_simulated_blocks = opt.max_simulated_blocks;
  topt.cancel = opt.cancel;
  auto stopped_by_cancel = [&] { return opt.cancel != nullptr && opt.cancel->load(); };

  // The launch in logical coordinates, evaluated once (from the scenario as every candidate is
  // compiled: its spec): a layout changes only where each (row, col) lands, so each candidate maps
  // and costs the distinct warp executions (launch_profile() in kernel_model.hpp) instead of
  // running the kernel again. When the profile cannot be made (an error, a cap, a cancel, over
  // opt.max_profile_executions), every layout runs the kernel with launch_totals(), which gives
  // the same totals, error or stop as before.
  auto compiled_current = compile(with_layout(s.spec, array, arr.layout));
  Result<LaunchProfile> profile =
      compiled_current ? launch_profile(*compiled_current, topt, opt.max_profile_executions)
                       : Result<LaunchProfile>(compiled_current.error());
  const bool use_profile = profile && profile->complete;
  if (profile && !profile->complete && stopped_by_cancel()) {
    res.cancelled = true;
    return res;
  }

  // Runs the kernel with array `array` laid out as `l`. The error says what failed, as predict
  // would print it; an empty error message means the run stopped early (cap or cancel).
  enum class Failed { kNone, kCompile, kTotals, kStopped };
  auto run = [&](const PhysicalLayout& l, LayoutCandidate* out, Failed* failed) -> Result<bool> {
    *failed = Failed::kNone;
    auto sc = compile(with_layout(s.spec, array, l));
    if (!sc) {
      *failed = Failed::kCompile;
      return sc.error();
    }
    auto lt = use_profile ? totals_from_profile(*sc, *profile) : launch_totals(*sc, topt);
    if (!lt) {
      *failed = Failed::kTotals;
      return lt.error();
    }
    if (!lt->complete) {
      *failed = Failed::kStopped;
      return Error{lt->stopped_because};
    }
    LayoutCandidate c;
    c.layout = l;
    c.pad = l.row_stride - cols;
    c.extra_bytes = sc->arrays[static_cast<size_t>(array)].bytes() - logical_bytes;
    bool sat = false;
    // Every kind's wavefronts (ld, st, ldmatrix, stmatrix, atomics): the bank cycles the kernel
    // spends, whatever instruction spends them.
    for (Op op : kAllOps) {
      c.wavefronts = sat_add(c.wavefronts, lt->of(op).wavefronts, &sat);
      c.conflicts = sat_add(c.conflicts, lt->of(op).conflicts, &sat);
    }
    for (size_t i = 0; i < lt->per_access.size(); ++i) {
      if (lt->per_access[i].conflicts > c.worst_conflicts) {
        c.worst_conflicts = lt->per_access[i].conflicts;
        c.worst_access = static_cast<int>(i);
      }
    }
    c.parts = parts_of(l, cols);
    // The compiled layout: a TMA mode's Swizzle is filled in there, for the text.
    c.text = layout_text(sc->arrays[static_cast<size_t>(array)].layout, cols);
    *out = c;
    res.ideal = 0;  // the same for every layout
    for (Op op : kAllOps) res.ideal = sat_add(res.ideal, lt->of(op).ideal, &sat);
    return true;
  };

  // The scenario's own layout first: if it cannot run, nothing can be compared with it.
  const PhysicalLayout cur = arr.layout;
  {
    Failed f;
    auto ok = run(cur, &res.current, &f);
    if (!ok) {
      if (f == Failed::kStopped && stopped_by_cancel()) {
        res.cancelled = true;
        return res;
      }
      if (f == Failed::kStopped)
        return Error{"the scenario's own layout: per-launch totals stopped (" + ok.error().message +
                     ")"};
      return ok.error();
    }
    res.current.is_current = true;
  }
  res.ranked.push_back(res.current);

  // Candidates in order of simplicity (the last tie-break): none, padding, XOR, swizzle, padding +
  // XOR.
  std::vector<PhysicalLayout> cands;
  // TMA modes the copy engine could write this array with (make_shared_array checks the rest:
  // alignment of the base, the 227 KiB); the scenario's own TMA array gets nothing else.
  std::vector<PhysicalLayout> tma_cands;
  for (int span : {32, 64, 128}) {
    const int64_t row_bytes = int64_t(cols) * elem;
    if (row_bytes > span || row_bytes % 16 != 0) continue;
    PhysicalLayout l{cols};
    l.tma_span = span;
    // Its placement, for the dedup: rows padded to the span, the swizzle and its phase at this base.
    if (auto placed = make_shared_array(arr.name, arr.type, arr.shape, l, arr.base)) l = placed->layout;
    tma_cands.push_back(l);
  }
  const bool tma_only = cur.tma_span != 0;
  const int turn_bytes = s.spec.banks.banks * s.spec.banks.bank_bytes;
  const int max_pad = arr.shape.rank == 1 ? 0 : std::max(1, turn_bytes / elem);
  std::vector<int> pads;
  int over_budget = 0;
  for (int p = 0; p <= max_pad; ++p) {
    if (uint64_t(rows) * uint64_t(p) * uint64_t(elem) > opt.budget_bytes) {
      ++over_budget;
      continue;
    }
    pads.push_back(p);
  }
  std::vector<int> masks;
  if (arr.shape.rank == 2 && rows > 1) {
    const int col_bits = bits_for(cols);
    for (int k = 1; k <= col_bits; ++k) {
      for (int sh = 0; k + sh <= col_bits; ++sh) masks.push_back(((1 << k) - 1) << sh);
    }
  }
  const bool pad0 = !pads.empty() && pads[0] == 0;
  if (tma_only) {
    pads.clear();  // the copy engine writes the box densely: padding, XOR and swizzles are not its
    masks.clear();
    over_budget = 0;
    cands.push_back(PhysicalLayout{cols});  // CU_TENSOR_MAP_SWIZZLE_NONE
    cands.insert(cands.end(), tma_cands.begin(), tma_cands.end());
  }
  for (int p : pads) cands.push_back(PhysicalLayout{cols + p});
  if (pad0 && !tma_only) {
    for (int m : masks) cands.push_back(PhysicalLayout{cols, m});
    cands.insert(cands.end(), tma_cands.begin(), tma_cands.end());
    const int total_bits = bits_for(int64_t(rows) * cols);
    const int max_b = std::max(1, bits_for(s.spec.banks.banks));
    for (int b = 1; b <= max_b; ++b) {
      for (int m = 0; m <= 4; ++m) {
        for (int sh = b; m + sh + b <= total_bits; ++sh)
          cands.push_back(PhysicalLayout{cols, 0, Swizzle{b, m, sh}});
      }
    }
  }
  for (int p : pads) {
    if (p == 0) continue;
    for (int m : masks) cands.push_back(PhysicalLayout{cols + p, m});
  }

  // Distinct candidates, the current layout first: hash -> indices into `kept`.
  std::vector<PhysicalLayout> kept{cur};
  std::unordered_map<uint64_t, std::vector<size_t>> by_hash;
  std::vector<int64_t> offsets, other;
  layout_offsets(arr, cur, &offsets);
  by_hash[hash_offsets(offsets)].push_back(0);
  for (const PhysicalLayout& l : cands) {
    layout_offsets(arr, l, &offsets);
    std::vector<size_t>& bucket = by_hash[hash_offsets(offsets)];
    bool seen = false;
    for (size_t k : bucket) {
      layout_offsets(arr, kept[k], &other);
      if (other == offsets) {
        seen = true;
        break;
      }
    }
    if (seen) continue;
    bucket.push_back(kept.size());
    kept.push_back(l);
  }
  const std::vector<PhysicalLayout> unique(kept.begin() + 1, kept.end());
  res.candidates = static_cast<int>(unique.size()) + 1;  // and the current layout
  if (over_budget > 0) res.skipped.emplace_back("padding over the budget", over_budget);
  res.evaluated = 1;
  if (opt.candidates_done != nullptr) opt.candidates_done->store(1);
  for (const PhysicalLayout& l : unique) {
    // From the profile a candidate runs no blocks, so the cancel flag is read between candidates.
    if (use_profile && stopped_by_cancel()) {
      res.cancelled = true;
      break;
    }
    LayoutCandidate c;
    Failed f;
    auto ok = run(l, &c, &f);
    if (f == Failed::kStopped && stopped_by_cancel()) {
      res.cancelled = true;
      break;
    }
    ++res.evaluated;
    if (opt.candidates_done != nullptr) opt.candidates_done->fetch_add(1);
    if (ok) {
      res.ranked.push_back(c);
    } else if (f == Failed::kCompile) {
      count_skip(res, compile_reason(ok.error().message));
    } else if (f == Failed::kTotals) {
      count_skip(res, totals_reason(ok.error().message));
    } else {
      count_skip(res, "per-launch totals over the block cap");
    }
  }
  // Stable: among equals, the current layout (no change) and then the earlier, simpler candidate.
  std::stable_sort(res.ranked.begin(), res.ranked.end(),
                   [](const LayoutCandidate& a, const LayoutCandidate& b) {
                     return std::make_tuple(a.wavefronts, a.extra_bytes, a.parts, !a.is_current) <
                            std::make_tuple(b.wavefronts, b.extra_bytes, b.parts, !b.is_current);
                   });
  return res;
}

}  // namespace bankscope
