// fuzz_expr.cpp: libFuzzer target for the index-expression parser (sim/expr.hpp).
//
// The input is the expression text. A parse either fails with a one-line message or gives an Expr;
// an Expr is evaluated on a few thread environments (typical, zero, extreme values), and every
// value eval() returns must lie inside interval() for an interval environment that contains the
// thread: launch_totals() trusts those intervals to prove guards constant, so an unsound interval
// would silently give wrong per-launch totals.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "fuzz_check.hpp"
#include "sim/expr.hpp"

using namespace bankscope;

namespace {

constexpr size_t kMaxInput = size_t{1} << 20;  // libFuzzer -max_len keeps generated inputs short; regressions may be long
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// A thread of a typical launch: blockDim (32, 8, 1), gridDim (64, 64, 1), n = 2048.
Env typical_env(int64_t tx, int64_t ty, int64_t bx, int64_t by) {
  Env e;
  e.v[kThreadIdxX] = tx;
  e.v[kThreadIdxY] = ty;
  e.v[kBlockIdxX] = bx;
  e.v[kBlockIdxY] = by;
  e.v[kBlockDimX] = 32;
  e.v[kBlockDimY] = 8;
  e.v[kBlockDimZ] = 1;
  e.v[kGridDimX] = 64;
  e.v[kGridDimY] = 64;
  e.v[kGridDimZ] = 1;
  e.v[kLane] = tx % 32;
  e.v[kWarp] = ty;
  e.v[kN] = 2048;
  return e;
}

// The interval environment launch_totals() would build for that launch (all blocks).
IntervalEnv typical_intervals() {
  IntervalEnv ie;
  ie.v[kThreadIdxX] = {0, 31};
  ie.v[kThreadIdxY] = {0, 7};
  ie.v[kBlockIdxX] = {0, 63};
  ie.v[kBlockIdxY] = {0, 63};
  ie.v[kBlockDimX] = {32, 32};
  ie.v[kBlockDimY] = {8, 8};
  ie.v[kBlockDimZ] = {1, 1};
  ie.v[kGridDimX] = {64, 64};
  ie.v[kGridDimY] = {64, 64};
  ie.v[kGridDimZ] = {1, 1};
  ie.v[kLane] = {0, 31};
  ie.v[kWarp] = {0, 7};
  ie.v[kN] = {2048, 2048};
  return ie;
}

IntervalEnv point_intervals(const Env& e) {
  IntervalEnv ie;
  for (int s = 0; s < kMaxSlots; ++s) ie.v[s] = {e.v[s], e.v[s]};
  return ie;
}

std::string show(const std::string& text, const Env& e, int64_t v, const Interval& iv) {
  return "'" + text + "' = " + std::to_string(v) + " at threadIdx.x=" + std::to_string(e.v[kThreadIdxX]) +
         " threadIdx.y=" + std::to_string(e.v[kThreadIdxY]) + " blockIdx.x=" + std::to_string(e.v[kBlockIdxX]) +
         " blockIdx.y=" + std::to_string(e.v[kBlockIdxY]) + ", interval [" + std::to_string(iv.lo) + ", " +
         std::to_string(iv.hi) + "]";
}

void check_eval(const Expr& e, const Env& env, const IntervalEnv* wide) {
  int64_t v = 0;
  std::string err;
  if (!e.eval(env, &v, &err)) {
    FUZZ_CHECK(fuzz::one_line(err), "eval error message '" + err + "' for '" + e.text() + "'");
    return;
  }
  const Interval point = e.interval(point_intervals(env));
  FUZZ_CHECK(point.lo <= v && v <= point.hi, "point interval misses the value: " + show(e.text(), env, v, point));
  if (wide != nullptr) {
    const Interval iv = e.interval(*wide);
    FUZZ_CHECK(iv.lo <= v && v <= iv.hi, "launch interval misses the value: " + show(e.text(), env, v, iv));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const SymbolTable symbols;
  auto parsed = Expr::parse(text, symbols);
  if (!parsed) {
    FUZZ_NOTE(fuzz::one_line(parsed.error().message), "parse error is not one line: '" + parsed.error().message + "'");
    FUZZ_CHECK(!parsed.error().message.empty(), "empty parse error for '" + text + "'");
    return 0;
  }
  const Expr& e = *parsed;
  FUZZ_CHECK(!e.empty(), "parse succeeded with no nodes: '" + text + "'");
  FUZZ_CHECK((e.deps(symbols) & ~(slot_bit(kFirstUserSlot) - 1)) == 0,
             "a builtin-only expression depends on a user slot: '" + text + "'");

  const IntervalEnv wide = typical_intervals();
  const int64_t corners[][4] = {{0, 0, 0, 0}, {31, 7, 63, 63}, {5, 3, 2, 1}, {17, 0, 63, 0}, {0, 7, 0, 63}};
  for (const auto& c : corners) check_eval(e, typical_env(c[0], c[1], c[2], c[3]), &wide);

  // Extreme values (not a real launch): overflow must be an error, never undefined behaviour.
  const int64_t extremes[] = {0, -1, kMin, kMax, int64_t{1} << 31};
  for (int64_t x : extremes) {
    Env env;
    for (int s = 0; s < kFirstUserSlot; ++s) env.v[s] = (s % 2 == 0) ? x : (x == kMin ? kMax : -x);
    check_eval(e, env, nullptr);
  }
  // An unbounded interval environment must not trip anything either.
  IntervalEnv top;
  for (int s = 0; s < kMaxSlots; ++s) top.v[s] = {kMin, kMax};
  const Interval t = e.interval(top);
  FUZZ_CHECK(t.lo <= t.hi, "empty interval [" + std::to_string(t.lo) + ", " + std::to_string(t.hi) + "] for '" + text + "'");
  return 0;
}
