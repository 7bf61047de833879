// trace_report.hpp: a decoded trace -> per-instruction and per-launch costs, and the same trace with
// one shared array remapped to another physical layout (the what-if).
//
//   trace execution (lanes' byte offsets)  -> WarpAccess -> cost()          per PC, per launch
//   traced offset in array A               -> logical (row, col) of A -> new layout's offset
//
// Each instruction is costed by the bank model's rule for its kind (sim/RULES.md), see pc_model():
// LDS/STS (R1-R6), LDSM/STSM (R7), ATOMS (R8) and LDGSTS .ca and .cg (R9, from each lane's global
// source, which the trace carries) when the SASS opcode says which (`bankscope-gpu trace` reads it
// from the kernel's cubin). An instruction no measured rule covers (an atomic whose operation is
// unknown, an LDGSTS traced without its sources or without its SASS opcode, ...) is
// counted as executions, marked "not modelled" with the reason, and left out of the totals.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bank_model.hpp"
#include "kernel_model.hpp"
#include "layout.hpp"
#include "status.hpp"
#include "trace.hpp"

namespace bankscope {

// How the bank model costs one traced instruction: the WarpAccess it becomes (all but the lanes and
// their addresses), or why it is not costed.
struct PcModel {
  bool costed = false;
  WarpAccess access;
  std::string why;  // when not costed
  // Costed as Nsight Compute counts it, which is not what R9 gives: every active execution counts
  // 0 wavefronts (an @P0-guarded LDGSTS.BYPASS; see pc_model()). `note` says why.
  bool ncu_counts_zero = false;
  std::string note;
};
// The rule for one traced instruction. cp.async .ca and .cg (LDGSTS) are costed by R9 from the
// traced sources: both rules (H9, H10) equal every single-warp line measured on the H200
// (sim/RULES.md R9); .cg was opt-in (ReportOptions, --ldgsts-r9) until H10 (2026-12-01v), and the
// options went with it. (cuBLAS HGEMM's two .cg PCs that count 0 on the H200 are @P0-guarded ones,
// which ncu's instrumented counters skip: pc_model() counts them so; assets/results/h200/2026-12-01o.)
PcModel pc_model(const TracePc& pc);

// The model's Op for a trace kind (kOther has none: kLoad is returned and pc_model refuses it).
Op op_of(TraceOpKind k);

struct PcStats {
  TracePc pc;
  PcModel model;
  uint64_t executions = 0;
  uint64_t wavefronts = 0;  // modelled kinds only
  uint64_t ideal = 0;
  int worst_n_way = 0;
  std::array<uint64_t, kWarpSize + 1> n_way_count{};  // executions per n-way (index 0: empty mask)
  uint64_t uncosted = 0;  // executions the model refused (validate(): e.g. an LDSM row lane inactive)
  bool modelled() const { return model.costed; }
  uint64_t excess() const { return wavefronts - ideal; }  // = bank conflicts
  int typical_n_way() const;                             // the most frequent n-way
};

struct LaunchReport {
  TraceLaunch launch;
  TraceLaunchEnd end;
  bool ended = false;
  OpTotals ld, st;  // LDS/STS, under counters::sass_inst_executed / wavefronts / bank_conflicts
  // Every kind's costed executions (ld and st again at kLoad and kStore), and the executions of each
  // kind that were not costed: a kind's totals are comparable with its counters only when none is.
  std::array<OpTotals, kTraceOpKinds> by_kind{};
  std::array<uint64_t, kTraceOpKinds> uncosted_by_kind{};
  std::array<uint64_t, kTraceOpKinds> executions_by_kind{};
  std::vector<PcStats> pcs;
};

struct TraceReport {
  std::vector<LaunchReport> launches;
  TraceSummary summary;
  TraceEnd end;
};

// The what-if: a shared array of the traced kernel, as the kernel declared it (dense row-major at
// `traced.base` bytes after the reserved window), and the layout to try instead.
struct ArrayRemap {
  SharedArray traced;
  SharedArray replaced;  // same name, type, shape and base; another PhysicalLayout
};

// "tile@0:float[32][32]" (also "buf@256:float4[64]") -> a dense SharedArray.
Result<SharedArray> parse_array_spec(const std::string& spec);
// "tile:stride=33", "tile:xor=31", "tile:swizzle=3,2,3" (comma-free parts joined by ';' combine)
// applied to `array`. The name must match.
Result<SharedArray> apply_layout_spec(const SharedArray& array, const std::string& spec);

// One traced byte address through the what-if:
//   address in a remapped array (reserved + traced.base, dense row-major as traced)
//     -> logical (row, col) -> reserved + replaced.byte_address(row, col) + byte within the element
// any other address unchanged. The one statement of the remap: the aggregator (report) and the
// visualizer's what-if pane both call it, so the app's numbers are the report's.
uint32_t remap_address(const std::vector<ArrayRemap>& remaps, uint64_t reserved, uint32_t addr);

namespace trace_read {
template <class Sink>
struct SinkSteps;  // how the reader calls a sink's steps (sim/trace_read.hpp)
}  // namespace trace_read

// Aggregates as the trace is read; `remaps` apply to every address first (empty = as traced).
// Final: read_trace() below, the reader compiled for it, calls its steps without a virtual call.
class TraceAggregator final : public TraceSink {
 public:
  explicit TraceAggregator(std::vector<ArrayRemap> remaps = {}) : remaps_(std::move(remaps)) {}
  void on_launch(const TraceLaunch& l) override;
  void on_pc(const TracePc& pc) override;
  void on_warp(const TraceWarp& w, const TracePc& pc) override;
  // Takes a repeating execution whose cost its PC's MemoGate keeps at that residue (the cost
  // on_warp() would find there), without its lanes; anything else goes to on_warp().
  bool takes_repeats() const override { return remaps_.empty(); }
  bool on_repeat(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero, const TracePc& pc) override;
  void on_launch_end(const TraceLaunchEnd& e) override;
  void on_end(const TraceEnd& e) override { report_.end = e; }
  TraceReport take(const TraceSummary& s) {
    flush_late();
    flush_repeats();
    sum_launch();
    report_.summary = s;
    for (LaunchReport& l : report_.launches) {  // ld and st are by_kind's first two, kept apart
      l.ld = l.by_kind[static_cast<size_t>(TraceOpKind::kLoad)];
      l.st = l.by_kind[static_cast<size_t>(TraceOpKind::kStore)];
    }
    return std::move(report_);
  }

 private:
  friend struct trace_read::SinkSteps<TraceAggregator>;
  // on_warp()'s and on_repeat()'s bodies, inline: read_trace() below inlines them in the reader's
  // loop (trace_report.cpp alone calls them).
  inline void warp_step(const TraceWarp& w, const TracePc& pc);
  inline bool repeat_step(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero);
  uint32_t remap(uint32_t addr) const;
  AccessCost cost_plain(uint32_t pc_index);  // cost(access_) for LDS/STS, through the memos below
  // The same for a warp the reader found evenly spaced (TraceWarp::even): no copy, no re-check.
  AccessCost cost_even(const TraceWarp& w);
  // The memo's cost of an evenly spaced full warp of access_'s op and width; `lanes`, when
  // access_ does not hold them yet, are copied in on a miss only.
  AccessCost memo_cost(int64_t stride, uint32_t base, const TraceWarp* lanes);
  // One costed execution into its PC's stats; the launch's totals are summed from those once, when
  // the launch is over (sum_launch()).
  static void record(PcStats& s, const AccessCost& c);
  // record() n times, in one step (MemoGate::repeat_count).
  static void record_n(PcStats& s, const AccessCost& c, uint64_t n);
  // on_warp() for everything but a costed LDS/STS or 4-byte atomic of atomic_cost_fn() (the common
  // route, MemoGate::common) with active lanes and no what-if layout.
  void on_other_warp(const TraceWarp& w, const TracePc& pc, LaunchReport& l, PcStats& s, size_t kind, bool plain);
  // An LDGSTS execution without its global sources (a trace of an older tracer): its PC becomes
  // not modelled, with the reason, and leaves the totals.
  void refuse_unsourced(LaunchReport& l, PcStats& s, size_t kind);
  // The current launch's by_kind, summed from its PCs' stats when the next launch starts or the
  // report is taken (once per launch): an execution updates its PC's stats alone (measured: the
  // per-kind totals beside them were 15 instructions per execution of a random trace, and before
  // round 11 OpTotals::add()'s saturating multiply-adds a tenth of the report's time). The sums are
  // the same: no count of a trace comes near 2^64, and saturation is still applied when they are
  // added.
  void sum_launch();
  std::vector<ArrayRemap> remaps_;
  TraceReport report_;
  WarpAccess access_;
  CostPath simd_ = cost_path();  // the lanes are copied with its vector width
  // cost() of evenly spaced full warps, keyed by (op, width, atomic op, stride, base mod 4 KiB): moving every
  // lane by a multiple of 4 KiB changes no lane's bank, no word identity and no phase (the rules
  // compare lanes' banks and words, never absolute addresses), so those decide the cost. Rows,
  // columns and broadcasts of a traced kernel repeat these few patterns millions of times.
  struct MemoEntry {
    uint64_t key = ~0ull;
    AccessCost cost;
  };
  std::vector<MemoEntry> memo_ = std::vector<MemoEntry>(4096);

  // cost() of any other LDS/STS warp (and of the common route's atomics), keyed exactly by (op,
  // width, atomic op, mask, every active lane's offset
  // from B), B = the first active lane's offset rounded down to 16 bytes: moving every lane by a
  // multiple of 16 bytes moves every lane's banks by the same 4 k (mod 32), so lanes that shared a
  // bank still do, equal words stay equal and every lane keeps its width alignment, and the rules
  // compare only those (the premise is tested against simulate()). Real kernels repeat the same lane pattern across blocks (offsets are block-relative)
  // and loop iterations; a kernel whose lanes are random never does, so each PC's hit rate is
  // watched: a PC that misses (3 in 4 of its first 64 lookups, or of any 1024 later) skips the memo
  // for its next 1024 (after the first 64) or 65,536 executions (watch_hits()).
  // `addr`: the lanes (access_.addr, or the reader's, copied into access_ when cost() must run).
  AccessCost exact_cost(uint32_t pc_index, const std::array<uint32_t, kWarpSize>& addr);
  struct ExactEntry {
    uint32_t meta = ~0u;  // atom_key() << 16 | op << 8 | width; ~0u = empty
    uint32_t mask = 0;
    AccessCost cost;
    std::array<uint32_t, kWarpSize> rel{};  // active lanes' offsets from B, 0 for inactive lanes
  };
  static constexpr size_t kExactSlots = 2048;
  std::vector<ExactEntry> exact_ = std::vector<ExactEntry>(kExactSlots);
  // The same for every other kind on_other_warp() costs (ldmatrix/stmatrix, the atomics off the
  // common route, cp.async):
  // keyed by (op, width, .num, .trans, atomic op, .cg, mask, every active lane's offset from B), and
  // for cp.async every active lane's source offset from S too. B is the first active lane's offset
  // rounded down to 16 bytes, as exact_'s, but to 128 bytes for cp.async, whose cost (R9) also reads
  // its sources: S is the first active source rounded down to 128 bytes (for .ca the first non-null
  // one: a null source, 0, reads nothing there and is kept apart), and moving destinations and
  // sources by multiples of 128 bytes keeps every bank, sector and line they share (the premise is
  // tested against the rules).
  // Whether the access is valid (validate()) is kept with the cost. Allocated on first use.
  AccessCost kind_cost(uint32_t pc_index, const TraceWarp& w, bool* valid);
  // kind_cost() past its repeat check; `nulls`: a .ca cp.async's active lanes with a null source.
  AccessCost kind_memo(uint32_t pc_index, const TraceWarp& w, uint32_t nulls, bool* valid);
  // The cost of access_, a validated access of a kind other than LDS/STS, by its kind's rule.
  AccessCost cost_other_kind(const TraceWarp& w) const;
  struct KindEntry {
    uint32_t meta = ~0u;  // kind_meta(); ~0u = empty
    uint32_t mask = 0;
    bool valid = false;
    AccessCost cost;
    std::array<uint32_t, kWarpSize> rel{};  // active lanes' offsets from B, 0 for inactive lanes
    std::array<uint32_t, kWarpSize> src{};  // cp.async: active lanes' source offsets from S, 1 for null
  };
  std::vector<KindEntry> kinds_;
  struct MemoGate {  // per PC of the current launch
    static constexpr uint32_t kFirstWindow = 64;  // watch_hits()
    uint32_t lookups = 0, hits = 0, skip = 0, window = kFirstWindow;
    uint32_t last = 0;  // the exact_ (LDS/STS) or kinds_ (other kinds) slot this PC used last
    // plain_cost_fn() of the PC's LDS/STS model, or atomic_cost_fn() of its atomic one; null for
    // every other PC and for an LDS of 8 or 16 bytes (on_pc()): lanes_cost().
    // `scattered`: its scattered choice, for the executions that skip the memo (`skip`).
    PlainCost plain = nullptr, scattered = nullptr;
    SplitCost split;  // split_cost_fn(scattered): those executions are finished late (LateCost)
    // on_warp()'s common case: a costed LDS/STS, or an atomic with atomic_cost_fn() (a PC's model
    // does not change once on_pc() made it: refuse_unsourced() changes only LDGSTS ones), and no
    // what-if layout.
    bool common = false;
    // The costs of the PC's latest lane pattern, by where it sat. An execution whose lanes the
    // reader marks as repeating the previous execution's offsets (TraceWarp::same_offsets, and
    // src_same_offsets for cp.async's sources) has the same memo key as an earlier execution of
    // that pattern whose first active lane (and source) had the same residue modulo the memo's unit
    // (16 bytes; 128 for cp.async, destinations and sources), so its cost: found here without
    // computing the key (measured: most executions of the H200 corpus's cuBLAS and PyTorch traces;
    // cuBLAS SGEMM's cp.async patterns come back at up to 16 residues). Filled by on_warp()'s common
    // case and kind_cost() from the first repeat of a pattern on, emptied by a new pattern. A PC's executions with lanes all take one of
    // those two routes or neither (the route follows the PC's model, and the remaps, which are the
    // aggregator's; a cp.async traced without sources stops its PC's costing), so the previous
    // execution that same_offsets refers to is always the one last kept here. A .ca cp.async with
    // a null source is not kept (the key keeps nulls apart). A residue has one slot (slot_of():
    // found with one compare), taken over by another residue that hashes there. 64 slots: with 32,
    // cuBLAS SGEMM's cp.async residues met in some and cost 6% more instructions (callgrind).
    static constexpr int kRepeats = 64;
    static int slot_of(uint32_t residue) { return static_cast<int>((residue * 0x9E3779B1u) >> 26); }
    bool repeat_ok = false;
    // on_repeat()'s route for the PC, from its model (on_pc()): 0 = none (not costed, or counted
    // without a cost), 1 = residue mod 16, 2 = cp.async .cg, 3 = cp.async .ca (sources known above 0).
    uint8_t repeat_route = 0;
    uint64_t repeat_used = 0;   // the slots that hold a cost of the current pattern, a bit each
    uint64_t repeat_valid = 0;  // validity (validate()) of each kept cost, a bit each
    std::array<uint32_t, kRepeats> repeat_residue{};  // first lane's address mod the unit | first source's mod 128 << 8
    std::array<AccessCost, kRepeats> repeat_cost{};
    // Executions on_repeat() took at each slot's cost and not yet recorded: they are, with one
    // record_n() a slot, before anything else of this PC is (on_warp()), and before the launch's
    // totals are summed (the next launch, take()). `deferred`: their sum; `pending`: the slots
    // with a count, a bit each (a flush visits those, not all 64: that scan was nine tenths of the
    // flushes' instructions on cuBLAS HGEMM, callgrind).
    std::array<uint32_t, kRepeats> repeat_count{};
    uint32_t deferred = 0;
    uint64_t pending = 0;
  };
  // The deferred executions of one PC of the current launch, or of all of them.
  void flush_repeats(uint32_t pc_index);
  void flush_repeats();
  // The slot of g.repeat_cost that serves an execution at `residue` whose lanes repeat the
  // previous execution's offsets (`repeats`), or -1; keep_repeat() keeps a cost computed otherwise
  // (when `keep`: not a .ca null source) and empties the slots when the pattern is new.
  static int find_repeat(const MemoGate& g, bool repeats, uint32_t residue);
  static void keep_repeat(MemoGate& g, bool repeats, bool keep, uint32_t residue, const AccessCost& c, bool valid);
  std::vector<MemoGate> gates_;
  // After a lookup: after 64, then every 1024, a PC that hit fewer than a quarter of the time skips
  // the memo for a while.
  static void watch_hits(MemoGate& g);
  AccessCost exact_lookup(MemoGate& g, uint32_t meta, const std::array<uint32_t, kWarpSize>& addr);
  // exact_cost()'s key, compares and hash with AVX2 in one pass, the offsets in registers, in the
  // kExactSlots entries at `table`: found | slot << 32, found 0 = the entry at `last` (the PC's last
  // slot, then `slot`) holds this key, 1 = the entry at the key's slot (`slot`) does, 2 = neither
  // (the entry at `slot` now holds the key, its cost still to be computed). Returned in one
  // register: through a pointer, the slot and a seventh argument went through the stack.
  static uint64_t exact_find_avx2(const uint32_t* addr, uint32_t mask, uint32_t b, uint32_t meta, ExactEntry* table,
                                  uint32_t last);
  // cost_sass(access_) with its lanes at `addr`: g.plain on them where the PC has one, else through
  // access_ (a copy of the lanes when addr is not access_.addr).
  AccessCost lanes_cost(const MemoGate& g, const std::array<uint32_t, kWarpSize>& addr);
  alignas(32) std::array<uint32_t, kWarpSize> rel_{};  // exact_cost()'s offsets of the warp at hand
  // An execution that skipped the memo, with a two-step cost (MemoGate::split): counted when it
  // came, finished and recorded when the next such execution comes (or the PCs or the launch
  // change, or the report is taken: finish_late()). Between the two steps the reader decodes the
  // next execution, so the check of the busiest bank's lanes no longer waits on their count. That
  // wait, not the check's instructions or its branch, was what the check cost a random trace's
  // report (tried on random lanes: the check with its result unused still cost most of it, the
  // check made independent of the count almost nothing). Its lanes are copied (the reader writes
  // the next ones in place); recording late changes nothing, as a PC's stats are sums, a maximum
  // and counts.
  struct LateCost {
    PcStats* stats = nullptr;  // none pending
    AccessCost (*finish)(const WarpAccess& a, const uint32_t* addr, BusiestLanes b) = nullptr;
    BusiestLanes count;
    WarpAccess access;  // op, width, atom, mask and the lanes
  };
  LateCost late_;
  void finish_late();  // inlined in on_warp()
  void flush_late();   // the same, out of line
};

// read_trace() (trace.hpp) compiled for the aggregator: on_warp() and on_repeat() inlined in the
// loop that decodes version 4's commonest executions, so no virtual call and no frame of their own
// per execution. The same calls in the same order, so the same report.
Result<TraceSummary> read_trace(const uint8_t* data, size_t size, TraceAggregator& sink);

// Reads `data` once into both the as-traced report and, when remaps are given, the what-if one.
struct TraceReports {
  TraceReport traced;
  TraceReport what_if;  // empty launches when no remap
};
Result<TraceReports> report_trace(const uint8_t* data, size_t size, const std::vector<ArrayRemap>& remaps = {});

// One row of the sorted table: a PC, or all PCs of one source line of one kernel.
struct ReportRow {
  std::string kernel;
  std::string where;   // "pc 0x1f0" or "file.cu:42"
  std::string opcode;  // opcodes joined with '+' when a line has several
  TraceOpKind kind = TraceOpKind::kLoad;
  bool modelled = true;
  std::string why;  // why not, when not modelled
  std::string note;  // a costed row's caveat (PcModel::note)
  uint64_t executions = 0, wavefronts = 0, ideal = 0;
  int worst_n_way = 0, typical_n_way = 0;
  uint64_t excess() const { return wavefronts - ideal; }
};
// Rows over all launches, sorted by excess wavefronts (then executions), most first.
std::vector<ReportRow> report_rows(const TraceReport& r, bool by_line);

}  // namespace bankscope
