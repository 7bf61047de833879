// test_expr.cpp: index expressions: C precedence, checked arithmetic, interval bounds.
#include <doctest/doctest.h>

#include "sim/expr.hpp"

using namespace bankscope;

namespace {

Env make_env() {
  Env e;
  e.v[kThreadIdxX] = 5;
  e.v[kThreadIdxY] = 3;
  e.v[kBlockIdxX] = 2;
  e.v[kBlockDimX] = 32;
  e.v[kN] = 100;
  e.v[kLane] = 5;
  return e;
}

}  // namespace

TEST_CASE("evaluation follows C") {
  SymbolTable sym;
  const Env env = make_env();
  struct Row { const char* text; int64_t value; };
  const Row rows[] = {
      {"threadIdx.x", 5},
      {"blockIdx.x * 32 + threadIdx.x", 69},
      {"blockIdx.x * blockDim.x + threadIdx.x < n", 1},
      {"1 + 2 * 3", 7},
      {"(1 + 2) * 3", 9},
      {"7 / 2", 3},
      {"-7 / 2", -3},  // truncation toward zero
      {"-7 % 3", -1},
      {"threadIdx.x ^ threadIdx.y", 6},
      {"threadIdx.x ^ threadIdx.y & 1", 4},  // & binds tighter than ^
      {"1 << 4 + 1", 32},                    // + binds tighter than <<
      {"0x1f & 37", 5},
      {"threadIdx.x < 3 || threadIdx.y == 3", 1},
      {"threadIdx.x < 3 && threadIdx.y / 0", 0},  // short-circuit: / 0 not evaluated
      {"lane == laneid", 1},
      {"N", 100},
      {"threadIdx.x > 4 ? 10 : 20", 10},
      {"!threadIdx.x + ~0", -1},
      {"32u * 2", 64},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto e = Expr::parse(r.text, sym);
    REQUIRE(e.ok());
    int64_t v = 0;
    std::string err;
    REQUIRE(e->eval(env, &v, &err));
    CHECK(v == r.value);
  }
}

TEST_CASE("run-time errors are reported, not undefined") {
  SymbolTable sym;
  const Env env = make_env();
  struct Row { const char* text; const char* error; };
  const Row rows[] = {
      {"threadIdx.x / (threadIdx.y - 3)", "division by zero"},
      {"threadIdx.x % 0", "division by zero (modulo)"},
      {"9223372036854775807 + threadIdx.x", "integer overflow"},
      {"1 << 64", "shift count out of range"},
      {"4611686018427387904 * 2", "integer overflow"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto e = Expr::parse(r.text, sym);
    REQUIRE(e.ok());
    int64_t v = 0;
    std::string err;
    CHECK_FALSE(e->eval(env, &v, &err));
    CHECK(err == r.error);
  }
}

TEST_CASE("parse errors name the column") {
  SymbolTable sym;
  struct Row { const char* text; const char* error; };
  const Row rows[] = {
      {"threadIdx.w + 1", "column 1: unknown variable 'threadIdx.w' in 'threadIdx.w + 1'"},
      {"(threadIdx.x + 1", "column 17: expected ')' in '(threadIdx.x + 1'"},
      {"threadIdx.x +", "column 14: expression ends early in 'threadIdx.x +'"},
      {"3 $ 4", "column 3: unexpected '$' in '3 $ 4'"},
      {"99999999999999999999", "column 1: integer literal too large in '99999999999999999999'"},
      {"12abc", "column 3: malformed number in '12abc'"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto e = Expr::parse(r.text, sym);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().message == r.error);
  }
}

TEST_CASE("symbols: defines and dependencies") {
  SymbolTable sym;
  auto x = Expr::parse("blockIdx.x * 32 + threadIdx.x", sym);
  REQUIRE(x.ok());
  auto slot = sym.add("x");
  REQUIRE(slot.ok());
  sym.set_deps(*slot, x->deps(sym) | slot_bit(*slot));
  auto g = Expr::parse("x < n", sym);
  REQUIRE(g.ok());
  CHECK((g->deps(sym) & kBlockIdxSlots) != 0);
  auto t = Expr::parse("threadIdx.y + 8", sym);
  REQUIRE(t.ok());
  CHECK((t->deps(sym) & kBlockIdxSlots) == 0);
  CHECK_FALSE(sym.add("x").ok());
}

TEST_CASE("intervals are conservative and tight where it matters") {
  SymbolTable sym;
  IntervalEnv ie;
  ie.v[kThreadIdxX] = {0, 31};
  ie.v[kBlockIdxX] = {0, 63};
  ie.v[kN] = {2048, 2048};
  struct Row { const char* text; int64_t lo, hi; };
  const Row rows[] = {
      {"blockIdx.x * 32 + threadIdx.x", 0, 2047},
      {"blockIdx.x * 32 + threadIdx.x < n", 1, 1},       // provably true: whole grid in bounds
      {"blockIdx.x * 32 + threadIdx.x < 2000", 0, 1},    // may differ: edge blocks
      {"blockIdx.x * 32 + threadIdx.x >= 4096", 0, 0},   // provably false
      {"threadIdx.x % 8", 0, 7},
      {"threadIdx.x & 12", 0, 12},
      {"threadIdx.x ^ 5", 0, 31},
      {"threadIdx.x / 4", 0, 7},
      {"-threadIdx.x", -31, 0},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto e = Expr::parse(r.text, sym);
    REQUIRE(e.ok());
    const Interval iv = e->interval(ie);
    CHECK(iv.lo == r.lo);
    CHECK(iv.hi == r.hi);
  }
}

TEST_CASE("limits: no expression can exhaust the stack (found by fuzzing)") {
  SymbolTable sym;
  const std::string nested = std::string(100, '(') + "1" + std::string(100, ')');
  auto a = Expr::parse(nested, sym);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().message.find("column 65: nested more than 64 levels") == 0);
  const std::string minus(100, '-');
  auto b = Expr::parse(minus + "1", sym);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message.find("nested more than 64 levels") != std::string::npos);
  std::string sum = "1";
  for (int i = 0; i < 1500; ++i) sum += "+1";
  auto c = Expr::parse(sum, sym);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("expression too long (more than 1024 terms)") != std::string::npos);
  auto d = Expr::parse(std::string(5000, '1'), sym);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "expression of 5000 characters; at most 4096");
  // 64 levels are fine.
  auto e = Expr::parse(std::string(63, '(') + "7" + std::string(63, ')'), sym);
  REQUIRE(e.ok());
  int64_t v = 0;
  std::string err;
  REQUIRE(e->eval(Env{}, &v, &err));
  CHECK(v == 7);
  // Control characters are escaped so the message stays on one line.
  auto f = Expr::parse("threadIdx.x +\n$", sym);
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message == "column 15: unexpected '$' in 'threadIdx.x +\\x0a$'");
}

TEST_CASE("intervals say when evaluation may fail somewhere in the box") {
  SymbolTable sym;
  IntervalEnv ie;
  ie.v[kBlockIdxX] = {0, 63};
  ie.v[kThreadIdxX] = {0, 31};
  struct Row { const char* text; bool may_fail; };
  const Row rows[] = {
      {"32 / (blockIdx.x - 1)", true},            // blockIdx.x = 1 divides by zero
      {"32 / (blockIdx.x + 1)", false},
      {"(1 / (blockIdx.x - 1)) * 0 + 1", true},    // bounds [1, 1], but it fails in block 1
      {"blockIdx.x > 100 && 1 / (blockIdx.x - 1)", false},  // && never evaluates the right side
      {"1 << threadIdx.x", false},
      {"1 << (threadIdx.x * 3)", true},            // shift counts up to 93
      {"9223372036854775807 + threadIdx.x", true},
      {"threadIdx.x % (blockIdx.x - 5)", true},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto e = Expr::parse(r.text, sym);
    REQUIRE(e.ok());
    CHECK(e->interval(ie).may_fail == r.may_fail);
  }
}
