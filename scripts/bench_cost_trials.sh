#!/usr/bin/env bash
# bench_cost_trials.sh [RUNS [VARIANT...]]: what the unit check costs cost() on this machine, and
# exact ways tried to make it cheaper. Builds bankscope-bench from sim/bank_model.cpp of commit
# 173f6fb (as_is, below) and from TRIAL copies of it: no_check, whose 32-lane phase skips the busiest bank's
# distinct-unit check (units_distinct(); the count is then NOT exact when two lanes of that bank
# share a word: a measurement of what is left, never a build to use); five_lanes and rows64, exact
# alternatives to the check (round 12); global16, exact (round 14). Runs them alternately RUNS times
# (default 3) and writes the tables, with the machine's description, to
# assets/results/cpu/cost_trials.txt; with VARIANTs, only those (as_is, no_check, five_lanes,
# rows64, global16), to assets/results/cpu/cost_trials_VARIANT_VARIANT.txt. Needs build/
# (scripts/build.sh) for the sim library; run on an otherwise idle machine. The trials are patches
# of sim/bank_model.cpp as it was at commit 173f6fb (end of round 14), and as_is is that file: round
# 15 changed the check they patch (scripts/bench_cost_ir.sh measures that change).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench_cost_trials: RUNS must be a count of runs, not '$runs'" >&2; exit 2; }
shift || true
out=assets/results/cpu/cost_trials.txt
variants=(as_is no_check five_lanes rows64 global16)  # every trial (the patches below)
if (($# > 0)); then
  for v in "$@"; do
    [[ " ${variants[*]} " == *" $v "* ]] || { echo "bench_cost_trials: unknown variant '$v' (${variants[*]})" >&2; exit 2; }
  done
  variants=("$@")
  out=assets/results/cpu/cost_trials_$(IFS=_; echo "$*").txt
fi
lib=build/sim/libbankscope_sim.a
[[ -f $lib ]] || { echo "bench_cost_trials: $lib missing (run scripts/build.sh)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
base=173f6fb
git show "$base:sim/bank_model.cpp" >"$dir/as_is.cpp" 2>/dev/null ||
  { echo "bench_cost_trials: commit $base is not in this clone (a shallow clone? git fetch --unshallow)" >&2; exit 1; }
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
src = open(d + "/as_is.cpp").read()

def variant(name, patches):
    s = src
    for old, new in patches:
        if s.count(old) != 1:
            sys.exit("bench_cost_trials: sim/bank_model.cpp changed; trial " + name + " no longer applies:\n" + old)
        s = s.replace(old, new)
    open(d + "/" + name + ".cpp", "w").write(s)

# no_check (NOT exact): the 32-lane phase skips the busiest bank's distinct-unit check, on the
# portable path (SSE2 count) and the AVX2 path (cost_avx2_words): what the count alone costs.
variant("no_check", [
    ("    if (n >= 2 && (n > 8 || !units_distinct(addr, kShift, lanes))) {\n      return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);\n    }",
     "    if (n > 8) return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);\n    (void)lanes;"),
    ("  if (n >= 2 && (n > 8 || !units_distinct(addr, kWord ? 0 : 2, lanes))) return cost_default_avx2_dedupe(a, addr);",
     "  if (n > 8) return cost_default_avx2_dedupe(a, addr);\n  (void)lanes;"),
])
# five_lanes (exact): units_distinct() compares five lanes without a branch (four as it is), so
# only a busiest bank of six lanes or more takes the pairwise loop.
variant("five_lanes", [
    ("""  const uint32_t has3 = x != 0;
  const uint32_t u3 = addr[__builtin_ctz(x | 0x80000000u)] >> shift;
  x &= x - 1;
  const uint32_t dup2 = has2 & static_cast<uint32_t>((u2 == u0) | (u2 == u1));
  const uint32_t dup3 = has3 & static_cast<uint32_t>((u3 == u0) | (u3 == u1) | (u3 == u2));
  const uint32_t dup = static_cast<uint32_t>(u0 == u1) | dup2 | dup3;""",
     """  const uint32_t has3 = x != 0;
  const uint32_t u3 = addr[__builtin_ctz(x | 0x80000000u)] >> shift;
  x &= x - 1;
  const uint32_t has4 = x != 0;
  const uint32_t u4 = addr[__builtin_ctz(x | 0x80000000u)] >> shift;
  x &= x - 1;
  const uint32_t dup2 = has2 & static_cast<uint32_t>((u2 == u0) | (u2 == u1));
  const uint32_t dup3 = has3 & static_cast<uint32_t>((u3 == u0) | (u3 == u1) | (u3 == u2));
  const uint32_t dup4 = has4 & static_cast<uint32_t>((u4 == u0) | (u4 == u1) | (u4 == u2) | (u4 == u3));
  const uint32_t dup = static_cast<uint32_t>(u0 == u1) | dup2 | dup3 | dup4;"""),
])
# rows64 (exact, AVX2): in place of the lane mask and units_distinct(), the busiest bank's rows
# (byte address >> 7) modulo 64 as a 64-bit set made with vpsllvq and no branch; its popcount equal
# to the lane count proves the words distinct, else (two lanes on one word, or rows equal modulo 64)
# the lanes are compared one by one.
variant("rows64", [
    ("""  // The lanes on that bank: (byte address >> 2) & 31 of each lane, as bytes in lane order.
  const __m256i b31 = _mm256_set1_epi32(31);
  const __m256i k01 = _mm256_packs_epi32(_mm256_and_si256(_mm256_srli_epi32(x0, 2), b31),
                                         _mm256_and_si256(_mm256_srli_epi32(x1, 2), b31));
  const __m256i k23 = _mm256_packs_epi32(_mm256_and_si256(_mm256_srli_epi32(x2, 2), b31),
                                         _mm256_and_si256(_mm256_srli_epi32(x3, 2), b31));
  const __m256i keys = in_lane_order(_mm256_packs_epi16(k01, k23));
  const __m256i bank = _mm256_broadcastb_epi8(_mm_and_si128(least, _mm_cvtsi32_si128(31)));
  *lanes = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(keys, bank))) & mask;""",
     """  const __m256i bank4 = _mm256_broadcastd_epi32(_mm_slli_epi32(_mm_and_si128(least, _mm_cvtsi32_si128(31)), 2));
  const __m256i k63 = _mm256_set1_epi32(63), k7c = _mm256_set1_epi32(0x7c);
  const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
  __m256i rows = _mm256_setzero_si256();
#define BANKSCOPE_ROWS(X, G)                                                                                  \\
  {                                                                                                           \\
    const __m256i t = _mm256_xor_si256(X, bank4);                                                             \\
    __m256i r = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(t, 7), k63),                               \\
                                _mm256_slli_epi32(_mm256_and_si256(t, k7c), 4));                              \\
    if (!kFull) r = _mm256_or_si256(r, off[G]);                                                               \\
    rows = _mm256_or_si256(rows, _mm256_or_si256(_mm256_sllv_epi64(one, _mm256_and_si256(r, low32)),          \\
                                                 _mm256_sllv_epi64(one, _mm256_srli_epi64(r, 32))));          \\
  }
  BANKSCOPE_ROWS(x0, 0)
  BANKSCOPE_ROWS(x1, 1)
  BANKSCOPE_ROWS(x2, 2)
  BANKSCOPE_ROWS(x3, 3)
#undef BANKSCOPE_ROWS
  __m128i r2 = _mm_or_si128(_mm256_castsi256_si128(rows), _mm256_extracti128_si256(rows, 1));
  r2 = _mm_or_si128(r2, _mm_unpackhi_epi64(r2, r2));
  const int distinct_rows = __builtin_popcountll(static_cast<uint64_t>(_mm_cvtsi128_si64(r2)));
  const int busiest = 63 - static_cast<int>((static_cast<uint32_t>(_mm_cvtsi128_si32(least)) & 0xffffu) >> 5);
  if (distinct_rows == busiest) {
    *lanes = 0;  // proven distinct
  } else {
    const uint32_t b = static_cast<uint32_t>(_mm_cvtsi128_si32(least)) & 31u;
    uint32_t l = 0;
    for (uint32_t i = 0; i < kWarpSize; ++i) l |= static_cast<uint32_t>(((addr[i] >> 2) & 31u) == b) << i;
    *lanes = l & mask;
  }"""),
    ("  if (n >= 2 && (n > 8 || !units_distinct(addr, kWord ? 0 : 2, lanes))) return cost_default_avx2_dedupe(a, addr);",
     "  if (lanes != 0 && n >= 2 && (n > 8 || !units_distinct(addr, kWord ? 0 : 2, lanes))) return cost_default_avx2_dedupe(a, addr);"),
])
# global16 (exact, AVX2; round 14): beside the count and independent of it, whether any two active
# lanes share a unit (units folded to 15 bits, so equal units give equal keys; inactive lanes get
# keys no unit has): the 16-bit keys of each block of eight lanes against their rotations by 1 to 4,
# and the four blocks against each other by pcmpistrc (SSE4.2, "equal any": 64 pairs each). When
# none do, every bank's lane count is its count of distinct units and the busiest bank needs no
# check; else the check as it is.
variant("global16", [
    ("""template <bool kWord>
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost cost_avx2_words(""",
     """BANKSCOPE_TARGET_AVX2 static inline bool any_shared_unit(const uint32_t* addr, uint32_t mask) {
  const __m256i lo15 = _mm256_set1_epi32(0x7fff), top = _mm256_set1_epi32(0x8000);
  __m256i k[4];
  for (int g = 0; g < 4; ++g) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * g));
    __m256i key = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(x, 2), lo15), top);
    if (mask != 0xffffffffu) {
      const __m256i lane1 = _mm256_add_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8), _mm256_set1_epi32(8 * g));
      const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_sub_epi32(lane1, _mm256_set1_epi32(1)));
      const __m256i act = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bit), bit);
      key = _mm256_blendv_epi8(lane1, key, act);
    }
    k[g] = key;
  }
  const __m256i p01 = _mm256_packus_epi32(k[0], k[1]), p23 = _mm256_packus_epi32(k[2], k[3]);
  __m256i eq = _mm256_setzero_si256();
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p01, _mm256_alignr_epi8(p01, p01, 2)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p01, _mm256_alignr_epi8(p01, p01, 4)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p01, _mm256_alignr_epi8(p01, p01, 6)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p01, _mm256_alignr_epi8(p01, p01, 8)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p23, _mm256_alignr_epi8(p23, p23, 2)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p23, _mm256_alignr_epi8(p23, p23, 4)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p23, _mm256_alignr_epi8(p23, p23, 6)));
  eq = _mm256_or_si256(eq, _mm256_cmpeq_epi16(p23, _mm256_alignr_epi8(p23, p23, 8)));
  const __m128i A = _mm256_castsi256_si128(p01), B = _mm256_extracti128_si256(p01, 1);
  const __m128i C = _mm256_castsi256_si128(p23), D = _mm256_extracti128_si256(p23, 1);
  constexpr int kMode = _SIDD_UWORD_OPS | _SIDD_CMP_EQUAL_ANY;
  const int cross = _mm_cmpistrc(A, B, kMode) | _mm_cmpistrc(A, C, kMode) | _mm_cmpistrc(A, D, kMode) |
                    _mm_cmpistrc(B, C, kMode) | _mm_cmpistrc(B, D, kMode) | _mm_cmpistrc(C, D, kMode);
  return (cross | !_mm256_testz_si256(eq, eq)) != 0;
}

template <bool kWord>
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost cost_avx2_words("""),
    ("  if (n >= 2 && (n > 8 || !units_distinct(addr, kWord ? 0 : 2, lanes))) return cost_default_avx2_dedupe(a, addr);",
     "  if (n >= 2 && (n > 8 || (any_shared_unit(addr, mask) && !units_distinct(addr, kWord ? 0 : 2, lanes)))) return cost_default_avx2_dedupe(a, addr);"),
])
PY
flags=(-std=c++17 -O3 -DNDEBUG -I. -Isim -w "-DBANKSCOPE_SOURCE_DIR=\"$PWD\"")
for v in "${variants[@]}"; do
  c++ "${flags[@]}" -c "$dir/$v.cpp" -o "$dir/$v.o"
  c++ "${flags[@]}" tests/bench_model.cpp "$dir/$v.o" "$lib" -o "$dir/bench_$v"
done
state="$(git rev-parse --short HEAD)$(git diff --quiet -- sim || echo ' (with local changes)')"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  # The variants of this run only.
  for v in "${variants[@]}"; do
    case $v in
      as_is) echo "as_is: sim/bank_model.cpp at $base (the trials' base), with the rest of the sim library at $state" ;;
      no_check) echo "no_check: the same without the 32-lane phase's unit check (NOT exact)" ;;
      five_lanes) echo "five_lanes: units_distinct() with five lanes unbranched (exact)" ;;
      rows64) echo "rows64: the AVX2 check as a 64-bit row set (exact)" ;;
      global16) echo "global16: the AVX2 count beside a check of all active lanes for a shared unit (exact; the busiest bank's check only after one)" ;;
    esac
  done
  for r in $(seq 1 "$runs"); do
    for v in "${variants[@]}"; do
      echo
      echo "## run $r, $v, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
      "$dir/bench_$v" --no-launch --widths 1,2,4
    done
  done
} | tee "$out"
