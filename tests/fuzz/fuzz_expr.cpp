// fuzz_expr.cpp: libFuzzer target for the index-expression parser (sim/expr.hpp).
//
// The input is the expression text. A parse either fails with a one-line message or gives an Expr;
// an Expr is evaluated on a few thread environments (typical, zero, extreme values) and at random
// points of random boxes, and two properties of interval() are checked, because launch_totals()
// trusts those intervals to prove guards constant, so an unsound interval would silently give
// wrong per-launch totals:
//   - every value eval() returns at a point lies inside interval() over a box that holds the point;
//   - where eval() fails at a point, interval() over the box says may_fail.
// Besides the builtins, the symbol table has one define of each type (d_int, d_uint, d_ll, d_ull)
// and an int loop variable j, so random boxes cover every type, and their values wrap on reading.
#include <algorithm>
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

struct Symbols {
  SymbolTable table;
  int d_int, d_uint, d_ll, d_ull, j;
  Symbols() {
    d_int = *table.add("d_int", ExprType::kInt);
    d_uint = *table.add("d_uint", ExprType::kUnsigned);
    d_ll = *table.add("d_ll", ExprType::kLongLong);
    d_ull = *table.add("d_ull", ExprType::kUnsignedLongLong);
    j = *table.add("j", ExprType::kInt);
  }
};

// A thread of a typical launch: blockDim (32, 8, 1), gridDim (64, 64, 1), n = 2048, and values of
// the defines as a kernel would hold them.
Env typical_env(const Symbols& sym, int64_t tx, int64_t ty, int64_t bx, int64_t by) {
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
  e.v[sym.d_int] = tx - 16;
  e.v[sym.d_uint] = 4294967295 - tx;
  e.v[sym.d_ll] = bx * 100000000 - 3;
  e.v[sym.d_ull] = by;
  e.v[sym.j] = ty * 4;
  return e;
}

// The interval environment launch_totals() would build for that launch (all blocks).
IntervalEnv typical_intervals(const Symbols& sym) {
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
  ie.v[sym.d_int] = {-16, 15};
  ie.v[sym.d_uint] = {4294967264, 4294967295};
  ie.v[sym.d_ll] = {-3, 6300000000 - 3};
  ie.v[sym.d_ull] = {0, 63};
  ie.v[sym.j] = {0, 28};
  return ie;
}

IntervalEnv point_intervals(const Env& e) {
  IntervalEnv ie;
  for (int s = 0; s < kMaxSlots; ++s) ie.v[s] = {e.v[s], e.v[s]};
  return ie;
}

std::string show(const Expr& e, const Symbols& sym, const Env& env, const std::string& outcome, const Interval& iv) {
  std::string t = "'" + e.text() + "' (" + expr_type_name(e.type()) + ") " + outcome + " at";
  for (int s = 0; s < sym.table.size(); ++s) t += " " + sym.table.name(s) + "=" + std::to_string(env.v[s]);
  return t + "; interval [" + std::to_string(iv.lo) + ", " + std::to_string(iv.hi) + "]" +
         (iv.may_fail ? " may fail" : "");
}

// Checks eval() at env against interval() over `box` (which must hold env).
void check_point(const Expr& e, const Symbols& sym, const Env& env, const IntervalEnv& box, const char* what) {
  int64_t v = 0;
  std::string err;
  const Interval iv = e.interval(box);
  FUZZ_CHECK(iv.lo <= iv.hi, "empty " + std::string(what) + ": " + show(e, sym, env, "-", iv));
  if (!e.eval(env, &v, &err)) {
    FUZZ_CHECK(fuzz::one_line(err), "eval error message '" + err + "' for '" + e.text() + "'");
    FUZZ_CHECK(iv.may_fail, std::string(what) + " does not say may_fail: " + show(e, sym, env, "fails (" + err + ")", iv));
    return;
  }
  FUZZ_CHECK(iv.lo <= v && v <= iv.hi, std::string(what) + " misses the value: " + show(e, sym, env, "= " + e.value_text(v), iv));
}

void check_eval(const Expr& e, const Symbols& sym, const Env& env, const IntervalEnv* wide) {
  check_point(e, sym, env, point_intervals(env), "point interval");
  if (wide != nullptr) check_point(e, sym, env, *wide, "launch interval");
}

// splitmix64: a small deterministic generator, seeded from the input so a crash reproduces.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }

// A value worth trying for a slot: small, near a type's edge, or any 64 bits.
int64_t sample(Rng& r) {
  static const int64_t kEdges[] = {0, 1, -1, 31, 32, 63, 64, 2147483647, -2147483647 - 1, 2147483648,
                                   4294967295, 4294967296, kMax, kMin};
  switch (r.below(4)) {
    case 0: return static_cast<int64_t>(r.below(81)) - 40;
    case 1: return static_cast<int64_t>(r.below(1024));
    case 2: return wrap_add(kEdges[r.below(sizeof kEdges / sizeof kEdges[0])], static_cast<int64_t>(r.below(5)) - 2);
    default: return static_cast<int64_t>(r.next());
  }
}

// A point of [lo, hi]: an end or uniform inside.
int64_t inside(Rng& r, int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  switch (r.below(3)) {
    case 0: return lo;
    case 1: return hi;
    default:
      return static_cast<int64_t>(static_cast<uint64_t>(lo) + (span == ~uint64_t{0} ? r.next() : r.below(span + 1)));
  }
}

// Random boxes over every slot of the table, and random points inside each. An interval may be
// wider than its slot's type (its values then wrap when read); an unsigned long long one that
// holds a negative int64 is 'unknown' (see expr.hpp), and its points are any 64 bits.
void check_random_boxes(const Expr& e, const Symbols& sym, uint64_t seed) {
  Rng r{seed};
  for (int b = 0; b < 12; ++b) {
    IntervalEnv box;
    for (int s = 0; s < sym.table.size(); ++s) {
      int64_t lo = sample(r), hi = r.below(2) == 0 ? wrap_add(lo, static_cast<int64_t>(r.below(64))) : sample(r);
      if (hi < lo) std::swap(lo, hi);
      if (sym.table.type(s) == ExprType::kUnsignedLongLong && lo < 0) lo = kMin, hi = kMax;
      box.v[s] = {lo, hi};
    }
    for (int p = 0; p < 6; ++p) {
      Env env;
      for (int s = 0; s < sym.table.size(); ++s) env.v[s] = inside(r, box.v[s].lo, box.v[s].hi);
      check_point(e, sym, env, box, "box interval");
    }
  }
}

uint64_t hash(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const Symbols sym;
  auto parsed = Expr::parse(text, sym.table);
  if (!parsed) {
    FUZZ_NOTE(fuzz::one_line(parsed.error().message), "parse error is not one line: '" + parsed.error().message + "'");
    FUZZ_CHECK(!parsed.error().message.empty(), "empty parse error for '" + text + "'");
    return 0;
  }
  const Expr& e = *parsed;
  FUZZ_CHECK(!e.empty(), "parse succeeded with no nodes: '" + text + "'");
  FUZZ_CHECK((e.deps(sym.table) & ~(slot_bit(sym.table.size()) - 1)) == 0,
             "an expression depends on a slot the table does not have: '" + text + "'");

  const IntervalEnv wide = typical_intervals(sym);
  const int64_t corners[][4] = {{0, 0, 0, 0}, {31, 7, 63, 63}, {5, 3, 2, 1}, {17, 0, 63, 0}, {0, 7, 0, 63}};
  for (const auto& c : corners) check_eval(e, sym, typical_env(sym, c[0], c[1], c[2], c[3]), &wide);

  // Extreme values (not a real launch): overflow must be an error, never undefined behaviour.
  const int64_t extremes[] = {0, -1, kMin, kMax, int64_t{1} << 31, int64_t{1} << 32};
  for (int64_t x : extremes) {
    Env env;
    for (int s = 0; s < sym.table.size(); ++s) env.v[s] = (s % 2 == 0) ? x : (x == kMin ? kMax : -x);
    check_eval(e, sym, env, nullptr);
  }
  check_random_boxes(e, sym, hash(data, size));

  // An unbounded interval environment must not trip anything either.
  IntervalEnv top;
  for (int s = 0; s < kMaxSlots; ++s) top.v[s] = {kMin, kMax};
  const Interval t = e.interval(top);
  FUZZ_CHECK(t.lo <= t.hi, "empty interval [" + std::to_string(t.lo) + ", " + std::to_string(t.hi) + "] for '" + text + "'");
  return 0;
}
