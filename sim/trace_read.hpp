// trace_read.hpp: the trace reader's decoding (format in trace.hpp), for sim/'s own .cpp files
// only: read_trace() (trace.cpp) is read_trace_as<TraceSink>(), every execution a virtual call, and
// the aggregator's read_trace() (trace_report.cpp) is read_trace_as<TraceAggregator>(), its steps
// inlined in the loop that decodes version 4's commonest executions. The reader treats the file as
// untrusted: every length is checked against the bytes left, every index against what was
// declared, and the first problem ends the read with one line naming the byte offset.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bank_model.hpp"  // cost_path(): the decoder's vector width follows cost()'s
#include "trace.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define BANKSCOPE_TRACE_X86 1
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers (as bank_model.cpp)
#pragma GCC diagnostic ignored "-Wuninitialized"        // the same, where unpack_avx512() inlines them
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

namespace bankscope::trace_read {

// --- decoding ---------------------------------------------------------------------------------
// A bounded cursor; `fail` latches the first error and makes every later read return 0.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  const uint8_t* file_begin;
  std::string error;

  size_t offset() const { return static_cast<size_t>(p - file_begin); }
  bool ok() const { return error.empty(); }
  void fail(const std::string& what) {
    if (error.empty()) error = "trace: byte " + std::to_string(offset()) + ": " + what;
    p = end;
  }
  // Takes another cursor's error as this one's (an 'S' record's, found while reading its 'W').
  void fail_with(const std::string& other) {
    if (error.empty()) error = other;
    p = end;
  }
  size_t left() const { return static_cast<size_t>(end - p); }
#if defined(__GNUC__)
  __attribute__((noinline, cold))
#endif
  void fail_truncated(const char* what) { fail(std::string("truncated in ") + what); }
  // u8, u32 and varint: several per execution; as calls they were a sixth of `report`'s instructions
  // on the reduction bench (callgrind), so inlined, their error paths out of line.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  uint8_t u8(const char* what) {
    if (p == end) {
      fail_truncated(what);
      return 0;
    }
    return *p++;
  }
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  uint32_t u32(const char* what) {
    if (left() < 4) {
      fail_truncated(what);
      return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
    p += 4;
    return v;
  }
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  uint64_t varint(const char* what) {
    if (p != end && *p < 0x80) return *p++;  // the common one-byte case, inline
    // Up to 5 bytes (values below 2^35: every offset, delta, block index and 32-bit source) without
    // a bounds check per byte when enough bytes are left.
    if (end - p >= 5) {
      uint64_t v = p[0] & 0x7fu;
      for (int i = 1; i < 5; ++i) {
        v |= uint64_t{p[i] & 0x7fu} << (7 * i);
        if (p[i] < 0x80) {
          p += i + 1;
          return v;
        }
      }
    }
    return varint_slow(what);
  }
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  uint64_t varint_slow(const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) {
        fail(std::string("truncated in ") + what);
        return 0;
      }
      const uint8_t b = *p++;
      if (shift == 63 && b > 1) break;
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail(std::string("varint too long in ") + what);
    return 0;
  }
  // n (1..4) bytes, little-endian: version 4's fields of a record's width.
  uint32_t fixed(int n, const char* what) {
    if (left() < static_cast<size_t>(n)) {
      fail_truncated(what);
      return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint32_t{p[i]} << (8 * i);
    p += n;
    return v;
  }
  int64_t zvarint(const char* what) {
    const uint64_t u = varint(what);
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  // Three per execution: a call each was a twelfth of the reader's time (measured), so inlined.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  uint32_t varint32(const char* what) {
    const uint64_t v = varint(what);
    if (v > std::numeric_limits<uint32_t>::max()) fail(std::string(what) + " " + std::to_string(v) + " exceeds 2^32 - 1");
    return static_cast<uint32_t>(v);
  }
  std::string string(const char* what) {
    const uint64_t n = varint(what);
    if (n > left()) {
      fail(std::string("truncated in ") + what + " (length " + std::to_string(n) + ")");
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    return s;
  }
};

// A record tag as printed in an error: the letter when it is one, else its hex value.
inline std::string tag_name(uint8_t tag) {
  if ((tag >= 'A' && tag <= 'Z') || (tag >= 'a' && tag <= 'z')) return std::string("'") + char(tag) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", tag);
  return buf;
}

inline bool valid_width(int w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

// The baseline x86-64 has no POPCNT: __builtin_popcount would be a libgcc call.
inline int popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

// A full warp of mode 2 (kBytes = 1) or mode 3 (kBytes = 2) offsets at `q` -> out[lane] = base +
// (offset << shift); returns the OR of the shifted offsets (at least their maximum, and aligned
// exactly when each is). One path per cost() path: the lanes are stored with the vector width
// cost() then loads them with, so that its loads are forwarded from these stores (a 64-byte load
// of lanes stored 16 bytes at a time waits for the stores to retire). Little-endian offsets. `keep`
// (not null): the lanes again there (a LaneState's, written from registers rather than copied).
template <int kBytes>
uint32_t unpack_portable(const uint8_t* q, uint32_t base, int shift, uint32_t* out, uint32_t* keep) {
  uint32_t spread = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {  // vectorized by the compiler (SSE2)
    uint32_t off;
    if constexpr (kBytes == 1) {
      off = q[lane];
    } else {
      off = uint32_t{q[2 * lane]} | uint32_t{q[2 * lane + 1]} << 8;
    }
    off <<= shift;
    spread |= off;
    out[lane] = base + off;
  }
  if (keep != nullptr) std::memcpy(keep, out, kWarpSize * sizeof(uint32_t));
  return spread;
}

#ifdef BANKSCOPE_TRACE_X86
template <int kBytes>
__attribute__((target("avx2"))) inline uint32_t unpack_avx2(const uint8_t* q, uint32_t base, int shift,
                                                            uint32_t* out, uint32_t* keep) {
  const __m128i sh = _mm_cvtsi32_si128(shift);
  const __m256i vbase = _mm256_set1_epi32(static_cast<int>(base));
  __m256i spread = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    const __m256i off = _mm256_sll_epi32(
        kBytes == 1 ? _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 8 * k)))
                    : _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * k))),
        sh);
    spread = _mm256_or_si256(spread, off);
    const __m256i lanes = _mm256_add_epi32(off, vbase);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * k), lanes);
    if (keep != nullptr) _mm256_storeu_si256(reinterpret_cast<__m256i*>(keep + 8 * k), lanes);
  }
  __m128i x = _mm_or_si128(_mm256_castsi256_si128(spread), _mm256_extracti128_si256(spread, 1));
  x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4e));
  x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(x));
}

template <int kBytes>
__attribute__((target("avx512f,avx512bw"))) uint32_t unpack_avx512(const uint8_t* q, uint32_t base, int shift,
                                                                    uint32_t* out, uint32_t* keep) {
  const __m128i sh = _mm_cvtsi32_si128(shift);
  const __m512i vbase = _mm512_set1_epi32(static_cast<int>(base));
  __m512i off[2];
  for (int h = 0; h < 2; ++h) {
    off[h] = _mm512_sll_epi32(
        kBytes == 1 ? _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * h)))
                    : _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * h))),
        sh);
    const __m512i lanes = _mm512_add_epi32(off[h], vbase);
    _mm512_storeu_si512(out + 16 * h, lanes);
    if (keep != nullptr) _mm512_storeu_si512(keep + 16 * h, lanes);
  }
  return static_cast<uint32_t>(_mm512_reduce_or_epi32(_mm512_or_si512(off[0], off[1])));
}
#endif

template <int kBytes>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline uint32_t unpack(CostPath simd, const uint8_t* q, uint32_t base, int shift, uint32_t* out, uint32_t* keep = nullptr) {
#ifdef BANKSCOPE_TRACE_X86
  if (simd == CostPath::kAvx512) return unpack_avx512<kBytes>(q, base, shift, out, keep);
  if (simd == CostPath::kAvx2) return unpack_avx2<kBytes>(q, base, shift, out, keep);
#endif
  (void)simd;
  return unpack_portable<kBytes>(q, base, shift, out, keep);
}

// A full warp of mode 2 or 3 offsets at `q` unpacked (unpack(): out, and keep when not null) from
// base <= top, then checked at once, conservatively, through base and the OR of the shifted offsets:
// true when every lane is at most `top` and aligned to `align` + 1; *hi = base + that OR (at least
// the highest lane). Offsets are below 2^20, so base + spread cannot wrap in 64 bits. False says
// only that the quick check failed: the lanes may still be good (read_packed() walks them).
// The check itself, for lanes at base + offset with `spread` the OR of the shifted offsets.
inline bool packed_fits(uint64_t base, uint32_t spread, uint64_t top, uint64_t align) {
  return base + spread <= top && ((base | spread) & align) == 0;
}
template <int kBytes>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool unpack_full(CostPath simd, const uint8_t* q, uint64_t base, int shift, uint64_t top, uint64_t align,
                        uint32_t* out, uint32_t* keep, uint64_t* hi) {
  const uint32_t spread = unpack<kBytes>(simd, q, static_cast<uint32_t>(base), shift, out, keep);
  *hi = base + spread;
  return packed_fits(base, spread, top, align);
}

// out[lane] = in[lane] + d for every lane (mode 4), with the vector width cost() loads lanes with
// (as unpack()).
inline void add_lanes_portable(const uint32_t* in, uint32_t d, uint32_t* out) {
  for (int lane = 0; lane < kWarpSize; ++lane) out[lane] = in[lane] + d;  // vectorized (SSE2)
}
#ifdef BANKSCOPE_TRACE_X86
__attribute__((target("avx2"))) inline void add_lanes_avx2(const uint32_t* in, uint32_t d, uint32_t* out) {
  const __m256i vd = _mm256_set1_epi32(static_cast<int>(d));
  for (int k = 0; k < 4; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 8 * k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * k), _mm256_add_epi32(v, vd));
  }
}
__attribute__((target("avx512f"))) inline void add_lanes_avx512(const uint32_t* in, uint32_t d, uint32_t* out) {
  const __m512i vd = _mm512_set1_epi32(static_cast<int>(d));
  for (int h = 0; h < 2; ++h) _mm512_storeu_si512(out + 16 * h, _mm512_add_epi32(_mm512_loadu_si512(in + 16 * h), vd));
}
#endif
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void add_lanes(CostPath simd, const uint32_t* in, uint32_t d, uint32_t* out) {
#ifdef BANKSCOPE_TRACE_X86
  if (simd == CostPath::kAvx512) return add_lanes_avx512(in, d, out);
  if (simd == CostPath::kAvx2) return add_lanes_avx2(in, d, out);
#endif
  (void)simd;
  add_lanes_portable(in, d, out);
}

// 32 lanes from `in` to `out` as 16-byte moves (GCC made the memcpy a `rep movsl`, microcoded, on
// every execution kept: seen in callgrind's count per instruction on cuBLAS SGEMM's trace).
inline void copy_lanes(const uint32_t* in, uint32_t* out) {
#ifdef BANKSCOPE_TRACE_X86
  for (int k = 0; k < 8; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 4 * k)));
  }
#else
  std::memcpy(out, in, kWarpSize * sizeof(uint32_t));
#endif
}

// What the reader keeps of a pc index's lanes (or sources), for mode 4 and TraceWarp::same_offsets:
// those of its last execution with lanes stored in a mode other than 4 (a mode 4 execution repeats
// their offsets, so it changes nothing here).
struct LaneState {
  bool valid = false;
  bool uniform = false;  // stored in mode 0, with `stride`
  bool kept = false;     // `lanes` holds them (else they are first + k stride, or no mode 4 can follow)
  uint32_t mask = 0;
  int64_t stride = 0;
  uint32_t first = 0;     // the first active lane's address
  int64_t lo = 0, hi = 0;  // lo <= every active lane's address <= hi
  // Derived (derive()), for mode 4's check on the fast path in one compare each: `mask` when `lanes`
  // holds the lanes (else 0, never an execution's mask with lanes), first - lo and hi - lo.
  uint32_t kept_mask = 0;
  int64_t first_lo = 0, span = 0;
  alignas(64) std::array<uint32_t, kWarpSize> lanes{};  // the active lanes' addresses (the others: any)
  void derive() {
    kept_mask = kept ? mask : 0u;
    first_lo = int64_t{first} - lo;
    span = hi - lo;
  }
};

// `keep`: copy the lanes for a mode 4 to come; not for mode 0 (ensure_lanes() derives them, when
// a mode 4 follows one, which the writer never does) nor in a file of a version without mode 4
// (measured: the copy per execution made version 2 traces' reports slower than before mode 4).
// `written`: h.lanes holds them already (unpack() wrote them there).
inline void remember(LaneState& h, uint32_t mask, const std::array<uint32_t, kWarpSize>& out, int64_t lo, int64_t hi,
                     bool uniform, int64_t stride, bool keep, bool written = false) {
  h.valid = true;
  h.uniform = uniform;
  h.kept = keep;
  h.mask = mask;
  h.stride = stride;
  h.first = out[static_cast<size_t>(__builtin_ctz(mask))];
  h.lo = lo;
  h.hi = hi;
  h.derive();
  if (keep && !written) copy_lanes(out.data(), h.lanes.data());
}

// Lanes stored in modes 1-3. Before version 3 nothing but that they were not evenly spaced matters
// (mode 0's same_offsets; no mode 4 can follow).
inline void remember_scattered(LaneState& h, uint32_t mask, const std::array<uint32_t, kWarpSize>& out, int64_t lo,
                               int64_t hi, uint32_t version) {
  if (version >= 3) {
    remember(h, mask, out, lo, hi, false, 0, true);
  } else {
    h.valid = true;
    h.uniform = false;
  }
}

// h's lanes when mode 0 stored them: the k-th active lane at first + k stride.
inline void ensure_lanes(LaneState& h) {
  if (!h.valid || h.kept || !h.uniform) return;
  int64_t x = h.first;
  for (uint32_t m = h.mask; m != 0; m &= m - 1, x += h.stride) h.lanes[static_cast<size_t>(__builtin_ctz(m))] = static_cast<uint32_t>(x);
  h.kept = true;
  h.derive();
}

// Whether lane `lane`'s value `a` is within 0..top and aligned to the width; else r.fail() with the
// line the reader gives for a bad lane (every mode's lane-by-lane walk names it so).
inline bool lane_ok(Cursor& r, int lane, const char* noun, int64_t a, int64_t top, const TracePc& pc) {
  if (a < 0 || a > top) {
    r.fail("lane " + std::to_string(lane) + " " + noun + " " + std::to_string(a) + " outside 0..2^32-1");
    return false;
  }
  if ((a & (pc.width - 1)) != 0) {
    r.fail("lane " + std::to_string(lane) + " " + noun + " " + std::to_string(a) + " not aligned to its width " +
           std::to_string(pc.width) + " (pc " + std::to_string(pc.pc) + ")");
    return false;
  }
  return true;
}

// The lanes of a mode 2 (kBytes = 1) or mode 3 (kBytes = 2) execution into out[lane]: shift, then
// one offset per active lane of `mask`. A full warp (the common case) is unpacked without a branch
// per lane, then range (at most `top`) and alignment are checked once for all (conservatively,
// through the OR of the offsets); only when that check fails are the lanes walked again, to name
// the first bad one as mode 1 would. `noun` names the lanes' values in errors ("address", "source").
template <int kBytes>
bool read_packed(Cursor& r, uint32_t mask, uint32_t* out, uint64_t base, const TracePc& pc, CostPath simd,
                 uint64_t top, const char* noun, uint64_t* hi) {
  const uint8_t shift = r.u8("address shift");
  if (!r.ok()) return false;
  if (shift > 4) {
    r.fail("address shift " + std::to_string(shift) + " above 4");
    return false;
  }
  const int n = mask == 0xffffffffu ? kWarpSize : popcount32(mask);
  if (r.left() < static_cast<size_t>(n) * kBytes) {
    r.fail("truncated in lane offsets (" + std::to_string(n) + " lanes of " + std::to_string(kBytes) + " bytes)");
    return false;
  }
  const uint8_t* q = r.p;
  r.p += static_cast<size_t>(n) * kBytes;
  const uint64_t align = static_cast<uint64_t>(pc.width) - 1u;
  if (mask == 0xffffffffu && base <= top && unpack_full<kBytes>(simd, q, base, shift, top, align, out, nullptr, hi)) {
    return true;
  }
  const auto offset = [q](int k) -> uint32_t {
    if constexpr (kBytes == 1) {
      return q[k];
    } else {
      return uint32_t{q[2 * k]} | uint32_t{q[2 * k + 1]} << 8;
    }
  };
  if (mask != 0xffffffffu && base <= top) {
    // A partial mask (a radix sort's or histogram's edge warps): the active lanes alone, checked
    // at once as unpack_full() checks a full warp (packed_fits(): base and the OR of the shifted offsets)
    // (*hi = base + that OR, at least the highest lane). Measured: the walk below, a test of every
    // lane's bit, took about 600 instructions per execution on the CUB device trace (callgrind).
    uint32_t spread = 0;
    int j = 0;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t off = offset(j++) << shift;  // below 2^20
      spread |= off;
      out[__builtin_ctz(m)] = static_cast<uint32_t>(base + off);
    }
    if (packed_fits(base, spread, top, align)) {
      *hi = base + spread;
      return true;
    }
  }
  *hi = base;
  // Any check that failed: lane by lane, naming the first bad lane.
  int k = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const uint64_t a = base + (uint64_t{offset(k++)} << shift);  // below 2^33: exact in int64
    // (The test inline, lane_ok() only to name a bad lane: a call per lane was a few percent of
    // `report` on the CUB device trace's partial masks, callgrind.)
    if ((a > top || (a & align) != 0) && !lane_ok(r, lane, noun, static_cast<int64_t>(a), static_cast<int64_t>(top), pc)) {
      return false;
    }
    *hi = std::max(*hi, a);
    out[lane] = static_cast<uint32_t>(a);
  }
  return true;
}

// Mode 4's checks when the bounds h keeps do not settle them, and its errors: lane by lane, naming
// the first bad one; on success the exact bounds into h. Out of line: read_repeat() stays small.
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
inline bool repeat_slow(Cursor& r, uint32_t mask, const TracePc& pc, int64_t top, const char* noun, int64_t d, LaneState& h) {
  if (!h.valid) {
    const bool source = std::strcmp(noun, "source") == 0;
    r.fail(std::string(noun) + " mode 4 (as before) at the first " + (source ? "entry with sources" : "execution with lanes") +
           " of pc index " + std::to_string(pc.index));
    return false;
  }
  if (h.mask != mask) {
    char m[48];
    std::snprintf(m, sizeof m, "mask 0x%08x, the previous one's 0x%08x", mask, h.mask);
    r.fail(std::string(noun) + " mode 4 (as before) of pc index " + std::to_string(pc.index) + " with " + m);
    return false;
  }
  int64_t lo = top, hi = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const int64_t a = int64_t{h.lanes[static_cast<size_t>(lane)]} + d;
    if (!lane_ok(r, lane, noun, a, top, pc)) return false;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  h.lo = lo - d;  // exact now (they were bounds)
  h.hi = hi - d;
  h.derive();
  return true;
}

// Mode 4: the lanes h keeps (the pc index's last execution with lanes stored in another mode: a
// mode 4 execution keeps them, as it repeats their offsets) moved so that the first is at `base`.
// One check of the bounds h keeps, else repeat_slow(). Returns false after r.fail().
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_repeat(Cursor& r, uint32_t mask, std::array<uint32_t, kWarpSize>& out, const TracePc& pc,
                        CostPath simd, int64_t top, const char* noun, uint64_t base, LaneState& h) {
  ensure_lanes(h);
  const int64_t d = static_cast<int64_t>(std::min<uint64_t>(base, uint64_t{1} << 33)) - int64_t{h.first};
  if (!(h.valid && h.mask == mask && h.lo + d >= 0 && h.hi + d <= top && (d & (pc.width - 1)) == 0) &&
      !repeat_slow(r, mask, pc, top, noun, d, h)) {
    return false;
  }
  add_lanes(simd, h.lanes.data(), static_cast<uint32_t>(d), out.data());  // out as cost() loads it
  return true;
}

// A varint of at most 5 bytes (below 2^35) at p, with no bounds check (the caller checked that
// enough bytes are left): false, p unchanged, for a longer one.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool varint5(const uint8_t*& p, uint64_t& v) {
  v = p[0] & 0x7fu;
  for (int i = 0; i < 5; ++i) {
    if (i > 0) v |= uint64_t{p[i] & 0x7fu} << (7 * i);
    if (p[i] < 0x80) {
      p += i + 1;
      return true;
    }
  }
  return false;
}

// Mode 0 (evenly spaced) from its first lane `a` and stride (at most 2^33 either way), when every
// lane is within 0..top and aligned: the k-th active lane is at a + k stride, so the first and the
// last bound all others; one check, then no test per lane. A full warp (the common case) in a loop
// the compiler vectorizes, and marked even; a partial mask (a tree reduction's last steps, a guarded
// tail) by a walk over its set bits (measured here: a per-lane loop was the reader's hottest code on
// the reduction bench). Returns false, with nothing written, when a check fails.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_even(int64_t a, int64_t stride, uint32_t mask, int64_t top, int64_t align,
                      std::array<uint32_t, kWarpSize>& out, bool& even, int32_t& stride_out, LaneState& h,
                      bool& same) {
  const int64_t last = a + ((mask == 0xffffffffu ? kWarpSize : popcount32(mask)) - 1) * stride;
  if (!(a >= 0 && a <= top && last >= 0 && last <= top && (a & align) == 0 && (stride & align) == 0)) return false;
  if (mask == 0xffffffffu) {
    // In 32 bits (the lanes are below 2^32, checked above), as an induction (a + k s, step s): a
    // multiply per lane is emulated with shuffles in SSE2.
    const uint32_t s32 = static_cast<uint32_t>(stride);
    uint32_t x = static_cast<uint32_t>(a);
    for (uint32_t lane = 0; lane < kWarpSize; ++lane, x += s32) out[lane] = x;
    even = stride < (int64_t{1} << 26) && stride > -(int64_t{1} << 26);
    stride_out = static_cast<int32_t>(even ? stride : 0);
  } else {
    int64_t x = a;
    for (uint32_t m = mask; m != 0; m &= m - 1, x += stride) out[static_cast<size_t>(__builtin_ctz(m))] = static_cast<uint32_t>(x);
  }
  same = h.valid && h.uniform && h.mask == mask && h.stride == stride;
  remember(h, mask, out, std::min(a, last), std::max(a, last), true, stride, false);
  return true;
}

// The common executions of a version 3 or 4 file, decoded from a local pointer where
// read_lanes_body() goes through the cursor: lanes in mode 4 (a repeat), mode 0 (evenly spaced) or
// modes 2 and 3 of a full warp, whose checks pass at once, after their base and mode (the caller
// read them), with at least 16 bytes left (`end`: the record's end). Returns false, with nothing
// read and nothing but `out` and (modes 2 and 3) h.lanes changed, for anything else:
// read_lanes_body() then reads it again and names what is wrong, or, when the lanes are good after
// all (an unaligned base, an OR of offsets above the top), writes both again. Measured:
// the cursor, which the reader's calls take by reference, kept its pointer in memory, and each field
// cost a store and a load of it.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool lanes_fast(const uint8_t*& at, const uint8_t* end, uint64_t base, uint8_t mode, uint32_t mask,
                       std::array<uint32_t, kWarpSize>& out, const TracePc& pc, CostPath simd, int64_t top,
                       LaneState& h, bool& same, bool& even, int32_t& stride_out, bool* deferred,
                       int64_t& deferred_d) {
  const uint8_t* p = at;
  if (mode == 4) {
    // read_repeat()'s check, but on h.kept (lanes stored in mode 0 are derived on the cursor path,
    // ensure_lanes()) and without its clamp (a 5-byte base is below 2^35).
    // Its lowest lane at x: x >= 0 and x + span <= top, one unsigned compare (span <= top: the
    // pattern's lanes were in range). h.first is aligned, so d is iff base is.
    const int64_t x = static_cast<int64_t>(base) - h.first_lo;
    if (!(h.kept_mask == mask && static_cast<uint64_t>(x) <= static_cast<uint64_t>(top - h.span) &&
          (base & static_cast<uint64_t>(pc.width - 1)) == 0)) {
      return false;
    }
    const int64_t d = static_cast<int64_t>(base) - int64_t{h.first};
    // `deferred` (not null): the caller writes the lanes out (h.lanes + d) when a sink needs them.
    if (deferred != nullptr) {
      *deferred = true;
      deferred_d = d;
    } else {
      add_lanes(simd, h.lanes.data(), static_cast<uint32_t>(d), out.data());
    }
    same = true;
  } else if (mode == 0) {
    uint64_t z = 0;
    if (!varint5(p, z)) return false;
    const int64_t stride = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    if (stride > (int64_t{1} << 33) || stride < -(int64_t{1} << 33) ||  // read_lanes() names it
        !read_even(static_cast<int64_t>(base), stride, mask, top, pc.width - 1, out, even, stride_out, h, same)) {
      return false;
    }
  } else if ((mode == 2 || mode == 3) && mask == 0xffffffffu) {
    // A full warp of 1- or 2-byte offsets (read_packed()'s common case: scattered lanes, a radix
    // sort's scatters, a histogram's atomics): the shift byte, then the offsets, checked at once
    // through base and the OR of the shifted offsets. Measured: through the cursor (read_packed())
    // this took 90 instructions per execution of the random trace before a lane was unpacked.
    const ptrdiff_t bytes = mode == 2 ? kWarpSize : 2 * kWarpSize;
    const uint64_t utop = static_cast<uint64_t>(top);
    if (end - p < 1 + bytes || p[0] > 4 || base > utop) return false;
    // h.lanes is written too, for a mode 4 to come. (After a failed check the slow path reads the
    // lanes again: either the read fails, or it writes h.lanes again.)
    const uint64_t align = static_cast<uint64_t>(pc.width - 1);
    uint64_t hi = 0;
    if (!(mode == 2 ? unpack_full<1>(simd, p + 1, base, p[0], utop, align, out.data(), h.lanes.data(), &hi)
                    : unpack_full<2>(simd, p + 1, base, p[0], utop, align, out.data(), h.lanes.data(), &hi))) {
      return false;
    }
    p += 1 + bytes;
    remember(h, mask, out, static_cast<int64_t>(base), static_cast<int64_t>(hi), false, 0, true, true);
  } else {
    return false;
  }
  at = p;
  return true;
}

// The same from base:varint mode:u8 on (version 3).
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_lanes_fast(const uint8_t*& at, const uint8_t* end, uint32_t mask, std::array<uint32_t, kWarpSize>& out,
                            const TracePc& pc, CostPath simd, int64_t top, LaneState& h, bool& same, bool& even,
                            int32_t& stride_out, bool* deferred, int64_t& deferred_d) {
  const uint8_t* p = at;
  uint64_t base = 0;
  if (!varint5(p, base)) return false;
  const uint8_t mode = *p++;
  if (!lanes_fast(p, end, base, mode, mask, out, pc, simd, top, h, same, even, stride_out, deferred, deferred_d)) return false;
  at = p;
  return true;
}

// One execution's lanes after their base and mode (a 'W' execution's addresses and a source entry's
// alike; `mode` is one the version has), into out[lane] for the lanes of `mask` (not 0): each
// aligned to pc.width and at most `top`. A full warp evenly spaced (mode 0) sets `even` and
// `stride` (TraceWarp's). Returns false after r.fail(). Inlined: it is the reader's inner loop.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_lanes_body(Cursor& r, uint64_t base, uint8_t mode, uint32_t mask, std::array<uint32_t, kWarpSize>& out,
                            const TracePc& pc, uint32_t version, CostPath simd, int64_t top, const char* noun,
                            bool& even, int32_t& stride_out, LaneState& h, bool& same) {
  if (mode == 4) return same = read_repeat(r, mask, out, pc, simd, top, noun, base, h);
  if (mode >= 2) {
    const uint64_t b = std::min<uint64_t>(base, 0x100000000u);  // beyond 2^32: every lane fails
    const uint64_t utop = static_cast<uint64_t>(top);
    uint64_t hi = b;
    const bool ok = mode == 2 ? read_packed<1>(r, mask, out.data(), b, pc, simd, utop, noun, &hi)
                              : read_packed<2>(r, mask, out.data(), b, pc, simd, utop, noun, &hi);
    if (ok) remember_scattered(h, mask, out, static_cast<int64_t>(b), static_cast<int64_t>(hi), version);
    return ok;
  }
  int64_t a = static_cast<int64_t>(base > 0xffffffffu ? 0x100000000u : base);
  const int64_t stride = mode == 0 ? r.zvarint("stride") : 0;
  // width is a power of two (checked with its 'P' record): alignment is a mask test.
  const int64_t align = pc.width - 1;
  // A stride is bounded to +-2^33 so 32 steps of it cannot overflow int64.
  if (mode == 0 && (stride > (int64_t{1} << 33) || stride < -(int64_t{1} << 33))) {
    r.fail("stride " + std::to_string(stride) + " out of range");
    return false;
  }
  // Evenly spaced (read_even()).
  if (r.ok() && mode == 0 && mask != 0 && read_even(a, stride, mask, top, align, out, even, stride_out, h, same)) {
    return true;
  }
  // Mode 1 (one delta per lane) of a full warp, with the bytes for 31 deltas of up to 5 bytes left:
  // decoded without a bounds check per byte, and checked once through the lowest, highest and OR of
  // the addresses (every intermediate one included, as the loop below checks each). A longer delta
  // or a failed check goes back to the loop below, which names what is wrong. Deltas of up to 5
  // bytes (35 bits) cannot overflow the sum. (cuBLAS's cp.async sources, whose rows are far apart:
  // this loop was a fifth of `report` on its trace, measured.)
  if (mode == 1 && mask == 0xffffffffu && r.ok() && r.left() >= 31 * 5 && a >= 0 && a <= top) {
    const uint8_t* q = r.p;
    int64_t x = a, lo = a, hi = a;
    uint64_t any = static_cast<uint64_t>(a);
    out[0] = static_cast<uint32_t>(a);  // on a failed check the loop below writes every lane again
    bool fits = true;
    for (int lane = 1; lane < kWarpSize && fits; ++lane) {
      uint64_t u = q[0] & 0x7fu;
      int n = 1;
      while (q[n - 1] & 0x80u) {
        if (n == 5) {
          fits = false;
          break;
        }
        u |= uint64_t{q[n] & 0x7fu} << (7 * n);
        ++n;
      }
      q += n;
      x += static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
      any |= static_cast<uint64_t>(x);
      out[static_cast<size_t>(lane)] = static_cast<uint32_t>(x);
    }
    if (fits && lo >= 0 && hi <= top && (any & static_cast<uint64_t>(align)) == 0) {
      r.p = q;
      remember_scattered(h, mask, out, lo, hi, version);
      return true;
    }
  }
  bool first = true;
  int64_t lo = top, hi = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    if (!first) {
      if (mode == 0) {
        a += stride;
      } else {
        const int64_t d = r.zvarint("address delta");
        if (!r.ok()) break;
        a = d > top || d < -top ? -1 : a + d;
      }
    }
    first = false;
    if ((a < 0 || a > top || (a & align) != 0) && !lane_ok(r, lane, noun, a, top, pc)) return false;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
    out[lane] = static_cast<uint32_t>(a);
  }
  if (!r.ok()) return false;
  if (mode == 0) {
    remember(h, mask, out, lo, hi, true, stride, version >= 3);
  } else {
    remember_scattered(h, mask, out, lo, hi, version);
  }
  return true;
}

// The same from base:varint mode:u8 on (versions 1 to 3).
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_lanes(Cursor& r, uint32_t mask, std::array<uint32_t, kWarpSize>& out, const TracePc& pc,
                       uint32_t version, CostPath simd, int64_t top, const char* noun, bool& even, int32_t& stride_out,
                       LaneState& h, bool& same) {
  const uint8_t max_mode = version >= 3 ? 4 : version >= 2 ? 3 : 1;  // modes 2 and 3 are version 2's, 4 version 3's
  const uint64_t base = r.varint("base address");
  const uint8_t mode = r.u8("address mode");
  if (mode > max_mode) {
    r.fail("address mode " + std::to_string(mode) + " unknown (version " + std::to_string(version) + ")");
    return false;
  }
  return read_lanes_body(r, base, mode, mask, out, pc, version, simd, top, noun, even, stride_out, h, same);
}


// An 'S' record waiting for its 'W': a cursor at its next entry's lanes. `next` is that entry's
// execution index (none: past every index).
struct PendingSources {
  bool pending = false;
  size_t at = 0;  // the record's byte offset, for errors
  uint64_t left = 0;
  uint64_t next = std::numeric_limits<uint64_t>::max();
  Cursor r{nullptr, nullptr, nullptr, {}};
};

// Execution `i` of the 'W' record is src's next entry: its sources into w.src, then the next
// entry's index. Returns false after src.r.fail(). `deferred` as read_lanes_fast()'s.
inline bool attach_sources(PendingSources& src, TraceWarp& w, const TracePc& pc, uint64_t i, uint32_t version,
                    CostPath simd, LaneState& h, bool* deferred, int64_t& deferred_d) {
  Cursor& r = src.r;
  if (w.mask == 0) {
    r.fail("source entry for execution " + std::to_string(i) + ", whose mask is 0");
    return false;
  }
  // Sources are the low 32 bits of global addresses: every aligned value up to 2^32 - width is one.
  const int64_t top = int64_t{0x100000000} - pc.width;
  bool even = false;
  int32_t stride = 0;
  const uint8_t* p = r.p;
  if (version >= 3 && r.left() >= 16 &&
      read_lanes_fast(p, r.end, w.mask, w.src, pc, simd, top, h, w.src_same_offsets, even, stride, deferred, deferred_d)) {
    r.p = p;
  } else if (!read_lanes(r, w.mask, w.src, pc, version, simd, top, "source", even, stride, h, w.src_same_offsets)) {
    return false;
  }
  w.has_src = true;
  if (--src.left == 0) {
    src.next = std::numeric_limits<uint64_t>::max();
    if (r.left() != 0) r.fail("source record has " + std::to_string(r.left()) + " bytes left over");
    return r.ok();
  }
  const uint64_t next = r.varint("source execution index");
  if (r.ok() && next <= i) {
    r.fail("source execution index " + std::to_string(next) + " not above the previous one, " + std::to_string(i));
  }
  src.next = next;
  return r.ok();
}

// How the reader calls a sink's per-execution steps: on_warp() and on_repeat(), or what a
// specialization for the sink's class calls in their place (trace_report.cpp: the aggregator's
// steps themselves, inlined here; an always_inline on the virtual functions fails where they can be
// interposed, in the Python module's shared library).
template <class Sink>
struct SinkSteps {
  static void warp(Sink& s, const TraceWarp& w, const TracePc& pc) { s.on_warp(w, pc); }
  static bool repeat(Sink& s, const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero,
                     const TracePc& pc) {
    return s.on_repeat(w, first, src_first, src_nonzero, pc);
  }
};

// w's per-execution flags, in groups: even and stride, same_offsets, has_src and src_same_offsets.
constexpr unsigned kEvenFlags = 1, kSameFlag = 2, kSourceFlags = 4, kAllFlags = 7;

// An execution decoded, to the sink: as a TraceRepeat when its lanes (and its sources, if any) are
// deferred repeats and the sink takes it so, else with its lanes written out. Then w's per-execution
// flags are cleared for the next one: those in `flags_set`, all unless the caller knows which the
// execution's modes set.
template <class Sink>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void deliver(Sink& sink, TraceWarp& w, const TracePc& pc, CostPath simd, const LaneState& h,
                    const LaneState& hs, bool addr_deferred, int64_t addr_d, bool src_deferred, int64_t src_d,
                    unsigned flags_set = kAllFlags) {
  if (addr_deferred) {
    bool taken = false;
    if (!w.has_src) {
      taken = SinkSteps<Sink>::repeat(sink, w, static_cast<uint32_t>(h.first + addr_d), 0, false, pc);
    } else if (src_deferred) {
      // hs.lo bounds the pattern's sources from below.
      taken = SinkSteps<Sink>::repeat(sink, w, static_cast<uint32_t>(h.first + addr_d),
                                      static_cast<uint32_t>(hs.first + src_d), hs.lo + src_d > 0, pc);
    }
    if (!taken) {
      add_lanes(simd, h.lanes.data(), static_cast<uint32_t>(addr_d), w.addr.data());
      if (src_deferred) add_lanes(simd, hs.lanes.data(), static_cast<uint32_t>(src_d), w.src.data());
      SinkSteps<Sink>::warp(sink, w, pc);
    }
  } else {
    SinkSteps<Sink>::warp(sink, w, pc);
  }
  // Those the execution may have set (a constant where inlined by fast_step()).
  if (flags_set & kEvenFlags) {
    w.even = false;
    w.stride = 0;
  }
  if (flags_set & kSameFlag) w.same_offsets = false;
  if (flags_set & kSourceFlags) {
    w.has_src = false;
    w.src_same_offsets = false;
  }
}

inline uint32_t load_le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

// What a version 4 'W' record's executions are read against.
struct WarpContext {
  const std::vector<TracePc>& pcs;
  std::vector<LaneState>& addr_state;
  std::vector<LaneState>& src_state;
  TraceWarp& w;
  TraceSink& sink;
  CostPath simd;
  bool repeats;
  uint64_t& executions;
};

// Version 4's ctl bytes that ctl_ok() passes with a mask that is not 0 (the fast path's check).
struct CtlTable {
  std::array<bool, 256> ok{};
  constexpr CtlTable() {
    for (int c = 0; c < 256; ++c) ok[static_cast<size_t>(c)] = (c & 7) <= 4 && (c >> 5) <= 4 && ((c & 16) != 0 || (c >> 5) == 0);
  }
};
inline constexpr CtlTable kCtl{};

// Version 4's ctl byte, checked: the modes exist, sources only with lanes, and a mask of 0 with no
// mode. Returns false after r.fail().
inline bool ctl_ok(Cursor& r, uint8_t ctl, uint32_t mask) {
  const int mode = ctl & 7, src_mode = ctl >> 5;
  const bool src = (ctl & 16) != 0;
  if (mode > 4 || src_mode > 4) {
    r.fail("execution control 0x" + std::string(1, "0123456789abcdef"[ctl >> 4]) + "0123456789abcdef"[ctl & 15] +
           ": " + (mode > 4 ? "address" : "source") + " mode " + std::to_string(mode > 4 ? mode : src_mode) +
           " unknown (version 4)");
    return false;
  }
  if (!src && src_mode != 0) {
    r.fail("execution control: a source mode without sources");
    return false;
  }
  if (mask == 0 && (mode != 0 || src)) {
    r.fail(src ? "sources for an execution whose mask is 0" : "execution control: an address mode with a mask of 0");
    return false;
  }
  return true;
}

// A version 4 execution's lanes (or sources) at p: a base of `bytes` bytes (masked to them), then
// `mode`'s bytes. From the local pointer (lanes_fast(); `deferred` as there) when 16 bytes are
// left, else, or when lanes_fast() declines, through the cursor (read_lanes_body(), which names
// what is wrong; `base_noun` names a truncated base). p is moved past them. Returns false after
// r.fail().
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_lanes_v4(Cursor& r, const uint8_t*& p, const uint8_t* end, int bytes, uint32_t base_mask, uint8_t mode,
                          uint32_t mask, std::array<uint32_t, kWarpSize>& out, const TracePc& pc, CostPath simd,
                          int64_t top, const char* base_noun, const char* noun, bool& even, int32_t& stride,
                          LaneState& h, bool& same, bool* deferred, int64_t& deferred_d) {
  uint32_t base = 0;
  if (__builtin_expect(end - p >= 16, 1)) {
    base = load_le32(p) & base_mask;
    const uint8_t* q = p + bytes;
    if (__builtin_expect(lanes_fast(q, end, base, mode, mask, out, pc, simd, top, h, same, even, stride, deferred, deferred_d), 1)) {
      p = q;
      return true;
    }
    r.p = p + bytes;
  } else {
    r.p = p;
    base = r.fixed(bytes, base_noun);
    if (!r.ok()) return false;
  }
  if (!read_lanes_body(r, base, mode, mask, out, pc, 4, simd, top, noun, even, stride, h, same)) return false;
  p = r.p;
  return true;
}

// A version 4 field-widths byte's widths (bytes) and masks, and the fixed fields' offsets.
struct V4Widths {
  int bw, ww, pw, aw;
  uint32_t bm, wm, pm, am;
  int at_warp, at_pc, head;
  static constexpr uint32_t ones(int n) { return n == 4 ? 0xffffffffu : (1u << (8 * n)) - 1u; }
  constexpr explicit V4Widths(uint32_t widths)
      : bw(static_cast<int>(widths & 3) + 1), ww(static_cast<int>(widths >> 2 & 3) + 1),
        pw(static_cast<int>(widths >> 4 & 3) + 1), aw(static_cast<int>(widths >> 6 & 3) + 1), bm(ones(bw)),
        wm(ones(ww)), pm(ones(pw)), am(ones(aw)), at_warp(1 + bw), at_pc(1 + bw + ww), head(1 + bw + ww + pw) {}
};

// One execution of a version 4 'W' record at p, decoded into c.w (whose per-execution flags are
// clear) and sent to the sink (deliver()). Its fixed fields, and lanes and sources in modes 4 and 0,
// are read from a local pointer with one bounds check when 48 bytes are left (every field at its
// widest, and a 5-byte stride each); anything else through the cursor, which names what is wrong.
// p is moved past it. Returns false after r.fail(). read_warps_v4_body() decodes the commonest
// executions itself, and this the rest, out of line (in its loop, this step's registers spilled the
// common steps' to the stack).
template <int kWidths, int kSimd>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
bool read_one_v4(Cursor& r, const uint8_t*& pp, uint8_t widths_byte, WarpContext& c) {
  const V4Widths f(kWidths >= 0 ? static_cast<uint32_t>(kWidths) : widths_byte);
  const size_t npcs = c.pcs.size();
  const CostPath simd = kSimd >= 0 ? static_cast<CostPath>(kSimd < 0 ? 0 : kSimd) : c.simd;  // (the clamp: no -1 cast)
  const uint8_t* p = pp;
  const uint8_t* const end = r.end;
  TraceWarp& w = c.w;
  uint8_t ctl = 0;
  bool fast = end - p >= 48;
  if (__builtin_expect(fast, 1)) {
    ctl = p[0];
    w.block = load_le32(p + 1) & f.bm;
    w.warp = load_le32(p + f.at_warp) & f.wm;
    w.pc_index = load_le32(p + f.at_pc) & f.pm;
    const uint8_t* q = p + f.head;
    w.mask = 0xffffffffu;
    if (ctl & 8) {
      w.mask = load_le32(q);
      q += 4;
    }
    // The checks ctl_ok() makes (kCtl), in one test; when one fails, the cursor reads the
    // execution again and names what is wrong.
    fast = w.pc_index < npcs && (w.mask != 0 ? kCtl.ok[ctl] : ctl == 8);
    if (fast) p = q;
  }
  if (__builtin_expect(!fast, 0)) {
    r.p = p;
    ctl = r.u8("execution control");
    w.block = r.fixed(f.bw, "block");
    w.warp = r.fixed(f.ww, "warp");
    w.pc_index = r.fixed(f.pw, "pc index");
    w.mask = (ctl & 8) ? r.u32("active mask") : 0xffffffffu;
    if (!r.ok() || !ctl_ok(r, ctl, w.mask)) return false;
    if (w.pc_index >= npcs) {
      r.fail("execution refers to pc index " + std::to_string(w.pc_index) + ", " + std::to_string(npcs) + " declared");
      return false;
    }
    p = r.p;
  }
  const TracePc& pc = c.pcs[w.pc_index];
  LaneState& h = c.addr_state[w.pc_index];
  LaneState& hs = c.src_state[w.pc_index];
  bool addr_deferred = false, src_deferred = false;
  int64_t addr_d = 0, src_d = 0;  // exact: the checks of the bounds passed with them
  if (w.mask != 0) {
    if (!read_lanes_v4(r, p, end, f.aw, f.am, ctl & 7, w.mask, w.addr, pc, simd, int64_t{0xffffffffu} - pc.width,
                       "base address", "address", w.even, w.stride, h, w.same_offsets,
                       c.repeats ? &addr_deferred : nullptr, addr_d)) {
      return false;
    }
    if (ctl & 16) {
      // Sources are the low 32 bits of global addresses: every aligned value up to 2^32 - width
      // is one. Their base takes 4 bytes.
      bool even = false;
      int32_t stride = 0;
      if (!read_lanes_v4(r, p, end, 4, 0xffffffffu, ctl >> 5, w.mask, w.src, pc, simd,
                         int64_t{0x100000000} - pc.width, "source base", "source", even, stride, hs,
                         w.src_same_offsets, addr_deferred ? &src_deferred : nullptr, src_d)) {
        return false;
      }
      w.has_src = true;
    }
  }
  pp = p;
  deliver(c.sink, w, pc, simd, h, hs, addr_deferred, addr_d, src_deferred, src_d);
  return true;
}

// One execution of version 4 whose control byte is the constant kCtl (mode 2 or 3 of a full warp,
// mode 4 with sources in mode 4 or none, mode 0, or no lanes) at p, its pc index pci below the
// count of pcs: its lanes (and sources) by lanes_fast(), with its checks, then deliver(). p is
// moved past it. False when a check fails: nothing was sent, w's per-execution flags are clear, and
// read_one_v4() reads the execution again through the cursor, which names what is wrong.
template <uint8_t kCtl, class Sink>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool fast_step(const uint8_t*& p, const uint8_t* end, const V4Widths& f, uint32_t pci, const TracePc& pc,
                      LaneState& h, WarpContext& c, CostPath simd, TraceWarp& w, Sink& sink) {
  constexpr bool kMasked = (kCtl & 8) != 0, kSourced = (kCtl & 16) != 0;
  constexpr uint8_t kMode = kCtl & 7;
  const uint8_t* q = p + f.head;
  uint32_t mask = 0xffffffffu;
  if constexpr (kMasked) {
    mask = load_le32(q);
    q += 4;
    if (mask == 0 && (kMode != 0 || kSourced)) return false;  // ctl_ok() names it
  }
  LaneState& hs = kSourced ? c.src_state[pci] : h;  // (h: not read without sources)
  bool addr_deferred = false, src_deferred = false;
  int64_t addr_d = 0, src_d = 0;
  if (!kMasked || mask != 0) {
    const uint64_t base = load_le32(q) & f.am;
    q += f.aw;
    bool ok = lanes_fast(q, end, base, kMode, mask, w.addr, pc, simd, int64_t{0xffffffffu} - pc.width, h,
                         w.same_offsets, w.even, w.stride, c.repeats ? &addr_deferred : nullptr, addr_d);
    if (kSourced && ok) {
      // Sources are the low 32 bits of global addresses (read_one_v4()): a 4-byte base.
      const uint64_t src_base = load_le32(q);
      q += 4;
      bool even = false;
      int32_t stride = 0;
      ok = lanes_fast(q, end, src_base, kCtl >> 5, mask, w.src, pc, simd, int64_t{0x100000000} - pc.width, hs,
                      w.src_same_offsets, even, stride, addr_deferred ? &src_deferred : nullptr, src_d);
    }
    if (!ok) {
      w.even = false;
      w.stride = 0;
      w.same_offsets = false;
      w.src_same_offsets = false;
      return false;
    }
  }
  w.block = load_le32(p + 1) & f.bm;
  w.warp = load_le32(p + f.at_warp) & f.wm;
  w.pc_index = pci;
  w.mask = mask;
  if constexpr (kSourced) w.has_src = true;
  p = q;
  // The flags this execution's modes can have set (modes 2 and 3: none), for deliver() to clear.
  constexpr unsigned kSet = (kMode == 0 ? kEvenFlags | kSameFlag : kMode == 4 ? kSameFlag : 0u) | (kSourced ? kSourceFlags : 0u);
  deliver(sink, w, pc, simd, h, hs, addr_deferred, addr_d, src_deferred, src_d, kSet);
  return true;
}

// A version 4 'W' record's executions, after its count and widths byte. The commonest executions
// are decoded here, with one bounds check when 96 bytes are left (every fixed field at its widest
// and 64 bytes of offsets): a full warp of scattered lanes (mode 2 or 3: random lanes, a radix
// sort's scatters, a histogram's atomics), a repeat of a PC's kept lanes (mode 4: most executions
// of real kernels), with sources in mode 4 too (cp.async), and evenly spaced lanes (mode 0) or
// none, each by fast_step() for its control byte; everything else, and any of those whose quick
// checks fail, by read_one_v4(), which names what is wrong. Returns false after r.fail(). kWidths:
// the widths byte, or -1 for the record's (`widths_byte`); kSimd: the CostPath the lanes are
// unpacked on, or -1 for c.simd (read_warps_v4() below picks them). Measured on random lanes
// (callgrind, assets/results/cpu/report_profile_round20{,_old}.txt): 169 instructions per execution
// to decode with every step in one loop, 109 with these in a loop of their own (round 20, when the
// loop wrote their steps out itself, which fast_step() now takes from lanes_fast() and deliver()).
template <int kWidths, int kSimd, class Sink>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool read_warps_v4_body(Cursor& r, uint64_t count, uint8_t widths_byte, WarpContext& c) {
  const V4Widths f(kWidths >= 0 ? static_cast<uint32_t>(kWidths) : widths_byte);
  // Locals, not the context's vectors or the cursor's pointer (each a load per use through a
  // reference, measured).
  const TracePc* const pcs = c.pcs.data();
  const size_t npcs = c.pcs.size();
  LaneState* const as = c.addr_state.data();
  const CostPath simd = kSimd >= 0 ? static_cast<CostPath>(kSimd < 0 ? 0 : kSimd) : c.simd;  // (the clamp: no -1 cast)
  const uint8_t* p = r.p;
  const uint8_t* const end = r.end;
  Sink& sink = static_cast<Sink&>(c.sink);  // (Sink: c.sink's type, or a base of it)
  TraceWarp& w = c.w;  // its per-execution flags clear (deliver() clears them after each)
  for (uint64_t i = 0; i < count; ++i) {
    if (__builtin_expect(end - p >= 96, 1)) {
      const uint8_t ctl = p[0];
      const uint32_t pci = load_le32(p + f.at_pc) & f.pm;
      if (pci < npcs) {
        const TracePc& pc = pcs[pci];
        LaneState& h = as[pci];
        // Each control byte its own fast_step(), its code for its modes alone; the commonest first
        // (a switch's jump table took more instructions per execution).
#define BANKSCOPE_STEP(k) fast_step<k>(p, end, f, pci, pc, h, c, simd, w, sink)
        if (ctl - 2u <= 1u) {  // mode 2 or 3, a full warp
          if (ctl == 2 ? BANKSCOPE_STEP(0x02) : BANKSCOPE_STEP(0x03)) continue;
        } else if ((ctl & ~8) == 4) {  // mode 4, with or without a mask
          if (ctl == 4 ? BANKSCOPE_STEP(0x04) : BANKSCOPE_STEP(0x0c)) continue;
        } else if ((ctl & ~8) == 0x94) {  // mode 4 with sources in mode 4
          if (ctl == 0x94 ? BANKSCOPE_STEP(0x94) : BANKSCOPE_STEP(0x9c)) continue;
        } else if ((ctl & ~8) == 0) {  // mode 0, or no lanes (a mask of 0)
          if (ctl == 0 ? BANKSCOPE_STEP(0x00) : BANKSCOPE_STEP(0x08)) continue;
        }
#undef BANKSCOPE_STEP
      }
    }
    if (!read_one_v4<kWidths, kSimd>(r, p, widths_byte, c)) return false;
  }
  r.p = p;
  c.executions += count;
  return true;
}

#ifdef BANKSCOPE_TRACE_X86
// read_warps_v4_body() on the AVX2 path, compiled with AVX2's instructions, so that its vector
// steps (unpack(), add_lanes()) are inlined.
template <int kWidths, class Sink>
__attribute__((target("avx2"))) bool read_warps_v4_avx2(Cursor& r, uint64_t count, uint8_t widths_byte, WarpContext& c) {
  return read_warps_v4_body<kWidths, static_cast<int>(CostPath::kAvx2), Sink>(r, count, widths_byte, c);
}
#endif
// read_warps_v4_body() for the widths byte kWidths and the lanes' vector path kSimd (-1: the
// record's and the context's, at run time); on the AVX2 path read_warps_v4_avx2().
template <int kWidths, int kSimd, class Sink>
bool read_warps_v4_as(Cursor& r, uint64_t count, uint8_t widths_byte, WarpContext& c) {
#ifdef BANKSCOPE_TRACE_X86
  if constexpr (kSimd == static_cast<int>(CostPath::kAvx2)) {
    return read_warps_v4_avx2<kWidths, Sink>(r, count, widths_byte, c);
  } else {
    return read_warps_v4_body<kWidths, kSimd, Sink>(r, count, widths_byte, c);
  }
#else
  return read_warps_v4_body<kWidths, kSimd, Sink>(r, count, widths_byte, c);
#endif
}

// The executions of a 'W' record, by read_warps_v4_as() compiled for its fields' widths and the
// lanes' vector path where those are the common ones (on a trace of random lanes and on CUB's, 18
// and 16 fewer instructions per execution than with both read at run time: callgrind).
template <int kSimd, class Sink>
bool read_warps_v4_on(Cursor& r, uint64_t count, uint8_t widths, WarpContext& c) {
  switch (widths) {  // block 1 or 2 bytes, warp and pc index 1, base 2 or 3
    case 0x40: return read_warps_v4_as<0x40, kSimd, Sink>(r, count, widths, c);
    case 0x41: return read_warps_v4_as<0x41, kSimd, Sink>(r, count, widths, c);
    case 0x80: return read_warps_v4_as<0x80, kSimd, Sink>(r, count, widths, c);
    case 0x81: return read_warps_v4_as<0x81, kSimd, Sink>(r, count, widths, c);
    default: return read_warps_v4_as<-1, -1, Sink>(r, count, widths, c);
  }
}
template <class Sink>
bool read_warps_v4(Cursor& r, uint64_t count, uint8_t widths, WarpContext& c) {
  if (c.simd == CostPath::kAvx2) return read_warps_v4_on<static_cast<int>(CostPath::kAvx2), Sink>(r, count, widths, c);
  if (c.simd == CostPath::kAvx512) return read_warps_v4_on<static_cast<int>(CostPath::kAvx512), Sink>(r, count, widths, c);
  return read_warps_v4_as<-1, -1, Sink>(r, count, widths, c);
}


// The whole trace at data, each record to `sink` (read_trace() in trace.hpp). Sink: TraceSink, or a
// class derived from it whose calls the compiler can then bind (and inline) at compile time.
template <class Sink>
Result<TraceSummary> read_trace_as(const uint8_t* data, size_t size, Sink& sink) {
  Cursor c{data, data + size, data, {}};
  if (size < 12 || std::memcmp(data, kTraceMagic, 8) != 0) {
    return Error{"trace: not a bankscope trace (no BSTRACE header)"};
  }
  c.p += 8;
  const uint32_t version = c.u32("version");
  if (version < kTraceOldestVersion || version > kTraceVersion) {
    return Error{"trace: version " + std::to_string(version) + " (this reader reads versions " +
                 std::to_string(kTraceOldestVersion) + " to " + std::to_string(kTraceVersion) + ")"};
  }
  const CostPath simd = cost_path();
  const bool repeats = version >= 3 && sink.takes_repeats();

  TraceSummary sum;
  bool in_launch = false;
  TraceLaunch cur;
  std::vector<TracePc> pcs;
  std::vector<LaneState> addr_state, src_state;  // per pc index: mode 4's previous lanes
  TraceWarp w;
  PendingSources src;
  while (c.ok() && c.p != c.end) {
    if (sum.complete) {
      c.fail("data after the end-of-file record");
      break;
    }
    const size_t rec_at = c.offset();
    const uint8_t tag = c.u8("record tag");
    const uint64_t len = c.varint("record length");
    if (!c.ok()) break;
    if (len > c.left()) {
      c.fail("record " + tag_name(tag) + " at byte " + std::to_string(rec_at) +
             " needs " + std::to_string(len) + " bytes, " + std::to_string(c.left()) + " left (truncated file)");
      break;
    }
    Cursor r{c.p, c.p + len, data, {}};
    c.p += len;
    if (src.pending && tag != 'W') {  // (never in version 4: no 'S')
      r.fail("source record at byte " + std::to_string(src.at) + " not followed by a warp record (" + tag_name(tag) +
             " follows)");
      return Error{r.error};
    }
    switch (tag) {
      case 'K': {
        if (in_launch) r.fail("launch " + std::to_string(cur.launch) + " has no end record before the next launch");
        cur = TraceLaunch{};
        cur.launch = r.varint("launch index");
        cur.kernel = r.string("kernel name");
        for (auto& g : cur.grid) g = r.varint32("grid size");
        for (auto& t : cur.block) t = r.varint32("block size");
        cur.shared_bytes = r.varint("shared bytes");
        cur.reserved_bytes = r.varint("reserved bytes");
        cur.blocks_traced = r.varint("blocks traced");
        if (r.ok()) {
          uint64_t threads = uint64_t{cur.block[0]} * cur.block[1] * cur.block[2];
          if (threads == 0 || threads > 1024) r.fail("block of " + std::to_string(threads) + " threads (1..1024)");
        }
        if (!r.ok()) break;
        in_launch = true;
        pcs.clear();
        addr_state.clear();
        src_state.clear();
        ++sum.launches;
        sink.on_launch(cur);
        break;
      }
      case 'P': {
        if (!in_launch) {
          r.fail("instruction record outside a launch");
          break;
        }
        TracePc pc;
        pc.index = r.varint32("pc index");
        pc.pc = r.varint("pc");
        const uint8_t kind = r.u8("op kind");
        const uint64_t width = r.varint("width");
        pc.opcode = r.string("opcode");
        pc.file = r.string("source file");
        pc.line = r.varint32("source line");
        if (r.ok() && r.left() != 0) pc.guard = r.string("guard predicate");
        if (!r.ok()) break;
        if (pc.index != pcs.size()) {
          r.fail("pc index " + std::to_string(pc.index) + " out of order (expected " + std::to_string(pcs.size()) + ")");
          break;
        }
        if (kind >= kTraceOpKinds) {
          r.fail("op kind " + std::to_string(kind) + " unknown");
          break;
        }
        pc.kind = static_cast<TraceOpKind>(kind);
        if (width > 16 || !valid_width(static_cast<int>(width))) {
          r.fail("width " + std::to_string(width) + " at pc " + std::to_string(pc.pc) + " (1, 2, 4, 8 or 16)");
          break;
        }
        pc.width = static_cast<int>(width);
        pcs.push_back(pc);
        addr_state.emplace_back();
        src_state.emplace_back();
        sink.on_pc(pcs.back());
        break;
      }
      case 'W': {
        if (!in_launch) {
          r.fail("warp record outside a launch");
          break;
        }
        const uint64_t count = r.varint("warp count");
        if (version >= 4) {
          // Each execution takes at least 4 bytes (control, block, warp, pc index).
          const uint8_t widths = r.u8("field widths");
          if (r.ok() && count > r.left() / 4) r.fail("warp count " + std::to_string(count) + " larger than the record can hold");
          if (!r.ok()) break;
          WarpContext ctx{pcs, addr_state, src_state, w, sink, simd, repeats, sum.executions};
          if (read_warps_v4<Sink>(r, count, widths, ctx) && r.left() != 0) {
            r.fail("warp record has " + std::to_string(r.left()) + " bytes left over");
          }
          break;
        }
        // Each execution takes at least 7 bytes, so a count the record cannot hold is corrupt.
        if (count > r.left() / 7 + 1) {
          r.fail("warp count " + std::to_string(count) + " larger than the record can hold");
          break;
        }
        for (uint64_t i = 0; i < count && r.ok(); ++i) {
          // The head from a local pointer when its varints take at most 5 bytes (every real one) and
          // the pc index is declared, with one bounds check; else through the cursor, which names
          // what is wrong. Measured: the cursor, which the reader's calls take by reference, kept
          // its pointer in memory, and each field cost a store and a load of it.
          const uint8_t* p = r.p;
          uint64_t block = 0, warp = 0, pci = 0;
          if (r.left() >= 32 && varint5(p, block) && varint5(p, warp) && varint5(p, pci) &&
              ((block | warp) >> 32) == 0 && pci < pcs.size()) {
            w.block = static_cast<uint32_t>(block);
            w.warp = static_cast<uint32_t>(warp);
            w.pc_index = static_cast<uint32_t>(pci);
            w.mask = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
            r.p = p + 4;
          } else {
            w.block = r.varint32("block");
            w.warp = r.varint32("warp");
            w.pc_index = r.varint32("pc index");
            w.mask = r.u32("active mask");
            if (!r.ok()) break;
            if (w.pc_index >= pcs.size()) {
              r.fail("execution refers to pc index " + std::to_string(w.pc_index) + ", " + std::to_string(pcs.size()) +
                     " declared");
              break;
            }
          }
          const TracePc& pc = pcs[w.pc_index];
          // A mode 4 execution's lanes (and sources) on the fast path are written out (the pattern
          // h keeps, moved by d) only when the sink does not take it as a TraceRepeat.
          bool addr_deferred = false, src_deferred = false;
          int64_t addr_d = 0, src_d = 0;  // exact: the checks of the bounds passed with them
          if (w.mask != 0) {
            // The lanes likewise (read_lanes_fast(): modes 4 and 0 of a version 3 file), else
            // read_lanes().
            const uint8_t* q = r.p;
            const int64_t top = int64_t{0xffffffffu} - pc.width;
            LaneState& h = addr_state[w.pc_index];
            if (version >= 3 && r.left() >= 16 &&
                read_lanes_fast(q, r.end, w.mask, w.addr, pc, simd, top, h, w.same_offsets, w.even, w.stride,
                                repeats ? &addr_deferred : nullptr, addr_d)) {
              r.p = q;
            } else if (!read_lanes(r, w.mask, w.addr, pc, version, simd, top, "address", w.even, w.stride, h,
                                   w.same_offsets)) {
              break;
            }
          }
          if (i == src.next && !attach_sources(src, w, pc, i, version, simd, src_state[w.pc_index],
                                               addr_deferred ? &src_deferred : nullptr, src_d)) {
            r.fail_with(src.r.error);
            break;
          }
          ++sum.executions;
          deliver(sink, w, pc, simd, addr_state[w.pc_index], src_state[w.pc_index], addr_deferred, addr_d,
                  src_deferred, src_d);
        }
        if (r.ok() && r.left() != 0) r.fail("warp record has " + std::to_string(r.left()) + " bytes left over");
        if (r.ok() && src.pending && src.left != 0) {
          src.r.fail("source entry for execution " + std::to_string(src.next) + ", past the " + std::to_string(count) +
                     " executions of the warp record at byte " + std::to_string(rec_at));
          r.fail_with(src.r.error);
        }
        src = PendingSources{};
        break;
      }
      case 'S': {
        if (!in_launch) {
          r.fail("source record outside a launch");
          break;
        }
        if (version >= 4) {
          r.fail("source record in a version 4 file (its sources are in the warp record)");
          break;
        }
        const uint64_t count = r.varint("source count");
        // Each entry takes at least 3 bytes (index, base, mode), so a count the record cannot hold
        // is corrupt.
        if (r.ok() && count > r.left() / 3) {
          r.fail("source count " + std::to_string(count) + " larger than the record can hold");
          break;
        }
        src.pending = true;
        src.at = rec_at;
        src.left = count;
        if (count != 0) src.next = r.varint("source execution index");
        if (!r.ok()) break;
        if (count == 0 && r.left() != 0) {
          r.fail("source record has " + std::to_string(r.left()) + " bytes left over");
          break;
        }
        src.r = r;
        break;
      }
      case 'E': {
        TraceLaunchEnd e;
        e.launch = r.varint("launch index");
        e.executions = r.varint("executions");
        e.dropped = r.varint("dropped");
        const uint64_t st = r.varint("status");
        if (!r.ok()) break;
        if (!in_launch || e.launch != cur.launch) {
          r.fail("end of launch " + std::to_string(e.launch) + " without its start");
          break;
        }
        if (st > 3) {
          r.fail("launch status " + std::to_string(st) + " unknown");
          break;
        }
        e.status = static_cast<TraceStatus>(st);
        sum.dropped += e.dropped;
        in_launch = false;
        sink.on_launch_end(e);
        break;
      }
      case 'Z': {
        TraceEnd e;
        e.launches = r.varint("launch count");
        e.exit_code = r.zvarint("exit code");
        if (!r.ok()) break;
        if (in_launch) {
          r.fail("file ends inside launch " + std::to_string(cur.launch));
          break;
        }
        sum.complete = true;
        sink.on_end(e);
        break;
      }
      default:
        break;  // a record of a later minor version: skipped whole
    }
    if (!r.ok()) return Error{r.error};
  }
  if (!c.ok()) return Error{c.error};
  if (!sum.complete) {
    return Error{"trace: truncated at byte " + std::to_string(size) + " (no end-of-file record" +
                 (in_launch ? ", inside launch " + std::to_string(cur.launch) : std::string()) +
                 "; the program or the tracer stopped early)"};
  }
  return sum;
}

}  // namespace bankscope::trace_read
