// trace_report.cpp: per-PC and per-launch costs of a trace, and the what-if remapping.
#include "trace_report.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "ldgsts.hpp"
#include "trace_read.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define BANKSCOPE_REPORT_X86 1
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers (as bank_model.cpp)
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

namespace bankscope {

namespace {
// Copies a warp's lanes with the vector width cost()'s path loads them with (the reader stored them
// so too, trace.cpp's unpack): cost()'s loads are then forwarded from the stores instead of waiting
// for them to retire, which 16-byte stores under 64-byte loads do (measured: the first load of the
// lanes was a third of the report's time outside cost() and the reader).
#ifdef BANKSCOPE_REPORT_X86
__attribute__((target("avx512f"))) void copy_lanes_avx512(uint32_t* dst, const uint32_t* src) {
  _mm512_storeu_si512(dst, _mm512_loadu_si512(src));
  _mm512_storeu_si512(dst + 16, _mm512_loadu_si512(src + 16));
}
__attribute__((target("avx2"))) void copy_lanes_avx2(uint32_t* dst, const uint32_t* src) {
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8 * k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * k)));
  }
}
#endif
#ifdef BANKSCOPE_REPORT_X86
// Shared by the memo keys below: 1 << lane for lanes 8k..8k+7; one lane's term of the hash
// (lane_term(), from its value already xor-ed with its lane's and source's mix); the sum of the
// eight 32-bit elements.
__attribute__((target("avx2"), always_inline)) inline __m256i lane_bits_avx2(int k) {
  return _mm256_sllv_epi32(_mm256_set1_epi32(1),
                           _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(8 * k)));
}
__attribute__((target("avx2"), always_inline)) inline __m256i hash_term_avx2(__m256i mixed) {
  const __m256i v = _mm256_mullo_epi32(mixed, _mm256_set1_epi32(static_cast<int>(0x85EBCA6Bu)));
  return _mm256_xor_si256(v, _mm256_srli_epi32(v, 16));
}
// Whether 32 offsets held as four vectors equal the 32 at `rel`.
__attribute__((target("avx2"), always_inline)) inline bool rel_equal_avx2(const __m256i (&r)[4], const uint32_t* rel) {
  __m256i d = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    d = _mm256_or_si256(d, _mm256_xor_si256(r[k], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rel + 8 * k))));
  }
  return _mm256_testz_si256(d, d) != 0;
}
__attribute__((target("avx2"), always_inline)) inline uint32_t sum_avx2(__m256i h) {
  __m128i t = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(t));
}
// The lanes whose value is 0, a bit each (a .ca cp.async's null sources).
__attribute__((target("avx2"))) uint32_t zero_lanes_avx2(const uint32_t* v) {
  uint32_t z = 0;
  for (int k = 0; k < 4; ++k) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 8 * k));
    z |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, _mm256_setzero_si256()))))
         << (8 * k);
  }
  return z;
}
// kind_memo()'s key with AVX2 (its portable loops, which the compiler vectorizes with SSE2 and no
// 32-bit multiply: measured, 900 instructions a lookup on cuBLAS SGEMM's cp.async): for the lanes
// of mask, rel = addr - b and, for cp.async, src = source - sb (1 for a lane of `null`), 0
// elsewhere; returns their hash, the portable lane_term() summed.
__attribute__((target("avx2"))) uint32_t kind_key_avx2(const uint32_t* addr, const uint32_t* source, uint32_t mask,
                                                       uint32_t null, bool ldgsts, uint32_t b, uint32_t sb, uint32_t* rel,
                                                       uint32_t* src) {
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b)), vsb = _mm256_set1_epi32(static_cast<int>(sb));
  const __m256i vmask = _mm256_set1_epi32(static_cast<int>(mask)), vnull = _mm256_set1_epi32(static_cast<int>(null));
  const __m256i keep_src = _mm256_set1_epi32(ldgsts ? -1 : 0);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i k1 = _mm256_set1_epi32(static_cast<int>(0x9E3779B9u));
  const __m256i k3 = _mm256_set1_epi32(static_cast<int>(0xC2B2AE3Du));
  __m256i h = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    const __m256i bit = lane_bits_avx2(k);
    const __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(vmask, bit), bit);
    const __m256i is_null = _mm256_cmpeq_epi32(_mm256_and_si256(vnull, bit), bit);
    const __m256i r =
        _mm256_and_si256(_mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k)), vb), on);
    __m256i q = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(source + 8 * k)), vsb);
    q = _mm256_or_si256(_mm256_andnot_si256(is_null, q), _mm256_and_si256(is_null, one));
    q = _mm256_and_si256(q, _mm256_and_si256(on, keep_src));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rel + 8 * k), r);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(src + 8 * k), q);
    const __m256i mixed = _mm256_xor_si256(_mm256_xor_si256(r, _mm256_mullo_epi32(bit, k1)), _mm256_mullo_epi32(q, k3));
    h = _mm256_add_epi32(h, hash_term_avx2(mixed));
  }
  return sum_avx2(h);
}
__attribute__((target("avx2"))) bool lanes_equal_avx2(const uint32_t* a, const uint32_t* b) {
  __m256i d = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    d = _mm256_or_si256(d, _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 8 * k)),
                                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 8 * k))));
  }
  return _mm256_testz_si256(d, d) != 0;
}
#endif
void copy_lanes(CostPath simd, std::array<uint32_t, kWarpSize>& dst, const std::array<uint32_t, kWarpSize>& src) {
#ifdef BANKSCOPE_REPORT_X86
  if (simd == CostPath::kAvx512) return copy_lanes_avx512(dst.data(), src.data());
  if (simd == CostPath::kAvx2) return copy_lanes_avx2(dst.data(), src.data());
#endif
  (void)simd;
  dst = src;
}
uint32_t zero_lanes(CostPath simd, const std::array<uint32_t, kWarpSize>& v) {
#ifdef BANKSCOPE_REPORT_X86
  if (simd == CostPath::kAvx2 || simd == CostPath::kAvx512) return zero_lanes_avx2(v.data());
#endif
  (void)simd;
  uint32_t z = 0;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) z |= static_cast<uint32_t>(v[lane] == 0) << lane;
  return z;
}
}  // namespace

int PcStats::typical_n_way() const {
  int best = 0;
  for (int k = 1; k <= kWarpSize; ++k)
    if (n_way_count[k] > n_way_count[best]) best = k;
  return best;
}

namespace {

Result<int> parse_int(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
    return Error{what + ": '" + s + "' is not a non-negative integer"};
  }
  return std::stoi(s);
}

}  // namespace

Result<SharedArray> parse_array_spec(const std::string& spec) {
  const std::string where = "--array '" + spec + "'";
  const size_t at = spec.find('@');
  const size_t colon = spec.find(':');
  const size_t br = spec.find('[');
  if (at == std::string::npos || colon == std::string::npos || br == std::string::npos || !(at < colon && colon < br) ||
      at == 0) {
    return Error{where + ": expected NAME@BYTE_OFFSET:TYPE[ROWS][COLS], e.g. tile@0:float[32][32]"};
  }
  const std::string name = spec.substr(0, at);
  auto base = parse_int(spec.substr(at + 1, colon - at - 1), where + ": byte offset");
  if (!base) return base.error();
  const auto type = parse_element_type(spec.substr(colon + 1, br - colon - 1));
  if (!type) return Error{where + ": unknown element type '" + spec.substr(colon + 1, br - colon - 1) + "'"};
  std::vector<int> dims;
  size_t p = br;
  while (p < spec.size()) {
    const size_t close = spec.find(']', p);
    if (spec[p] != '[' || close == std::string::npos) return Error{where + ": dimensions must look like [32][32]"};
    auto d = parse_int(spec.substr(p + 1, close - p - 1), where + ": dimension");
    if (!d) return d.error();
    dims.push_back(*d);
    p = close + 1;
  }
  if (dims.empty() || dims.size() > 2) return Error{where + ": one or two dimensions"};
  TileShape shape;
  shape.rank = static_cast<int>(dims.size());
  shape.rows = dims.size() == 1 ? 1 : dims[0];
  shape.cols = dims.back();
  auto a = make_shared_array(name, *type, shape, PhysicalLayout{0}, static_cast<uint32_t>(*base));
  if (!a) return with_context(where, a.error());
  return a;
}

Result<SharedArray> apply_layout_spec(const SharedArray& array, const std::string& spec) {
  const std::string where = "--layout '" + spec + "'";
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return Error{where + ": expected NAME:stride=N, NAME:xor=M, NAME:swizzle=B,M,S or NAME:tma_swizzle=32B|64B|128B"};
  if (spec.substr(0, colon) != array.name) {
    return Error{where + ": no --array named '" + spec.substr(0, colon) + "'"};
  }
  PhysicalLayout layout;
  layout.row_stride = array.shape.cols;
  std::string rest = spec.substr(colon + 1);
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    const std::string part = rest.substr(0, semi);
    rest = semi == std::string::npos ? "" : rest.substr(semi + 1);
    const size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : part.substr(eq + 1);
    if (key == "stride") {
      auto v = parse_int(val, where + ": stride");
      if (!v) return v.error();
      layout.row_stride = *v;
    } else if (key == "xor") {
      auto v = parse_int(val, where + ": xor");
      if (!v) return v.error();
      layout.xor_mask = *v;
    } else if (key == "swizzle") {
      int f[3];
      std::string s = val;
      for (int i = 0; i < 3; ++i) {
        const size_t comma = s.find(',');
        if ((i < 2) == (comma == std::string::npos)) return Error{where + ": swizzle=B,M,S"};
        auto v = parse_int(s.substr(0, comma), where + ": swizzle");
        if (!v) return v.error();
        f[i] = *v;
        s = comma == std::string::npos ? "" : s.substr(comma + 1);
      }
      layout.swizzle = Swizzle{f[0], f[1], f[2]};
    } else if (key == "tma_swizzle") {
      auto span = parse_tma_swizzle(val);
      if (!span) return with_context(where + ": tma_swizzle", span.error());
      layout.tma_span = *span;  // a stride=, xor= or swizzle= beside it is refused by make_shared_array
    } else {
      return Error{where + ": unknown key '" + key + "' (stride, xor, swizzle, tma_swizzle)"};
    }
  }
  auto a = make_shared_array(array.name, array.type, array.shape, layout, array.base);
  if (!a) return with_context(where, a.error());
  return a;
}

void TraceAggregator::sum_launch() {
  if (report_.launches.empty()) return;
  LaunchReport& l = report_.launches.back();
  for (const PcStats& s : l.pcs) {
    l.executions_by_kind[static_cast<size_t>(s.pc.kind)] += s.executions;
    // Every execution record() or record_n() counted is in n_way_count once (an empty mask's at 0),
    // and is one instruction, as OpTotals::add(cost, 1) counts it.
    uint64_t n = 0;
    for (const uint64_t c : s.n_way_count) n += c;
    if (n == 0) continue;
    OpTotals t;
    t.instructions = t.active_instructions = n;
    t.wavefronts = s.wavefronts;
    t.ideal = s.ideal;
    t.conflicts = s.wavefronts - s.ideal;  // the sum of each execution's wavefronts - ideal
    l.by_kind[static_cast<size_t>(s.pc.kind)] += t;
  }
}

void TraceAggregator::on_launch(const TraceLaunch& l) {
  flush_late();
  flush_repeats();
  sum_launch();
  gates_.clear();
  LaunchReport r;
  r.launch = l;
  report_.launches.push_back(std::move(r));
}

Op op_of(TraceOpKind k) {
  switch (k) {
    case TraceOpKind::kLoad: return Op::kLoad;
    case TraceOpKind::kStore: return Op::kStore;
    case TraceOpKind::kAtomic: return Op::kAtomic;
    case TraceOpKind::kLdsm: return Op::kLdmatrix;
    case TraceOpKind::kStsm: return Op::kStmatrix;
    case TraceOpKind::kLdgsts: return Op::kLdgsts;
    case TraceOpKind::kOther: break;
  }
  return Op::kLoad;
}

namespace {
const std::string kMeasuredAtoms =
    "R8 covers ADD, MIN, MAX, EXCH, CAS, and AND, OR, XOR, INC, DEC of 4 bytes; R8b POPC.INC.32; R8c CAST.SPIN";

bool has_part(const std::string& opcode, const char* part) {
  // "ATOMS.CAST.SPIN" has the parts ATOMS, CAST, SPIN.
  size_t start = 0;
  while (start <= opcode.size()) {
    const size_t dot = opcode.find('.', start);
    const size_t end = dot == std::string::npos ? opcode.size() : dot;
    if (opcode.compare(start, end - start, part) == 0) return true;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return false;
}
}  // namespace

PcModel pc_model(const TracePc& pc) {
  PcModel m;
  m.access.op = op_of(pc.kind);
  m.access.width = pc.width;
  const std::string& op = pc.opcode;
  switch (pc.kind) {
    case TraceOpKind::kLoad:
    case TraceOpKind::kStore:
      m.costed = true;
      return m;
    case TraceOpKind::kLdsm:
    case TraceOpKind::kStsm: {
      // SASS "LDSM.16.M88.4" / "LDSM.16.MT88.2" / "LDSM.16.M88" (x1); the API's name "LDSM.x4".
      // .trans does not change the shared-memory side (R7), so only the count matters.
      int num = 1;
      if (const size_t x = op.find(".x"); x != std::string::npos) {
        num = std::atoi(op.c_str() + x + 2);
      } else if (has_part(op, "2")) {
        num = 2;
      } else if (has_part(op, "4")) {
        num = 4;
      }
      if (num != 1 && num != 2 && num != 4) {
        m.why = "matrix count of '" + op + "' unknown";
        return m;
      }
      m.access.matrices = num;
      m.access.width = 16;
      m.access.trans = op.find("MT88") != std::string::npos;
      m.costed = true;
      return m;
    }
    case TraceOpKind::kAtomic: {
      // R8 was measured for add, min, max, exch, cas (ATOMS.ADD, .MIN, .MAX, .EXCH, .CAS) and, with
      // kernels/probes/atom_cast.cu (2026-12-01x/y), .AND, .OR, .XOR, .INC, .DEC (the operation is
      // irrelevant: costed as add); R8b ATOMS.POPC.INC.32; R8c ATOMS.CAST.SPIN(.64), one execution of
      // the retry loop of a float or 64-bit atomicAdd.
      // A ".64" opcode must come with 8-byte lanes, any other with 4 (the measured widths).
      const bool width_agrees = pc.width == (has_part(op, "64") ? 8 : 4);
      const bool logic = has_part(op, "AND") || has_part(op, "OR") || has_part(op, "XOR") || has_part(op, "INC") ||
                         has_part(op, "DEC");
      if (has_part(op, "POPC") && has_part(op, "INC") && !has_part(op, "64") && pc.width == 4) {
        m.access.atom = AtomOp::kPopcInc;
      } else if (has_part(op, "CAST") && has_part(op, "SPIN") && width_agrees) {
        m.access.atom = AtomOp::kCastSpin;
      } else if (has_part(op, "CAST") || has_part(op, "POPC") || has_part(op, "SPIN") ||
                 (logic && (pc.width != 4 || has_part(op, "64")))) {
        m.why = "no measured rule for '" + op + "' of " + std::to_string(pc.width) + " bytes (" + kMeasuredAtoms + ")";
        return m;
      } else if (has_part(op, "CAS")) {
        m.access.atom = AtomOp::kCas;
      } else if (has_part(op, "ADD") || logic) {
        m.access.atom = AtomOp::kAdd;
      } else if (has_part(op, "MIN")) {
        m.access.atom = AtomOp::kMin;
      } else if (has_part(op, "MAX")) {
        m.access.atom = AtomOp::kMax;
      } else if (has_part(op, "EXCH")) {
        m.access.atom = AtomOp::kExch;
      } else {
        m.why = op.rfind("ATOMS.", 0) == 0 ? "no measured rule for '" + op + "' (" + kMeasuredAtoms + ")"
                                           : "atomic operation unknown without the SASS opcode";
        return m;
      }
      m.costed = true;
      return m;
    }
    case TraceOpKind::kLdgsts:
      // SASS "LDGSTS.E.BYPASS.LTC128B.128" is .cg, "LDGSTS.E.LTC128B.64" .ca. The API's own name
      // ("LDGSTS.128") does not say which.
      if (op.rfind("LDGSTS.E", 0) != 0) {
        m.why = "cp.async .ca or .cg unknown without the SASS opcode";
        return m;
      }
      // R9 (sim/ldgsts.hpp) costs both from the shared destinations and each lane's global source,
      // which the trace carries (version 4: in the execution; 2 and 3: an 'S' record); a source of 0
      // is a zero-fill lane's null pointer. An execution traced without sources is refused in
      // on_warp(): no source is invented for it.
      m.access.bypass_l1 = has_part(op, "BYPASS");
      m.costed = true;
      // Measured on the H200 (assets/results/h200/2026-12-01o, kernels/probes/ldgsts_guard.cu): an
      // LDGSTS.E.BYPASS guarded by @P0 counts 0 wavefronts, 0 ideal and 0 L2 sectors in Nsight
      // Compute's instrumented (smsp__sass_) counters although its lanes are predicated on and
      // the copy happens; the same copy under @P1 counts R9's 4, and an @P0-guarded .ca LDGSTS
      // counts too. cuBLAS HGEMM's two @P0 .cg PCs are the 6,144 wavefronts by which R9 was above
      // ncu (65,536 vs 59,392, 2026-12-01l). The report counts what ncu counts, and says so.
      if (m.access.bypass_l1 && pc.guard == "@P0") {
        m.ncu_counts_zero = true;
        m.note = "@P0-guarded LDGSTS.BYPASS: Nsight Compute's instrumented counters count no wavefront for it "
                 "(measured; the copy happens), so neither does this report";
      }
      return m;
    case TraceOpKind::kOther:
      break;
  }
  m.why = "not a shared-memory access the model covers";
  return m;
}

void TraceAggregator::on_pc(const TracePc& pc) {
  flush_late();  // the PC's stats move when pcs grows
  PcStats s;
  s.pc = pc;
  s.model = pc_model(pc);
  MemoGate g;
  if (s.model.costed && !s.model.ncu_counts_zero) {
    g.repeat_route = pc.kind != TraceOpKind::kLdgsts ? 1 : s.model.access.bypass_l1 ? 2 : 3;
    if (pc.kind == TraceOpKind::kLoad || pc.kind == TraceOpKind::kStore) {
      g.plain = plain_cost_fn(simd_, s.model.access.op, s.model.access.width);
      g.scattered = plain_cost_fn(simd_, s.model.access.op, s.model.access.width, true);
      g.split = split_cost_fn(g.scattered);
      g.common = remaps_.empty();
    } else if (pc.kind == TraceOpKind::kAtomic) {
      // The atomics whose cost is a function of the lanes alone (atomic_cost_fn(): CUB's histogram
      // and radix sort ATOMS.ADD and ATOMS.POPC.INC) take the LDS/STS route: measured, the route of
      // the other kinds (kind_cost(), access_valid(), cost_sass()'s dispatch) was about 500
      // instructions per execution of CUB's atomics.
      g.plain = atomic_cost_fn(simd_, s.model.access.atom, s.model.access.width);
      g.scattered = atomic_cost_fn(simd_, s.model.access.atom, s.model.access.width, true);
      g.split = split_cost_fn(g.scattered);
      g.common = remaps_.empty() && g.plain != nullptr;
    }
  }
  report_.launches.back().pcs.push_back(std::move(s));
  gates_.push_back(g);
}

uint32_t remap_address(const std::vector<ArrayRemap>& remaps, uint64_t reserved, uint32_t addr) {
  for (const ArrayRemap& m : remaps) {
    const uint64_t start = reserved + m.traced.base;
    const uint64_t elem = static_cast<uint64_t>(m.traced.elem_bytes());
    const uint64_t size = uint64_t(m.traced.shape.rows) * m.traced.shape.cols * elem;
    if (addr < start || addr >= start + size) continue;
    // Traced array is dense row-major: offset -> (row, col, byte within the element).
    const uint64_t off = addr - start;
    const uint64_t idx = off / elem;
    const int64_t row = static_cast<int64_t>(idx / m.traced.shape.cols);
    const int64_t col = static_cast<int64_t>(idx % m.traced.shape.cols);
    return static_cast<uint32_t>(reserved + m.replaced.byte_address(row, col) + off % elem);
  }
  return addr;
}

uint32_t TraceAggregator::remap(uint32_t addr) const {
  return remap_address(remaps_, report_.launches.back().launch.reserved_bytes, addr);
}

AccessCost TraceAggregator::cost_plain(uint32_t pc_index) {
  const std::array<uint32_t, kWarpSize>& a = access_.addr;
  if (access_.mask != 0xffffffffu) return exact_cost(pc_index, access_.addr);
  const uint32_t stride = a[1] - a[0];  // modulo 2^32, as the addresses are
  uint32_t off = 0;
  for (int lane = 2; lane < kWarpSize; ++lane) off |= a[lane] - a[lane - 1] - stride;
  // |stride| < 2^26 keeps the key exact (31 strides span the 32-bit space otherwise).
  const int64_t sstride = static_cast<int32_t>(stride);
  if (off != 0 || sstride >= (int64_t{1} << 26) || sstride <= -(int64_t{1} << 26)) {
    return exact_cost(pc_index, access_.addr);
  }
  return memo_cost(sstride, a[0], nullptr);
}

namespace {
// The part of the memos' keys (exact_cost()'s and memo_cost()'s) that tells the atomics on the
// LDS/STS route apart (on_pc(): R8 and R8b cost the same lanes differently), 0 for LDS/STS, whose
// access_.atom is whatever the last atomic left.
inline uint32_t atom_key(const WarpAccess& a) {
  return a.op == Op::kAtomic ? 1u + static_cast<uint32_t>(a.atom) : 0u;
}

constexpr uint32_t kLaneBit[kWarpSize] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,  1u << 8,  1u << 9,  1u << 10,
    1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21,
    1u << 22, 1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

// One lane's term of the memos' hash: its offset (and a cp.async lane's source offset, 0 for other
// kinds) mixed with a per-lane constant, multiplied, then the high bits folded down: without the fold
// the sum is linear in the lanes' offsets, and the fragment rows {32, 48} and {64, 80} of the GEMM
// bench shared a slot, each evicting the other (measured: 1.6 M misses in 2 M lookups).
inline uint32_t lane_term(uint32_t lane, uint32_t rel, uint32_t src) {
  uint32_t v = (rel ^ (kLaneBit[lane] * 0x9E3779B9u) ^ (src * 0xC2B2AE3Du)) * 0x85EBCA6Bu;
  return v ^ (v >> 16);
}

// The memos' slot of a key: the lanes' hash, the mask and the instruction's fields, mixed.
inline uint32_t memo_slot(uint32_t h, uint32_t mask, uint32_t meta, size_t slots) {
  uint64_t x = (uint64_t{h} << 32 | mask) ^ (uint64_t{meta} * 0xC2B2AE3D27D4EB4Full);
  x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<uint32_t>((x >> 40) & (slots - 1));
}
}  // namespace

inline void TraceAggregator::watch_hits(MemoGate& g) {  // inline: a call per lookup otherwise
  if (g.lookups == g.window) {
    // Fewer than a quarter hit: skip the memo for a while, then probe again. The first window is 64
    // lookups with a skip of 1024 executions (a PC with fewer than 1024 executions in its launch,
    // as most of CUB's atomics have, paid for the memo at every one; a wrong early skip loses at
    // most the hits of 1024 executions), every later one 1024 lookups with a skip of 65,536 (of
    // 17,408 before round 17: the probes were 10 of a random trace's 480 instructions per execution).
    if (g.hits * 4 < g.window) g.skip = g.window == MemoGate::kFirstWindow ? 1024u : 1u << 16;
    g.window = 1024;
    g.lookups = g.hits = 0;
  }
}

inline AccessCost TraceAggregator::lanes_cost(const MemoGate& g, const std::array<uint32_t, kWarpSize>& addr) {
  if (g.plain != nullptr) return g.plain(access_, addr.data());
  if (&addr != &access_.addr) copy_lanes(simd_, access_.addr, addr);
  return cost_sass(access_);
}

#ifdef BANKSCOPE_REPORT_X86
// The portable route's steps (exact_cost(), exact_lookup()) with the offsets kept in four vectors
// from the subtraction to the entry's compare, and the same hash (lane_term() summed; the portable
// loop has no 32-bit multiply in SSE2). Measured: the route through rel_ (stored, then read back by
// the hash and the compare, each a call) took about 200 instructions a lookup on the CUB device
// trace, a sixth of its report.
__attribute__((target("avx2"))) uint64_t TraceAggregator::exact_find_avx2(const uint32_t* addr, uint32_t mask,
                                                                         uint32_t b, uint32_t meta, ExactEntry* table,
                                                                         uint32_t last) {
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b));
  const __m256i vmask = _mm256_set1_epi32(static_cast<int>(mask));
  __m256i r[4];
  for (int k = 0; k < 4; ++k) {
    const __m256i bit = lane_bits_avx2(k);
    const __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(vmask, bit), bit);
    r[k] = _mm256_and_si256(_mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k)), vb), on);
  }
  const ExactEntry& l = table[last];
  if (rel_equal_avx2(r, l.rel.data()) && l.meta == meta && l.mask == mask) return uint64_t{last} << 32;
  const __m256i k1 = _mm256_set1_epi32(static_cast<int>(0x9E3779B9u));
  __m256i h = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) h = _mm256_add_epi32(h, hash_term_avx2(_mm256_xor_si256(r[k], _mm256_mullo_epi32(lane_bits_avx2(k), k1))));
  const uint32_t slot = memo_slot(sum_avx2(h), mask, meta, kExactSlots);
  ExactEntry& e = table[slot];
  if (rel_equal_avx2(r, e.rel.data()) && e.meta == meta && e.mask == mask) return uint64_t{slot} << 32 | 1u;
  e.meta = meta;
  e.mask = mask;
  for (int k = 0; k < 4; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(e.rel.data() + 8 * k), r[k]);
  return uint64_t{slot} << 32 | 2u;
}
#endif

AccessCost TraceAggregator::exact_cost(uint32_t pc_index, const std::array<uint32_t, kWarpSize>& addr) {
  MemoGate& g = gates_[pc_index];
  if (g.skip != 0) {
    --g.skip;
    return lanes_cost(g, addr);
  }
  const uint32_t mask = access_.mask;
  // Relative to the first active lane's 16-byte unit: cost_sass() is the same for a warp moved by a
  // multiple of 16 bytes (every lane's words move by 4 k, its banks by 4 k mod 32: the same banks
  // shared, the same words repeated, the same width alignment; R1-R11 depend on nothing else), so one
  // entry serves every such copy (a GEMM's fragment loads, one per warp and k step).
  const uint32_t b = addr[static_cast<size_t>(__builtin_ctz(mask))] & ~15u;
  // Loops over the 32 lanes without a branch, a variable shift or a call, so that the compiler
  // vectorizes them with the baseline's SSE2 (measured: the scalar loop was a fifth of a GEMM-like
  // trace's report). Inactive lanes are 0 in the key; a per-lane constant makes the hash depend on
  // which lane has which offset.
  std::array<uint32_t, kWarpSize>& rel = rel_;
  const uint32_t meta =
      atom_key(access_) << 16 | static_cast<uint32_t>(access_.op) << 8 | static_cast<uint32_t>(access_.width);
  ++g.lookups;
#ifdef BANKSCOPE_REPORT_X86
  if (simd_ != CostPath::kPortable) {  // cost()'s AVX2 and AVX-512 paths: the CPU has AVX2
    const uint64_t found = exact_find_avx2(addr.data(), mask, b, meta, exact_.data(), g.last);
    g.last = static_cast<uint32_t>(found >> 32);
    ExactEntry& e = exact_[g.last];
    if ((found & 3u) == 2) {
      e.cost = lanes_cost(g, addr);
    } else {
      ++g.hits;
    }
    watch_hits(g);
    return e.cost;
  }
#endif
  // First the entry this PC used last: a kernel's PC mostly repeats one lane pattern (every warp of
  // a GEMM's fragment load, every k step), and comparing with it costs a tenth of the hash.
  ExactEntry& last = exact_[g.last];
  uint32_t differ = 0;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    const uint32_t on = 0u - static_cast<uint32_t>((mask & kLaneBit[lane]) != 0);
    rel[lane] = (addr[lane] - b) & on;
    differ |= rel[lane] ^ last.rel[lane];
  }
  if (differ == 0 && last.meta == meta && last.mask == mask) {
    ++g.hits;
    watch_hits(g);
    return last.cost;
  }
  return exact_lookup(g, meta, addr);
}

// exact_cost() when the PC's last entry differs: the hash table, filled on a miss.
AccessCost TraceAggregator::exact_lookup(MemoGate& g, uint32_t meta, const std::array<uint32_t, kWarpSize>& addr) {
  const std::array<uint32_t, kWarpSize>& rel = rel_;
  const uint32_t mask = access_.mask;
  uint32_t h = 0;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) h += lane_term(lane, rel[lane], 0);
  const uint32_t slot = memo_slot(h, mask, meta, kExactSlots);
  ExactEntry& e = exact_[slot];
  g.last = slot;
  uint32_t differ = (e.meta ^ meta) | (e.mask ^ mask);
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) differ |= e.rel[lane] ^ rel[lane];
  if (differ == 0) {
    ++g.hits;
  } else {
    e.meta = meta;
    e.mask = mask;
    e.rel = rel;
    e.cost = lanes_cost(g, addr);
  }
  watch_hits(g);
  return e.cost;
}

AccessCost TraceAggregator::cost_even(const TraceWarp& w) { return memo_cost(w.stride, w.addr[0], &w); }

AccessCost TraceAggregator::memo_cost(int64_t stride, uint32_t base, const TraceWarp* lanes) {
  const uint64_t key = (uint64_t{access_.op == Op::kStore} << 63) | (uint64_t(access_.width) << 58) |
                       (uint64_t{atom_key(access_)} << 40) |
                       ((uint64_t(stride) & ((uint64_t{1} << 27) - 1)) << 12) | (base & 4095u);
  MemoEntry& e = memo_[(key ^ (key >> 12) * 0x9E3779B1u) & (memo_.size() - 1)];
  if (e.key != key) {
    if (lanes != nullptr) {  // the warp's lanes are copied only when they must be costed
      access_.mask = lanes->mask;
      copy_lanes(simd_, access_.addr, lanes->addr);
    }
    e.key = key;
    e.cost = cost_sass(access_);
  }
  return e.cost;
}

void TraceAggregator::flush_repeats(uint32_t pc_index) {
  MemoGate& g = gates_[pc_index];
  PcStats& s = report_.launches.back().pcs[pc_index];
  for (uint64_t m = g.pending; m != 0; m &= m - 1) {
    const size_t i = static_cast<size_t>(__builtin_ctzll(m));
    const uint64_t n = g.repeat_count[i];
    s.executions += n;
    record_n(s, g.repeat_cost[i], n);
    g.repeat_count[i] = 0;
  }
  g.pending = 0;
  g.deferred = 0;
}

void TraceAggregator::flush_repeats() {
  for (size_t i = 0; i < gates_.size(); ++i) {
    if (gates_[i].deferred != 0) flush_repeats(static_cast<uint32_t>(i));
  }
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void TraceAggregator::finish_late() {
  if (late_.stats == nullptr) return;
  record(*late_.stats, late_.finish(late_.access, late_.access.addr.data(), late_.count));
  late_.stats = nullptr;
}
void TraceAggregator::flush_late() { finish_late(); }

// on_warp()'s body, inlined in the reader compiled for the aggregator (read_trace() below).
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void TraceAggregator::warp_step(const TraceWarp& w, const TracePc& pc) {
  LaunchReport& l = report_.launches.back();
  MemoGate& g = gates_[w.pc_index];
  if (g.deferred != 0) flush_repeats(w.pc_index);  // before this PC's slots change
  PcStats& s = l.pcs[w.pc_index];
  ++s.executions;
  const bool plain = pc.kind == TraceOpKind::kLoad || pc.kind == TraceOpKind::kStore;
  if (g.common && w.mask != 0) {
    // The common case, kept apart from the rest (on_other_warp()) so that it needs no large frame:
    // evenly spaced (the reader checked), the stride memo; any other warp, the exact memo, read from
    // the reader's lanes (copied into access_ only to be costed). Either way cost_sass()'s numbers.
    assert(s.model.costed && remaps_.empty() && (plain || g.plain != nullptr));  // an LDS.64/.128 has no plain fn
    // The access costed: late_'s (below) or access_. An atomic's op too: the memos' keys and
    // cost_sass() read it.
    const auto set_access = [&s, &w](WarpAccess& a) {
      a.op = s.model.access.op;
      a.width = s.model.access.width;
      a.atom = s.model.access.atom;
      a.mask = w.mask;
    };
    if (g.skip != 0 && !w.same_offsets && !w.even) {
      // A PC that skips the exact memo (its lanes do not repeat: a random PC), at an execution
      // that repeats no pattern: cost() at once (or its two steps, the second late: late_), and
      // no cost kept for repeats (keep_repeat() of a new pattern).
      --g.skip;
      g.repeat_ok = false;
      if (g.split.count != nullptr) {  // (the AVX2 path's)
        finish_late();
        set_access(late_.access);
        late_.count = g.split.count(late_.access, w.addr.data(), late_.access.addr.data());
        late_.stats = &s;
        late_.finish = g.split.finish;
        return;
      }
      set_access(access_);
      record(s, g.scattered != nullptr ? g.scattered(access_, w.addr.data()) : lanes_cost(g, w.addr));
      return;
    }
    set_access(access_);
    const uint32_t residue = w.addr[static_cast<size_t>(__builtin_ctz(w.mask))] & 15u;  // the exact memo's unit
    if (const int i = find_repeat(g, w.same_offsets, residue); i >= 0) {
      record(s, g.repeat_cost[static_cast<size_t>(i)]);
      return;
    }
    const AccessCost c = w.even ? cost_even(w) : exact_cost(w.pc_index, w.addr);
    keep_repeat(g, w.same_offsets, true, residue, c, true);
    record(s, c);
    return;
  }
  on_other_warp(w, pc, l, s, static_cast<size_t>(pc.kind), plain);
}

#if defined(__GNUC__)
__attribute__((noinline))  // out of on_warp()'s common case, with the large frame it needs
#endif
void TraceAggregator::on_other_warp(const TraceWarp& w, const TracePc& pc, LaunchReport& l, PcStats& s, size_t kind,
                                    bool plain) {
  if (!s.model.costed) {
    ++l.uncosted_by_kind[kind];
    return;
  }
  if (w.mask == 0) {
    // A predicated-off instruction still issues (measured on the H200: GPU_FACTS.md, edges) and
    // costs no wavefront.
    ++s.n_way_count[0];  // an instruction of the launch's totals (sum_launch())
    return;
  }
  // The instruction's fields, not its 128 bytes of lanes (the model has none; a copy of the whole
  // WarpAccess was a fifth of this function's instructions per cp.async execution, measured).
  access_.op = s.model.access.op;
  access_.width = s.model.access.width;
  if (!plain) {
    access_.matrices = s.model.access.matrices;
    access_.trans = s.model.access.trans;
    access_.atom = s.model.access.atom;
    access_.bypass_l1 = s.model.access.bypass_l1;
  }
  if (s.model.ncu_counts_zero) {  // issued and counted as an instruction, no wavefront (pc_model())
    record(s, AccessCost{});
    return;
  }
  if (pc.kind == TraceOpKind::kLdgsts && !w.has_src) {  // after the LDS/STS fast path: not on it
    refuse_unsourced(l, s, kind);
    gates_[w.pc_index].repeat_route = 0;  // nor, from now on, on_repeat() (found by a review)
    return;
  }
  access_.mask = w.mask;
  if (remaps_.empty() && !plain) {
    bool valid = false;
    const AccessCost c = kind_cost(w.pc_index, w, &valid);
    if (!valid) {  // as below
      ++s.uncosted;
      ++l.uncosted_by_kind[kind];
      return;
    }
    record(s, c);
    return;
  }
  if (remaps_.empty()) {
    access_.addr = w.addr;
  } else {
    for (int lane = 0; lane < kWarpSize; ++lane) access_.addr[lane] = w.mask >> lane & 1u ? remap(w.addr[lane]) : 0;
  }
  if ((!plain || !remaps_.empty()) && !access_valid(access_)) {
    // e.g. an LDSM whose row lanes are not all active: the model has no rule for it. Or a what-if
    // layout that moves a vector lane off its alignment (a float4 of a tile padded to 33 floats):
    // no such instruction exists, so nothing is costed (cost() would assert; the fuzz target's
    // version-2 seed of 16-byte lanes found it).
    ++s.uncosted;
    ++l.uncosted_by_kind[kind];
    return;
  }
  if (plain) {
    record(s, cost_plain(w.pc_index));
  } else {
    record(s, cost_other_kind(w));
  }
}

AccessCost TraceAggregator::cost_other_kind(const TraceWarp& w) const {
  // cp.async: R9 from the traced sources (global, so no what-if layout moves them). Atomics and
  // ldmatrix/stmatrix: their rules.
  return access_.op == Op::kLdgsts ? ldgsts_cost(access_, w.src, /*zero_reads_nothing=*/true) : cost_sass(access_);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline int TraceAggregator::find_repeat(const MemoGate& g, bool repeats, uint32_t residue) {
  if (!repeats || !g.repeat_ok) return -1;
  const int i = MemoGate::slot_of(residue);
  return (g.repeat_used >> i & 1u) != 0 && g.repeat_residue[static_cast<size_t>(i)] == residue ? i : -1;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void TraceAggregator::keep_repeat(MemoGate& g, bool repeats, bool keep, uint32_t residue, const AccessCost& c,
                                         bool valid) {
  if (!repeats) {  // a new pattern: the costs kept are another's; its first repeat starts them again
    g.repeat_ok = false;  // (a store per execution where patterns never repeat: a version 2 trace)
    return;
  }
  if (!g.repeat_ok) {
    g.repeat_used = 0;
    g.repeat_ok = true;
  }
  if (!keep) return;
  // (The slot's deferred count, if another residue had it, was recorded: on_warp() records a PC's
  // before anything else of it.)
  const int i = MemoGate::slot_of(residue);
  g.repeat_residue[static_cast<size_t>(i)] = residue;
  g.repeat_cost[static_cast<size_t>(i)] = c;
  g.repeat_used |= uint64_t{1} << i;
  g.repeat_valid = (g.repeat_valid & ~(uint64_t{1} << i)) | static_cast<uint64_t>(valid) << i;
}

// on_repeat()'s body, likewise.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool TraceAggregator::repeat_step(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero) {
  // on_warp()'s and kind_cost()'s repeat checks, from the first lane (and source) alone.
  MemoGate& g = gates_[w.pc_index];
  uint32_t residue = first & 15u;
  switch (g.repeat_route) {
    case 0:
      return false;
    case 1:
      break;
    case 3:  // .ca: a null source reads nothing, and is kept apart (kind_cost())
      if (!src_nonzero) return false;
      [[fallthrough]];
    default:
      if (!w.has_src) return false;  // refused (on_other_warp())
      residue = (first & 127u) | (src_first & 127u) << 8;
      break;
  }
  const int i = find_repeat(g, true, residue);
  if (i < 0 || !(g.repeat_valid >> i & 1u)) return false;  // not kept, or not valid: on_warp() counts it
  ++g.repeat_count[static_cast<size_t>(i)];
  g.pending |= uint64_t{1} << i;
  if (++g.deferred == 0xffffffffu) flush_repeats(w.pc_index);  // never wraps
  return true;
}

void TraceAggregator::on_warp(const TraceWarp& w, const TracePc& pc) { warp_step(w, pc); }
bool TraceAggregator::on_repeat(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero,
                                const TracePc&) {
  return repeat_step(w, first, src_first, src_nonzero);
}

AccessCost TraceAggregator::kind_cost(uint32_t pc_index, const TraceWarp& w, bool* valid) {
  const bool ldgsts = access_.op == Op::kLdgsts;
  MemoGate& g = gates_[pc_index];
  const uint32_t mask = access_.mask;
  const size_t lane0 = static_cast<size_t>(__builtin_ctz(mask));
  // The repeat check (MemoGate::repeat_residue): the key's unit is 128 bytes for cp.async, destinations and
  // sources, else 16. A .ca null source takes the memo.
  uint32_t residue = w.addr[lane0] & 15u;
  uint32_t nulls = 0;  // a .ca cp.async's active lanes with a null source
  bool repeats = w.same_offsets, clean = true;
  if (ldgsts) {
    residue = (w.addr[lane0] & 127u) | (w.src[lane0] & 127u) << 8;
    repeats = repeats && w.src_same_offsets;
    if (!access_.bypass_l1) {
      nulls = zero_lanes(simd_, w.src) & mask;
      clean = nulls == 0;
    }
  }
  if (const int i = find_repeat(g, repeats && clean, residue); i >= 0) {
    *valid = (g.repeat_valid >> i & 1u) != 0;
    return g.repeat_cost[static_cast<size_t>(i)];
  }
  const AccessCost c = kind_memo(pc_index, w, nulls, valid);
  keep_repeat(g, repeats, clean, residue, c, *valid);
  return c;
}

AccessCost TraceAggregator::kind_memo(uint32_t pc_index, const TraceWarp& w, uint32_t nulls, bool* valid) {
  const bool ldgsts = access_.op == Op::kLdgsts;
  const auto compute = [&]() {
    access_.addr = w.addr;
    *valid = access_valid(access_);
    return *valid ? cost_other_kind(w) : AccessCost{};
  };
  MemoGate& g = gates_[pc_index];
  if (g.skip != 0) {
    --g.skip;
    return compute();
  }
  if (kinds_.empty()) kinds_.resize(1024);
  const uint32_t mask = access_.mask;
  const uint32_t b = w.addr[static_cast<size_t>(__builtin_ctz(mask))] & (ldgsts ? ~127u : ~15u);
  // .ca: a null source (0) reads nothing (ldgsts_cost()'s zero_reads_nothing) and is kept apart;
  // .cg reads a 0 as any other source (R9's .cg has no null lane), so it moves with the others.
  const bool null_apart = ldgsts && !access_.bypass_l1;
  // The first active lane's source (.ca: the first with a source that is not null).
  const uint32_t sourced = null_apart ? mask & ~nulls : mask;
  const uint32_t sb = ldgsts && sourced != 0 ? w.src[static_cast<size_t>(__builtin_ctz(sourced))] & ~127u : 0u;
  const uint32_t meta = static_cast<uint32_t>(access_.op) | static_cast<uint32_t>(access_.width) << 4 |
                        static_cast<uint32_t>(access_.matrices) << 9 | static_cast<uint32_t>(access_.trans) << 12 |
                        static_cast<uint32_t>(access_.atom) << 13 | static_cast<uint32_t>(access_.bypass_l1) << 20;
  std::array<uint32_t, kWarpSize> rel, src;
  const uint32_t null = null_apart ? nulls : 0u;  // lanes whose offset is 1 (never a real one: below)
  // The hash: with AVX2 in the same pass as the offsets; the portable loop only when the entry this
  // PC used last does not match (its multiplies cost more than the pass).
  uint32_t h = 0;
  bool hashed = false;
#ifdef BANKSCOPE_REPORT_X86
  if (simd_ == CostPath::kAvx2 || simd_ == CostPath::kAvx512) {
    h = kind_key_avx2(w.addr.data(), w.src.data(), mask, null, ldgsts, b, sb, rel.data(), src.data());
    hashed = true;
  }
#endif
  if (!hashed) {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {  // no branch: vectorized
      const uint32_t on = 0u - static_cast<uint32_t>((mask & kLaneBit[lane]) != 0);
      rel[lane] = (w.addr[lane] - b) & on;
      // Sources are aligned to the width (the reader checks), so an offset is never 1.
      const uint32_t is_null = 0u - static_cast<uint32_t>((null & kLaneBit[lane]) != 0);
      src[lane] = ((w.src[lane] - sb) & ~is_null) | (1u & is_null);
      src[lane] &= on & (0u - static_cast<uint32_t>(ldgsts));
    }
  }
  ++g.lookups;
  // First the entry this PC used last, as exact_cost().
  const auto equal = [&](const std::array<uint32_t, kWarpSize>& x, const std::array<uint32_t, kWarpSize>& y) {
#ifdef BANKSCOPE_REPORT_X86
    if (simd_ == CostPath::kAvx2 || simd_ == CostPath::kAvx512) return lanes_equal_avx2(x.data(), y.data());
#endif
    return x == y;
  };
  const auto same = [&](const KindEntry& e) { return e.meta == meta && e.mask == mask && equal(e.rel, rel) && equal(e.src, src); };
  if (same(kinds_[g.last])) {
    ++g.hits;
    watch_hits(g);
    *valid = kinds_[g.last].valid;
    return kinds_[g.last].cost;
  }
  if (!hashed) {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) h += lane_term(lane, rel[lane], src[lane]);
  }
  const uint32_t slot = memo_slot(h, mask, meta, kinds_.size());
  KindEntry& e = kinds_[slot];
  g.last = slot;
  if (same(e)) {
    ++g.hits;
  } else {
    e.meta = meta;
    e.mask = mask;
    e.rel = rel;
    e.src = src;
    e.cost = compute();
    e.valid = *valid;
  }
  watch_hits(g);
  *valid = e.valid;
  return e.cost;
}

void TraceAggregator::refuse_unsourced(LaunchReport& l, PcStats& s, size_t kind) {
  // The PC is costed whole or not at all: the executions already counted (predicated-off ones,
  // which need no source, or, in a trace that mixes them, ones with sources) leave its stats, and so
  // the launch's totals (sum_launch()).
  l.uncosted_by_kind[kind] += s.executions - s.uncosted;  // the refused ones are counted already
  s.wavefronts = s.ideal = s.uncosted = 0;
  s.worst_n_way = 0;
  s.n_way_count = {};
  s.model.costed = false;
  s.model.why = "recorded without global sources: re-trace with this bankscope (R9 costs cp.async from them)";
}

void TraceAggregator::record_n(PcStats& s, const AccessCost& c, uint64_t n) {
  s.wavefronts += static_cast<uint64_t>(c.wavefronts) * n;
  s.ideal += static_cast<uint64_t>(c.ideal_wavefronts) * n;
  s.worst_n_way = std::max(s.worst_n_way, c.n_way);
  s.n_way_count[static_cast<size_t>(std::min(c.n_way, kWarpSize))] += n;
}

#if defined(__GNUC__)
__attribute__((always_inline))  // a call per execution otherwise (measured: 35 instructions with it)
#endif
inline void TraceAggregator::record(PcStats& s, const AccessCost& c) {
  s.wavefronts += static_cast<uint64_t>(c.wavefronts);
  s.ideal += static_cast<uint64_t>(c.ideal_wavefronts);
  s.worst_n_way = std::max(s.worst_n_way, c.n_way);
  ++s.n_way_count[std::min(c.n_way, kWarpSize)];
}

void TraceAggregator::on_launch_end(const TraceLaunchEnd& e) {
  LaunchReport& l = report_.launches.back();
  l.end = e;
  l.ended = true;
}

namespace {
class TeeSink : public TraceSink {
 public:
  TeeSink(TraceSink& a, TraceSink* b) : a_(a), b_(b) {}
  void on_launch(const TraceLaunch& l) override { a_.on_launch(l); if (b_) b_->on_launch(l); }
  void on_pc(const TracePc& p) override { a_.on_pc(p); if (b_) b_->on_pc(p); }
  void on_warp(const TraceWarp& w, const TracePc& p) override { a_.on_warp(w, p); if (b_) b_->on_warp(w, p); }
  // A repeat goes to a alone, so only when there is no b.
  bool takes_repeats() const override { return b_ == nullptr && a_.takes_repeats(); }
  bool on_repeat(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero, const TracePc& p) override {
    return a_.on_repeat(w, first, src_first, src_nonzero, p);
  }
  void on_launch_end(const TraceLaunchEnd& e) override { a_.on_launch_end(e); if (b_) b_->on_launch_end(e); }
  void on_end(const TraceEnd& e) override { a_.on_end(e); if (b_) b_->on_end(e); }

 private:
  TraceSink& a_;
  TraceSink* b_;
};
}  // namespace

// The reader's calls of the aggregator's steps: their bodies, inlined (trace_read.hpp's SinkSteps).
namespace trace_read {
template <>
struct SinkSteps<TraceAggregator> {
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  static void warp(TraceAggregator& s, const TraceWarp& w, const TracePc& pc) { s.warp_step(w, pc); }
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  static bool repeat(TraceAggregator& s, const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero,
                     const TracePc&) {
    return s.repeat_step(w, first, src_first, src_nonzero);
  }
};
}  // namespace trace_read

Result<TraceSummary> read_trace(const uint8_t* data, size_t size, TraceAggregator& sink) {
  return trace_read::read_trace_as(data, size, sink);
}

Result<TraceReports> report_trace(const uint8_t* data, size_t size, const std::vector<ArrayRemap>& remaps) {
  TraceAggregator traced;
  // The what-if's aggregator only when there is one: each holds memo tables of a few hundred KiB,
  // cleared on construction, a cost that small traces (the committed ones: 8,192 executions) feel.
  std::optional<TraceAggregator> what_if;
  if (!remaps.empty()) what_if.emplace(remaps);
  TeeSink tee(traced, what_if ? &*what_if : nullptr);
  auto s = what_if ? read_trace(data, size, tee) : read_trace(data, size, traced);
  if (!s) return s.error();
  TraceReports r;
  r.traced = traced.take(*s);
  if (what_if) r.what_if = what_if->take(*s);
  return r;
}

std::vector<ReportRow> report_rows(const TraceReport& r, bool by_line) {
  // Key: kernel, then the PC or the source line.
  std::map<std::tuple<std::string, std::string, uint64_t>, ReportRow> rows;
  std::map<std::tuple<std::string, std::string, uint64_t>, std::array<uint64_t, kWarpSize + 1>> hist;
  for (const LaunchReport& l : r.launches) {
    for (const PcStats& s : l.pcs) {
      const bool line_known = by_line && s.pc.line != 0;
      const auto key = line_known ? std::make_tuple(l.launch.kernel, s.pc.file, uint64_t{s.pc.line})
                                  : std::make_tuple(l.launch.kernel, std::string(), s.pc.pc);
      ReportRow& row = rows[key];
      auto& h = hist[key];
      if (row.kernel.empty()) {
        row.kernel = l.launch.kernel;
        char buf[32];
        std::snprintf(buf, sizeof buf, "pc 0x%llx", static_cast<unsigned long long>(s.pc.pc));
        // The file's last component: a table column, not a path (two files of one name in one
        // kernel are rare; --json has the same key).
        const std::string base = s.pc.file.substr(s.pc.file.find_last_of('/') + 1);
        row.where = line_known ? base + ":" + std::to_string(s.pc.line) : std::string(buf);
        row.opcode = s.pc.opcode;
        row.kind = s.pc.kind;
        row.modelled = s.modelled();
        row.why = s.model.why;
        row.note = s.model.note;
      } else if (row.opcode.find(s.pc.opcode) == std::string::npos) {
        row.opcode += "+" + s.pc.opcode;
        row.modelled = row.modelled && s.modelled();
        if (row.why.empty()) row.why = s.model.why;
      }
      if (row.note.empty()) row.note = s.model.note;
      row.executions += s.executions;
      row.wavefronts += s.wavefronts;
      row.ideal += s.ideal;
      row.worst_n_way = std::max(row.worst_n_way, s.worst_n_way);
      for (int k = 0; k <= kWarpSize; ++k) h[k] += s.n_way_count[k];
    }
  }
  std::vector<ReportRow> out;
  for (auto& [key, row] : rows) {
    const auto& h = hist[key];
    int best = 0;
    for (int k = 1; k <= kWarpSize; ++k)
      if (h[k] > h[best]) best = k;
    row.typical_n_way = best;
    out.push_back(row);
  }
  std::stable_sort(out.begin(), out.end(), [](const ReportRow& a, const ReportRow& b) {
    if (a.excess() != b.excess()) return a.excess() > b.excess();
    return a.executions > b.executions;
  });
  return out;
}

}  // namespace bankscope
