// bank_model.hpp: one warp-wide shared-memory instruction -> the wavefronts it costs.
//
// The model in one sentence: the active lanes are split into phases (rules.hpp decides how); within
// a phase every bank serves one distinct word per wavefront, so a phase costs as many wavefronts as
// its busiest bank has distinct words; lanes that share a word are served together (broadcast on a
// load, one writer on a store). The instruction's cost is the sum over its phases.
//
// The two numbers Nsight Compute reports for one instruction are
//   wavefronts      = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
//   bank_conflicts  = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}
//                   = wavefronts - ideal_wavefronts
// where ideal_wavefronts is what the access needs at minimum (rules.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bank_math.hpp"
#include "status.hpp"

namespace bankscope {

// kLoad/kStore: LDS/STS of `width` bytes per lane. The other kinds (issue 11) are one warp
// instruction each on sm_90:
//   kLdmatrix  ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (LDSM): lanes 0..8*num-1 each
//              give the address of one 16-byte row; the other lanes' addresses are not used.
//   kStmatrix  stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (STSM, sm_90): the same rows.
//   kAtomic    atom.shared.{add,min,max,exch,cas} of 4 or 8 bytes per lane (ATOMS), and the
//              ATOMS.POPC.INC.32 of atomicAdd(&x, 1) with its result unused (AtomOp::kPopcInc, 4 bytes).
//   kLdgsts    cp.async.{ca,cg}.shared.global of 4, 8 or 16 bytes per lane (LDGSTS): the shared
//              destination side only.
enum class Op : uint8_t { kLoad, kStore, kLdmatrix, kStmatrix, kAtomic, kLdgsts };
inline constexpr Op kAllOps[] = {Op::kLoad,     Op::kStore,  Op::kLdmatrix,
                                 Op::kStmatrix, Op::kAtomic, Op::kLdgsts};

inline const char* op_name(Op op) {
  switch (op) {
    case Op::kLoad: return "ld";
    case Op::kStore: return "st";
    case Op::kLdmatrix: return "ldmatrix";
    case Op::kStmatrix: return "stmatrix";
    case Op::kAtomic: return "atom";
    case Op::kLdgsts: return "ldgsts";
  }
  return "?";
}

// True for the plain LDS/STS kinds, whose rules were measured on the H200 (sim/RULES.md R1-R6).
inline bool is_plain(Op op) { return op == Op::kLoad || op == Op::kStore; }
inline bool is_matrix(Op op) { return op == Op::kLdmatrix || op == Op::kStmatrix; }

// kPopcInc: atomicAdd(&shared[i], 1) with its result unused, which nvcc emits as ATOMS.POPC.INC.32
// (4 bytes only; with the result used it emits ATOMS.ADD); lanes
// on one word are one increment by their population count (R8b), unlike the others (R8).
// kCastSpin: one execution of ATOMS.CAST.SPIN(.64), the compare-and-swap of the retry loop that
// nvcc 13 emits for sm_90 for a float or 64-bit atomicAdd (and 64-bit atomicOr/Min/Max) on shared
// memory (R8c). It is not an instruction a pattern or a scenario can write (the loop is LDS, the
// update, this, and a branch back for the lanes that failed); traces cost each execution by it.
enum class AtomOp : uint8_t { kAdd, kMin, kMax, kExch, kCas, kPopcInc, kCastSpin };

inline const char* atom_name(AtomOp a) {
  switch (a) {
    case AtomOp::kAdd: return "add";
    case AtomOp::kMin: return "min";
    case AtomOp::kMax: return "max";
    case AtomOp::kExch: return "exch";
    case AtomOp::kCas: return "cas";
    case AtomOp::kPopcInc: return "popc_inc";
    case AtomOp::kCastSpin: return "cast_spin";
  }
  return "?";
}

// The names of atom_name(), as errors list them.
inline constexpr const char* kAtomNames = "\"add\", \"min\", \"max\", \"exch\", \"cas\" or \"popc_inc\"";

// atom_name()'s inverse: false for any other text.
inline bool atom_from_name(const std::string& s, AtomOp* out) {
  for (AtomOp a : {AtomOp::kAdd, AtomOp::kMin, AtomOp::kMax, AtomOp::kExch, AtomOp::kCas, AtomOp::kPopcInc}) {
    if (s == atom_name(a)) {
      *out = a;
      return true;
    }
  }
  return false;
}

// Bank geometry. Default: 32 banks x 4 bytes (sm_70 .. sm_90). Other values are for teaching
// (e.g. 16 banks to show an older or hypothetical part); the measured rules in rules.hpp only
// claim fidelity for the default.
struct BankConfig {
  int banks = kDefaultBanks;          // 1 .. 64
  int bank_bytes = kDefaultBankBytes;  // 4 or 8

  bool is_default() const { return banks == kDefaultBanks && bank_bytes == kDefaultBankBytes; }
};

Result<BankConfig> make_bank_config(int banks, int bank_bytes);

// One warp instruction: lane -> byte address, for the lanes in `mask`.
struct WarpAccess {
  Op op = Op::kLoad;
  int width = 4;  // bytes per lane: 1, 2, 4, 8 or 16 (ldmatrix/stmatrix: 16, one row per lane)
  uint32_t mask = 0xffffffffu;
  alignas(64) std::array<uint32_t, kWarpSize> addr{};  // byte offset into shared memory, lane 0 first
  int matrices = 0;          // ldmatrix/stmatrix: .x1, .x2 or .x4 (1, 2, 4); 0 for other kinds
  bool trans = false;        // ldmatrix/stmatrix: .trans
  AtomOp atom = AtomOp::kAdd;  // atom: the operation
  bool bypass_l1 = false;    // ldgsts: .cg (16 bytes only) instead of .ca
};

// The lanes whose addresses the instruction uses: `mask`, and for ldmatrix/stmatrix only lanes
// 0..8*num-1 (documented by NVIDIA, PTX ISA "ldmatrix": the other lanes' addresses are unused).
inline uint32_t used_lanes(const WarpAccess& a) {
  if (!is_matrix(a.op)) return a.mask;
  const uint32_t rows = a.matrices >= 4 ? 0xffffffffu : ((uint32_t{1} << (8 * a.matrices)) - 1u);
  return a.mask & rows;
}

// One line saying why an instruction kind is not one instruction on sm_90, or "" when it is.
// Checked in the SASS of nvcc 13.0 -arch=sm_90 (tests/conformance/sass_v2.txt): 64-bit shared
// atom add/min/max compile to LDS.64 plus an ATOMS.CAST.SPIN.64 compare-and-swap loop.
std::string not_one_instruction(const WarpAccess& a);

// Checks width and alignment. A misaligned address is a user error (on the GPU it faults with
// "misaligned address"), reported with the lane and the address. ldmatrix/stmatrix: num 1, 2 or 4,
// 16-byte aligned row addresses, and every row lane 0..8*num-1 in the mask (the instruction is
// .sync.aligned: the whole warp executes it). atom: width 4 or 8 and one instruction on sm_90.
// ldgsts: width 4, 8 or 16; .cg only with 16.
Result<WarpAccess> validate(const WarpAccess& access, const BankConfig& cfg);

// validate(access, cfg).ok(), without building the copy or the message: for loops that only ask
// (the trace report asks once per atomic, ldmatrix or cp.async execution it costs; validate()'s
// copy of the access was a tenth of `report`'s instructions on the CUB device trace, callgrind).
bool access_valid(const WarpAccess& access);

// What ncu counts for one instruction. Cheap to compute: used for per-launch totals.
struct AccessCost {
  int wavefronts = 0;
  int ideal_wavefronts = 0;
  int n_way = 0;  // most distinct words any bank must serve within one phase (1 = conflict-free)
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

// The whole picture for one instruction: what the visualizer draws and `explain` prints.
struct LaneDetail {
  bool active = false;
  uint32_t addr = 0;
  int words = 0;                 // bank-width words the lane touches (1 for width <= bank_bytes)
  std::array<uint32_t, 4> word{};  // word index (byte address / bank_bytes)
  std::array<int, 4> bank{};
  int phase = -1;
  int wavefront = -1;  // the wavefront (0-based, whole instruction) in which the lane has its data
  // ATOMS.CAST.SPIN (R8c): the lane's swap fails in this execution (its bank went to a lower lane of
  // its phase, or an earlier phase swapped its word); it retries in the loop's next execution.
  bool retries = false;
};

struct WavefrontDetail {
  int phase = 0;
  uint32_t lanes = 0;   // lanes whose data is complete in this wavefront
  uint64_t banks = 0;   // banks that serve a word in this wavefront
  // (bank, word) pairs served in this wavefront.
  std::vector<std::pair<int, uint32_t>> words;
};

struct AccessReport {
  WarpAccess access;
  BankConfig cfg;
  std::array<LaneDetail, kWarpSize> lanes{};
  std::vector<uint32_t> phase_masks;             // lanes in each phase, in issue order
  std::vector<std::vector<uint32_t>> bank_words;  // per bank: distinct words over the instruction
  std::vector<WavefrontDetail> wavefronts;
  AccessCost cost;
  // Fraction of the wavefronts' bank slots that deliver requested data, as ncu's "efficiency":
  // ideal_wavefronts / wavefronts.
  double efficiency() const {
    return cost.wavefronts == 0 ? 1.0 : double(cost.ideal_wavefronts) / cost.wavefronts;
  }
};

// Both assume `access` passed validate(); they assert otherwise.
AccessCost cost(const WarpAccess& access, const BankConfig& cfg = {});

// What Nsight Compute's instruction-level counters count for one instruction
// (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_*: the kernel is patched and the
// wavefronts are computed from the lanes' addresses) and its source view's "L1 Wavefronts Shared
// Ideal", where they differ from the hardware l1tex__ counters that cost() predicts (R11, measured
// on the H200, sim/RULES.md): 8- and 16-byte loads that R6 merges only where the merged phase needs
// one wavefront, and an ideal of min(wavefronts, ceil(active lanes x width / 128)) for loads;
// ATOMS.CAST.SPIN's ideal is twice ceil(active lanes x width / 128). Everything else: cost().
// Trace reports use it: their per-launch totals carry the smsp__sass_ names. Inline: for every other
// access (most of a trace) it is cost() itself, with no second call (measured: a random trace's
// report took 11% more instructions per warp through an out-of-line wrapper).
AccessCost cost_sass_wide_or_atomic(const WarpAccess& access, const BankConfig& cfg);
inline AccessCost cost_sass(const WarpAccess& access, const BankConfig& cfg = {}) {
  if ((access.op == Op::kLoad && access.width >= 8) || access.op == Op::kAtomic) {
    return cost_sass_wide_or_atomic(access, cfg);
  }
  return cost(access, cfg);  // 1-4-byte loads (one phase: R4's ideal is 1 too) and stores
}
// cost() of n instructions that share op and width and differ in addresses and mask (the batch
// path of the Python package): row i is lanes' byte offsets addr[32 i .. 32 i + 31] under
// masks[one_mask ? 0 : i], otherwise `proto`. Each row is first checked as validate() and the JSONL
// reader check it (every offset below `limit`, the active lanes aligned to the width); writes
// wavefronts[i] and bank_conflicts[i] and returns the number of rows costed, so a return value
// below n names the first bad row. `proto` must pass validate() and be a plain LDS/STS of the
// default geometry. One dispatch for the whole batch; each row goes through the same code as cost().
size_t cost_rows(const WarpAccess& proto, const uint32_t* addr, const uint32_t* masks, bool one_mask, size_t n,
                 uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts);
// cost()'s implementations for LDS/STS of the default geometry (every other access takes the
// reference route, run<> as simulate(), on every path). All give the same numbers:
//   kAvx512    AVX-512 F/CD/BW/VL/DQ + VPOPCNTDQ (Intel Ice Lake and later, AMD Zen 4 and later)
//   kAvx2      AVX2 + BMI1/BMI2 + POPCNT + LZCNT (Intel Haswell and later, AMD Zen and later)
//   kPortable  the target's baseline: GCC/Clang vector extensions, and on x86-64 SSE2 intrinsics
//              (every other CPU, and non-x86 builds)
// cost() takes the best one this CPU and build support, chosen once at run time, unless the
// environment variable BANKSCOPE_SIMD names one (avx512, avx2 or portable): tests and benches force
// a path with it. A BANKSCOPE_SIMD that names no path, or a path this CPU or build lacks, is a
// one-line error on stderr and exit status 2 at the first cost() (never a silent fallback: cost()
// has no error channel, and a forced path must be the path that runs). The older
// BANKSCOPE_NO_AVX512 (any value) still works: the best path other than kAvx512.
// "Best" is measured, not assumed. On an Intel Xeon (the H200 host, family 6 model 207) kAvx512 ran
// 14-18 M warps/s at every width and pattern; kAvx2 ran 46-152 M on strided warps and 55-63 M on
// random 1- to 4-byte ones, but 20.7 / 12.3 M on random 8- / 16-byte ones (kAvx512: 16.1 / 15.3)
// (assets/results/h200/2026-12-03b/model_bench_h200_host.txt): an Intel CPU takes kAvx2, ahead
// everywhere but random 16-byte warps, and kAvx512 only when forced. On AMD's Zen 4 (commit aa419b4's model_bench.txt) kAvx512 was ahead on
// random 4-byte warps (59 M/s against the AVX2 code of then, 35) and behind on strided ones (58
// against 144); AMD CPUs keep it until a Zen 4 measures today's AVX2 code against it.
enum class CostPath : uint8_t { kAvx512, kAvx2, kPortable };
inline constexpr CostPath kCostPaths[] = {CostPath::kAvx512, CostPath::kAvx2, CostPath::kPortable};
const char* cost_path_name(CostPath p);
// "avx512", "avx2" or "portable"; anything else is an error naming BANKSCOPE_SIMD.
Result<CostPath> parse_cost_path(const std::string& name);
// Whether this CPU and this build can run path `p` (kPortable: always).
bool cost_path_supported(CostPath p);
// The choice from what the CPU has (above): preferred_cost_path(kAvx512 usable and not refused by
// BANKSCOPE_NO_AVX512, kAvx2 usable, the CPU is AMD's).
CostPath preferred_cost_path(bool avx512, bool avx2, bool amd);
// Whether the CPU's vendor (CPUID leaf 0) is "AuthenticAMD"; false off x86-64.
bool cpu_is_amd();
// The path cost() uses (see above).
CostPath cost_path();
// cost() / cost_rows() on a given path, for tests and benches that compare the paths in one
// process. `p` must be supported (asserted; a release build then takes kPortable).
AccessCost cost_on(CostPath p, const WarpAccess& access, const BankConfig& cfg = {});
size_t cost_rows_on(CostPath p, const WarpAccess& proto, const uint32_t* addr, const uint32_t* masks, bool one_mask,
                    size_t n, uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts);
// cost_sass() of a plain LDS/STS of the default geometry whose op and width are known before its
// warps are: the function path `p` takes for them, chosen once, called as f(a, addr) with a's op,
// width and mask and the lanes' byte offsets at `addr` (a.addr is not read). The same numbers as
// cost_sass(a) with a.addr at addr; `a` must pass validate() with them (not checked). For a caller
// that costs many warps of one instruction (a trace's report: measured, the choice per call and the
// copy of the lanes into a.addr took about 40 instructions per random warp). Null for any other
// access (a load of 8 or 16 bytes, whose cost_sass() is not cost(), and the other ops).
// `scattered`: for warps that are rarely evenly spaced (a trace PC whose lanes do not repeat): a
// function that does not look for a constant stride first, where the path has one (AVX2, 1-4
// bytes); its numbers are the same for every warp.
using PlainCost = AccessCost (*)(const WarpAccess& a, const uint32_t* addr);
PlainCost plain_cost_fn(CostPath p, Op op, int width, bool scattered = false);
// The same for a shared atomic of the default geometry with `atom` and `width` (a's op is kAtomic,
// its atom `atom`): R8b's POPC.INC and R8's other 4-byte atomics but CAS and CAST.SPIN, whose
// cost_sass() takes no more than the lanes (the reader's checks of alignment and range are
// validate()'s for them). Null for every other atomic.
PlainCost atomic_cost_fn(CostPath p, AtomOp atom, int width, bool scattered = false);
// A PlainCost in two steps, for a caller with other work to put between them (a trace's report
// finishes an execution's cost while it counts the next one's, so that the second step's check
// does not wait on the count: TraceAggregator::late_). count(a, addr, copy): the most active lanes
// on one bank (of one phase) and those lanes, and the 32 lanes copied to `copy` (for the second step,
// when the caller's lanes are gone by then); finish(a, copy, count(a, addr, copy)) returns f(a, addr).
// a's mask, op and width must be the same at both steps. Where f has no such form
// (every function but plain_cost_fn()'s scattered choice of 1-4 bytes on the AVX2 path), both null.
struct BusiestLanes {
  int n = 0;
  uint32_t lanes = 0;
};
struct SplitCost {
  BusiestLanes (*count)(const WarpAccess& a, const uint32_t* addr, uint32_t* copy) = nullptr;
  AccessCost (*finish)(const WarpAccess& a, const uint32_t* addr, BusiestLanes b) = nullptr;
};
SplitCost split_cost_fn(PlainCost f);
// cost_path_name(cost_path()).
const char* cost_implementation();
AccessReport simulate(const WarpAccess& access, const BankConfig& cfg = {});

}  // namespace bankscope
