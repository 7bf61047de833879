// fuzz_trace.cpp: libFuzzer target for the trace reader (sim/trace.hpp) and the report over it
// (sim/trace_report.hpp). Traces come from other machines: any bytes must give either a report or
// one line starting "trace: ", never a crash; a report's per-PC numbers must be consistent, and
// those of every costed kind equal to the brute force (each execution costed alone by its rule:
// cost_sass() for LDS/STS, ldmatrix/stmatrix and atomics, R9 from the traced sources for cp.async,
// with no memo; refused executions counted alike): the decoder's vector paths and the report's
// memos (the repeat check, the exact memo, the other kinds' memo) are checked on every input.
// The report is made twice: as `report` makes it (repeats taken without their lanes,
// TraceSink::on_repeat, their counts recorded later) and with a what-if (whose tee takes no
// repeats); the two traced reports must agree in every field. The what-if report is brute-forced
// as well: each execution's lanes moved by the fuzz target's own copy of the what-if's layout (a
// 32x32 float tile at offset 0 padded to stride 33, written out below, not sim's remap) and costed
// alone, or refused when the move breaks an access's alignment.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "sim/ldgsts.hpp"
#include "sim/trace.hpp"
#include "sim/trace_report.hpp"

using namespace bankscope;

namespace {
// Per launch and PC: each execution's cost by its rule alone, summed; the executions the model
// refuses (validate()), counted.
struct Sums {
  uint64_t wavefronts = 0, ideal = 0, uncosted = 0;
  std::array<uint64_t, kWarpSize + 1> n_way{};  // executions per n-way (0: no wavefront)
};
// The what-if's layout, written out apart from sim's remap_address(): byte `addr` of the block's
// shared window, whose first `reserved` bytes are not the program's; float tile[32][32] at the
// program's offset 0, moved to a row stride of 33 floats.
uint32_t padded_tile(uint64_t reserved, uint32_t addr) {
  if (addr < reserved || addr >= reserved + 32 * 32 * 4) return addr;
  const uint64_t off = addr - reserved;
  const uint64_t row = off / 128, col = off % 128 / 4;
  return static_cast<uint32_t>(reserved + (row * 33 + col) * 4 + off % 4);
}

struct BruteForce : TraceSink {
  std::vector<std::vector<Sums>> sums;
  std::vector<std::vector<Sums>> what_if;  // the same with padded_tile()'s lanes
  uint64_t reserved = 0;
  std::vector<PcModel> models;  // pc_model(), the report's rule per PC
  // Per pc index: the previous execution with lanes and the previous one with sources, for the
  // reader's same_offsets / src_same_offsets (true only when the offsets from the first active
  // lane, exact, and the mask repeat).
  struct Prev {
    bool valid = false;
    uint32_t mask = 0;
    std::array<uint32_t, kWarpSize> lanes{};
  };
  std::vector<Prev> prev_addr, prev_src;
  static bool repeats(const Prev& q, uint32_t mask, const std::array<uint32_t, kWarpSize>& lanes) {
    if (!q.valid || q.mask != mask) return false;
    const int first = __builtin_ctz(mask);
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(mask >> lane & 1u)) continue;
      if (int64_t{lanes[lane]} - int64_t{lanes[first]} != int64_t{q.lanes[lane]} - int64_t{q.lanes[first]}) return false;
    }
    return true;
  }
  void on_launch(const TraceLaunch& l) override {
    sums.emplace_back();
    what_if.emplace_back();
    reserved = l.reserved_bytes;
    models.clear();
    prev_addr.clear();
    prev_src.clear();
  }
  void on_pc(const TracePc& p) override {
    sums.back().emplace_back();
    what_if.back().emplace_back();
    models.push_back(pc_model(p));
    prev_addr.emplace_back();
    prev_src.emplace_back();
  }
  void on_warp(const TraceWarp& w, const TracePc& p) override {
    if (w.mask != 0) {
      FUZZ_CHECK(!w.same_offsets || repeats(prev_addr[w.pc_index], w.mask, w.addr),
                 "same_offsets on lanes that do not repeat their pc's previous ones");
      prev_addr[w.pc_index] = Prev{true, w.mask, w.addr};
      if (w.has_src) {
        FUZZ_CHECK(!w.src_same_offsets || repeats(prev_src[w.pc_index], w.mask, w.src),
                   "src_same_offsets on sources that do not repeat their pc's previous ones");
        prev_src[w.pc_index] = Prev{true, w.mask, w.src};
      }
    }
    FUZZ_CHECK(w.mask != 0 || (!w.same_offsets && !w.src_same_offsets), "a repeat marked on an execution without lanes");
    const PcModel& m = models[w.pc_index];
    if (!m.costed) return;
    Sums& sum = sums.back()[w.pc_index];
    Sums& moved = what_if.back()[w.pc_index];
    // Predicated off, or counted as zero by ncu (an @P0 LDGSTS.BYPASS): no wavefront.
    if (w.mask == 0 || m.ncu_counts_zero) {
      ++sum.n_way[0];
      ++moved.n_way[0];
      return;
    }
    // A cp.async without sources: the report refuses the whole PC, which the comparison skips.
    if (p.kind == TraceOpKind::kLdgsts && !w.has_src) return;
    WarpAccess a = m.access;
    a.mask = w.mask;
    a.addr = w.addr;
    add(sum, a, w, !is_modelled(p.kind));  // e.g. an LDSM row lane inactive: refused
    // The what-if moves shared addresses only (a cp.async's global sources stay), and refuses what
    // the move misaligns (a vector lane of the padded tile), whatever the kind.
    for (int lane = 0; lane < kWarpSize; ++lane) {
      a.addr[static_cast<size_t>(lane)] = w.mask >> lane & 1u ? padded_tile(reserved, w.addr[static_cast<size_t>(lane)]) : 0;
    }
    add(moved, a, w, true);
  }
  // What the report counts (R11: the instruction-level counters), warp by warp, with no memo.
  static void add(Sums& sum, const WarpAccess& a, const TraceWarp& w, bool check) {
    if (check && !validate(a, BankConfig{}).ok()) {
      ++sum.uncosted;
      return;
    }
    const AccessCost c = a.op == Op::kLdgsts ? ldgsts_cost(a, w.src, /*zero_reads_nothing=*/true) : cost_sass(a);
    sum.wavefronts += static_cast<uint64_t>(c.wavefronts);
    sum.ideal += static_cast<uint64_t>(c.ideal_wavefronts);
    ++sum.n_way[static_cast<size_t>(std::min(c.n_way, kWarpSize))];
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The what-if path too: a 32x32 float tile at offset 0 padded to stride 33.
  static const auto tile = parse_array_spec("tile@0:float[32][32]");
  static const auto padded = apply_layout_spec(*tile, "tile:stride=33");
  auto r = report_trace(data, size, {ArrayRemap{*tile, *padded}});
  // And `report`'s own path, without a what-if: the reader compiled for the aggregator
  // (read_trace(..., TraceAggregator&)), which offers repeats without their lanes
  // (TraceSink::on_repeat); the what-if's tee is read by the reader for any sink and takes none. Its
  // traced report and its errors must be the what-if run's, field for field, and it is the one
  // checked against each execution alone below.
  auto plain = report_trace(data, size);
  if (!r.ok()) {
    FUZZ_CHECK(r.error().message.rfind("trace: ", 0) == 0, "error without the 'trace: ' prefix: " + r.error().message);
    FUZZ_CHECK(r.error().message.find('\n') == std::string::npos, "error of several lines: " + r.error().message);
    FUZZ_CHECK(!plain.ok() && plain.error().message == r.error().message, "the report without a what-if read it otherwise");
    return 0;
  }
  FUZZ_CHECK(plain.ok(), "the report without a what-if failed: " + plain.error().message);
  FUZZ_CHECK(r->traced.summary.complete, "a report from a file without its end record");
  FUZZ_CHECK(r->traced.launches.size() == r->what_if.launches.size(), "what-if and traced launch counts differ");
  FUZZ_CHECK(plain->traced.launches.size() == r->traced.launches.size(), "launch counts differ with and without a what-if");
  for (size_t li = 0; li < r->traced.launches.size(); ++li) {
    const LaunchReport& a = plain->traced.launches[li];
    const LaunchReport& b = r->traced.launches[li];
    FUZZ_CHECK(a.pcs.size() == b.pcs.size(), "pc counts differ with and without a what-if");
    for (size_t p = 0; p < a.pcs.size(); ++p) {
      const PcStats& x = a.pcs[p];
      const PcStats& y = b.pcs[p];
      FUZZ_CHECK(x.executions == y.executions && x.wavefronts == y.wavefronts && x.ideal == y.ideal &&
                     x.worst_n_way == y.worst_n_way && x.n_way_count == y.n_way_count && x.uncosted == y.uncosted &&
                     x.model.costed == y.model.costed,
                 "pc " + std::to_string(x.pc.pc) + " (" + printable(x.pc.opcode) + "): report " +
                     std::to_string(x.executions) + "/" + std::to_string(x.wavefronts) + " (executions/wavefronts), " +
                     std::to_string(y.executions) + "/" + std::to_string(y.wavefronts) + " with a what-if");
    }
    for (size_t k = 0; k < kTraceOpKinds; ++k) {
      const OpTotals& x = a.by_kind[k];
      const OpTotals& y = b.by_kind[k];
      FUZZ_CHECK(x.instructions == y.instructions && x.active_instructions == y.active_instructions &&
                     x.wavefronts == y.wavefronts && x.ideal == y.ideal && x.conflicts == y.conflicts &&
                     a.uncosted_by_kind[k] == b.uncosted_by_kind[k] && a.executions_by_kind[k] == b.executions_by_kind[k],
                 "kind " + std::to_string(k) + ": launch totals differ with and without a what-if");
    }
  }
  const TraceReport& traced = plain->traced;
  for (const LaunchReport& l : traced.launches) {
    // Every execution of a costed instruction is in its kind's totals, unless the model refused
    // that one execution (validate(): an LDSM row lane inactive, ...), which is counted apart.
    uint64_t costed = 0, kinds = 0;
    for (const PcStats& s : l.pcs) {
      FUZZ_CHECK(s.wavefronts >= s.ideal, "pc " + std::to_string(s.pc.pc) + ": wavefronts below ideal");
      FUZZ_CHECK(s.worst_n_way <= kWarpSize, "n-way above 32");
      FUZZ_CHECK(s.uncosted <= s.executions, "more refused executions than executions");
      if (s.modelled()) costed += s.executions - s.uncosted;
      // cp.async .cg is costed (R9, H10), except that an @P0-guarded one counts 0 as ncu counts it.
      if (s.model.ncu_counts_zero)
        FUZZ_CHECK(s.wavefronts == 0, "an @P0 LDGSTS.BYPASS with wavefronts");
    }
    for (const OpTotals& t : l.by_kind) kinds += t.instructions;
    FUZZ_CHECK(costed == kinds, "costed executions != the kinds' instructions");
    FUZZ_CHECK(l.ld.instructions == l.by_kind[0].instructions && l.st.instructions == l.by_kind[1].instructions,
               "ld/st totals differ from their kinds'");
  }
  BruteForce brute;
  FUZZ_CHECK(read_trace(data, size, brute).ok(), "the second read of a trace failed");
  FUZZ_CHECK(brute.sums.size() == traced.launches.size(), "launch counts differ between two reads");
  for (size_t li = 0; li < brute.sums.size(); ++li) {
    const LaunchReport& l = traced.launches[li];
    std::array<std::pair<uint64_t, uint64_t>, kTraceOpKinds> per_kind{};  // the PCs' sums, per kind
    for (size_t p = 0; p < l.pcs.size(); ++p) {
      const PcStats& s = l.pcs[p];
      if (!s.model.costed) continue;  // not modelled, or a cp.async the report refused whole
      per_kind[static_cast<size_t>(s.pc.kind)].first += s.wavefronts;
      per_kind[static_cast<size_t>(s.pc.kind)].second += s.ideal;
      const Sums& b = brute.sums[li][p];
      uint64_t n_way_sum = 0;
      for (int k = 0; k <= kWarpSize; ++k) n_way_sum += s.n_way_count[static_cast<size_t>(k)];
      FUZZ_CHECK(n_way_sum + s.uncosted == s.executions, "pc " + std::to_string(s.pc.pc) + ": n-way counts miss executions");
      FUZZ_CHECK(std::equal(b.n_way.begin(), b.n_way.end(), s.n_way_count.begin()),
                 "pc " + std::to_string(s.pc.pc) + " (" + printable(s.pc.opcode) + "): n-way counts differ from each execution alone");
      FUZZ_CHECK(s.wavefronts == b.wavefronts && s.ideal == b.ideal && s.uncosted == b.uncosted,
                 "pc " + std::to_string(s.pc.pc) + " (" + printable(s.pc.opcode) + "): report " + std::to_string(s.wavefronts) +
                     "/" + std::to_string(s.ideal) + "/" + std::to_string(s.uncosted) +
                     " (wavefronts/ideal/refused), each execution alone " + std::to_string(b.wavefronts) + "/" +
                     std::to_string(b.ideal) + "/" + std::to_string(b.uncosted));
    }
    // The launch's totals per kind are its costed PCs' sums (a refused cp.async PC's taken back).
    for (size_t k = 0; k < per_kind.size(); ++k) {
      FUZZ_CHECK(l.by_kind[k].wavefronts == per_kind[k].first && l.by_kind[k].ideal == per_kind[k].second,
                 "kind " + std::to_string(k) + ": launch totals differ from the sum of its PCs");
    }
    // The what-if, PC by PC, against each execution moved and costed alone; it refuses the PCs the
    // traced report refuses (a cp.async without sources), no others, and counts every execution.
    const LaunchReport& w = r->what_if.launches[li];
    FUZZ_CHECK(w.pcs.size() == l.pcs.size(), "pc counts differ between the what-if and the traced report");
    std::array<std::pair<uint64_t, uint64_t>, kTraceOpKinds> what_if_kind{};
    // refused / traced_refused: the executions the costed PCs refused, with and without the
    // what-if (the rest of uncosted_by_kind, the PCs not costed at all, is the same in both).
    std::array<uint64_t, kTraceOpKinds> refused{}, traced_refused{}, executions{};
    for (size_t p = 0; p < w.pcs.size(); ++p) {
      const PcStats& s = w.pcs[p];
      const size_t kind = static_cast<size_t>(s.pc.kind);
      FUZZ_CHECK(s.model.costed == l.pcs[p].model.costed && s.executions == l.pcs[p].executions,
                 "pc " + std::to_string(s.pc.pc) + ": the what-if costs or counts it otherwise than the traced report");
      executions[kind] += s.executions;
      if (!s.model.costed) continue;
      what_if_kind[kind].first += s.wavefronts;
      what_if_kind[kind].second += s.ideal;
      refused[kind] += s.uncosted;
      traced_refused[kind] += l.pcs[p].uncosted;
      const Sums& b = brute.what_if[li][p];
      int worst = 0;
      for (int k = 1; k <= kWarpSize; ++k) worst = b.n_way[static_cast<size_t>(k)] != 0 ? k : worst;
      FUZZ_CHECK(s.wavefronts == b.wavefronts && s.ideal == b.ideal && s.uncosted == b.uncosted &&
                     std::equal(b.n_way.begin(), b.n_way.end(), s.n_way_count.begin()) && s.worst_n_way == worst,
                 "pc " + std::to_string(s.pc.pc) + " (" + printable(s.pc.opcode) + "): what-if " +
                     std::to_string(s.wavefronts) + "/" + std::to_string(s.ideal) + "/" + std::to_string(s.uncosted) +
                     "/" + std::to_string(s.worst_n_way) + " (wavefronts/ideal/refused/worst), each execution moved alone " +
                     std::to_string(b.wavefronts) + "/" + std::to_string(b.ideal) + "/" + std::to_string(b.uncosted) +
                     "/" + std::to_string(worst));
    }
    // Its launch totals (what `report --layout` prints beside the traced ones) are its PCs' sums.
    for (size_t k = 0; k < kTraceOpKinds; ++k) {
      FUZZ_CHECK(w.by_kind[k].wavefronts == what_if_kind[k].first && w.by_kind[k].ideal == what_if_kind[k].second &&
                     w.executions_by_kind[k] == executions[k] && w.executions_by_kind[k] == l.executions_by_kind[k] &&
                     w.uncosted_by_kind[k] - l.uncosted_by_kind[k] == refused[k] - traced_refused[k],
                 "kind " + std::to_string(k) + ": the what-if's launch totals differ from the sum of its PCs");
    }
  }
  return 0;
}
