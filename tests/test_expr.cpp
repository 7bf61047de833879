// test_expr.cpp: index expressions: C precedence, CUDA C++ integer types and conversions, checked
// arithmetic, interval bounds.
//
// Every value row can be checked by hand against C++ (or by compiling it with nvcc, where
// threadIdx.x and friends are `unsigned int`). Values are given as the int64 that eval() returns:
// the value itself, except that an unsigned long long above INT64_MAX is its bit pattern.
#include <doctest/doctest.h>

#include <cstring>
#include <initializer_list>
#include <utility>

#include "sim/expr.hpp"
#include "sim/kernel_model.hpp"

using namespace bankscope;

namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

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

// One row of a value table: the text, the variables that differ from make_env(), and either the
// value and its C type or the error eval() reports.
struct ValueRow {
  const char* text;
  std::initializer_list<std::pair<int, int64_t>> vars;
  int64_t value;
  const char* type;   // expected type of the whole expression
  const char* error;  // nullptr: evaluation succeeds
};

void check_rows(std::initializer_list<ValueRow> rows) {
  SymbolTable sym;
  for (const ValueRow& r : rows) {
    const std::string text = r.text;
    CAPTURE(text);
    auto e = Expr::parse(text, sym);
    if (!e.ok()) {
      FAIL_CHECK(e.error().message);
      continue;
    }
    Env env = make_env();
    for (const auto& [slot, v] : r.vars) env.v[slot] = v;
    int64_t v = 0;
    std::string err;
    const bool ok = e->eval(env, &v, &err);
    if (r.error == nullptr) {
      CHECK_MESSAGE(ok, err);
      CHECK(v == r.value);
      CHECK(std::string(expr_type_name(e->type())) == r.type);
    } else {
      CHECK_FALSE(ok);
      CHECK(err == r.error);
    }
  }
}

}  // namespace

TEST_CASE("evaluation follows C") {
  check_rows({
      {"threadIdx.x", {}, 5, "unsigned int", nullptr},
      {"blockIdx.x * 32 + threadIdx.x", {}, 69, "unsigned int", nullptr},
      {"blockIdx.x * blockDim.x + threadIdx.x < n", {}, 1, "int", nullptr},
      {"1 + 2 * 3", {}, 7, "int", nullptr},
      {"(1 + 2) * 3", {}, 9, "int", nullptr},
      {"7 / 2", {}, 3, "int", nullptr},
      {"-7 / 2", {}, -3, "int", nullptr},  // truncation toward zero
      {"-7 % 3", {}, -1, "int", nullptr},
      {"threadIdx.x ^ threadIdx.y", {}, 6, "unsigned int", nullptr},
      {"threadIdx.x ^ threadIdx.y & 1", {}, 4, "unsigned int", nullptr},  // & binds tighter than ^
      {"1 << 4 + 1", {}, 32, "int", nullptr},                             // + binds tighter than <<
      {"0x1f & 37", {}, 5, "int", nullptr},
      {"threadIdx.x < 3 || threadIdx.y == 3", {}, 1, "int", nullptr},
      {"threadIdx.x < 3 && threadIdx.y / 0", {}, 0, "int", nullptr},  // short-circuit: / 0 not evaluated
      {"lane == laneid", {}, 1, "int", nullptr},
      {"N", {}, 100, "int", nullptr},
      {"threadIdx.x > 4 ? 10 : 20", {}, 10, "int", nullptr},
      {"!threadIdx.x + ~0", {}, -1, "int", nullptr},
      {"32u * 2", {}, 64, "unsigned int", nullptr},
  });
}

TEST_CASE("run-time errors are reported, not undefined") {
  check_rows({
      {"threadIdx.x / (threadIdx.y - 3)", {}, 0, "", "division by zero"},
      {"threadIdx.x % 0", {}, 0, "", "division by zero (modulo)"},
      {"9223372036854775807 + threadIdx.x", {}, 0, "", "integer overflow"},
      {"1 << 64", {}, 0, "", "shift count out of range"},
      {"4611686018427387904 * 2", {}, 0, "", "integer overflow"},
  });
}

// Issue 16, point 4: threadIdx and friends are unsigned int in CUDA, so lane 0's
// (threadIdx.x - 1) % 32 is 4294967295 % 32 = 31 on the GPU, not -1.
TEST_CASE("built-ins are unsigned int, n is int (CUDA)") {
  check_rows({
      {"(threadIdx.x - 1) % 32", {{kThreadIdxX, 0}}, 31, "unsigned int", nullptr},
      {"threadIdx.x - 1", {{kThreadIdxX, 0}}, 4294967295, "unsigned int", nullptr},
      {"(long long)threadIdx.x - 1", {{kThreadIdxX, 0}}, -1, "long long", nullptr},
      {"(int)threadIdx.x - 1", {{kThreadIdxX, 0}}, -1, "int", nullptr},
      {"-threadIdx.x", {{kThreadIdxX, 1}}, 4294967295, "unsigned int", nullptr},
      {"lane - 1", {{kLane, 0}}, 4294967295, "unsigned int", nullptr},
      {"laneid - 1", {{kLane, 0}}, 4294967295, "unsigned int", nullptr},
      {"warp - 1", {{kWarp, 0}}, 4294967295, "unsigned int", nullptr},
      {"gridDim.x - blockIdx.x - 3", {{kGridDimX, 2}, {kBlockIdxX, 0}}, 4294967295, "unsigned int", nullptr},
      {"blockDim.y - 1", {{kBlockDimY, 0}}, 4294967295, "unsigned int", nullptr},
      {"n - 200", {}, -100, "int", nullptr},                // n is int: no wrap
      {"n - threadIdx.x", {}, 95, "unsigned int", nullptr},  // int - unsigned is unsigned
      {"n - 200 < threadIdx.x", {}, 0, "int", nullptr},     // -100 becomes 4294967196 (as in C)
      // A value outside its slot's type is converted when read, as passing it to a kernel would.
      {"threadIdx.x", {{kThreadIdxX, -1}}, 4294967295, "unsigned int", nullptr},
      {"n", {{kN, 4294967295}}, -1, "int", nullptr},
  });
}

TEST_CASE("literals: C types, octal, suffixes") {
  check_rows({
      {"010", {}, 8, "int", nullptr},
      {"0", {}, 0, "int", nullptr},
      {"00", {}, 0, "int", nullptr},
      {"0777", {}, 511, "int", nullptr},
      {"017777777777", {}, 2147483647, "int", nullptr},
      {"020000000000", {}, 2147483648, "unsigned int", nullptr},  // octal/hex may be unsigned
      {"2147483647", {}, 2147483647, "int", nullptr},
      {"2147483648", {}, 2147483648, "long long", nullptr},  // decimal: int, then long long
      {"4294967295", {}, 4294967295, "long long", nullptr},
      {"0x7fffffff", {}, 2147483647, "int", nullptr},
      {"0xffffffff", {}, 4294967295, "unsigned int", nullptr},
      {"0xffffffff + 1", {}, 0, "unsigned int", nullptr},
      {"4294967295 + 1", {}, 4294967296, "long long", nullptr},
      {"0x100000000", {}, 4294967296, "long long", nullptr},
      {"0x7fffffffffffffff", {}, kInt64Max, "long long", nullptr},
      {"0x8000000000000000", {}, kInt64Min, "unsigned long long", nullptr},  // bits of 2^63
      {"0xffffffffffffffff", {}, -1, "unsigned long long", nullptr},         // bits of 2^64 - 1
      {"0XFF", {}, 255, "int", nullptr},
      {"0b101", {}, 5, "int", nullptr},  // C++14 binary literal
      {"9223372036854775807", {}, kInt64Max, "long long", nullptr},
      {"-2147483648", {}, -2147483648, "long long", nullptr},  // minus applied to a long long literal
      {"-2147483647 - 1", {}, -2147483648, "int", nullptr},
      {"1u", {}, 1, "unsigned int", nullptr},
      {"1U", {}, 1, "unsigned int", nullptr},
      {"1l", {}, 1, "long long", nullptr},  // long is 64-bit (LP64, as on Linux)
      {"1L", {}, 1, "long long", nullptr},
      {"1ll", {}, 1, "long long", nullptr},
      {"1LL", {}, 1, "long long", nullptr},
      {"1ul", {}, 1, "unsigned long long", nullptr},
      {"1LU", {}, 1, "unsigned long long", nullptr},
      {"1ull", {}, 1, "unsigned long long", nullptr},
      {"1llu", {}, 1, "unsigned long long", nullptr},
      {"1uLL", {}, 1, "unsigned long long", nullptr},
      {"2147483648u", {}, 2147483648, "unsigned int", nullptr},
      {"4294967296u", {}, 4294967296, "unsigned long long", nullptr},
      {"0xffffffffl", {}, 4294967295, "long long", nullptr},
      {"0xffffffffffffffffl", {}, -1, "unsigned long long", nullptr},
      {"18446744073709551615u", {}, -1, "unsigned long long", nullptr},
      {"0u - 1", {}, 4294967295, "unsigned int", nullptr},
  });
}

TEST_CASE("casts convert modulo 2^N") {
  check_rows({
      {"(int)(0u - 1)", {}, -1, "int", nullptr},
      {"(unsigned)-1", {}, 4294967295, "unsigned int", nullptr},
      {"(unsigned int)-1", {}, 4294967295, "unsigned int", nullptr},
      {"(int)4294967295", {}, -1, "int", nullptr},
      {"(int)2147483648", {}, -2147483648, "int", nullptr},
      {"(int)4294967296", {}, 0, "int", nullptr},
      {"(long)-1", {}, -1, "long long", nullptr},
      {"(long long)(0u - 1)", {}, 4294967295, "long long", nullptr},
      {"(unsigned long)-1", {}, -1, "unsigned long long", nullptr},
      {"(unsigned long long)-1 == 18446744073709551615u", {}, 1, "int", nullptr},
      {"(size_t)-1 > 0", {}, 1, "int", nullptr},
      {"(int32_t)0xffffffff", {}, -1, "int", nullptr},
      {"(uint32_t)-1", {}, 4294967295, "unsigned int", nullptr},
      {"(int64_t)(uint64_t)-1", {}, -1, "long long", nullptr},
      {"(uint64_t)1 << 63", {}, kInt64Min, "unsigned long long", nullptr},
      {"(signed)threadIdx.x", {}, 5, "int", nullptr},
      {"(long int)1", {}, 1, "long long", nullptr},
      {"(unsigned)-1 / 2", {}, 2147483647, "unsigned int", nullptr},  // a cast binds tighter than /
      {"(int)threadIdx.x * -1", {}, -5, "int", nullptr},
      {"( unsigned long long ) 3", {}, 3, "unsigned long long", nullptr},
      {"(long long)2147483647 + 1", {}, 2147483648, "long long", nullptr},
  });
}

TEST_CASE("usual arithmetic conversions, wrap and overflow") {
  check_rows({
      // Comparisons convert both sides first, and give int.
      {"-1 < 0u", {}, 0, "int", nullptr},
      {"-1 > 0u", {}, 1, "int", nullptr},
      {"-1 < 0", {}, 1, "int", nullptr},
      {"-1LL < 0u", {}, 1, "int", nullptr},  // long long holds every unsigned int
      {"-1 < 0ull", {}, 0, "int", nullptr},
      {"-1LL < 0ull", {}, 0, "int", nullptr},
      {"0xffffffffffffffff == -1", {}, 1, "int", nullptr},
      {"(0u - 1 > 0) - 2", {}, -1, "int", nullptr},
      {"(1u && 1) - 2", {}, -1, "int", nullptr},
      {"!0u - 2", {}, -1, "int", nullptr},
      // Unsigned arithmetic wraps.
      {"2147483647u + 1", {}, 2147483648, "unsigned int", nullptr},
      {"4294967295u + 1", {}, 0, "unsigned int", nullptr},
      {"65536u * 65536", {}, 0, "unsigned int", nullptr},
      {"18446744073709551615u + 2", {}, 1, "unsigned long long", nullptr},
      {"0ull - 1 == 0xffffffffffffffff", {}, 1, "int", nullptr},
      {"-0u", {}, 0, "unsigned int", nullptr},
      {"-1u", {}, 4294967295, "unsigned int", nullptr},
      {"~0u", {}, 4294967295, "unsigned int", nullptr},
      {"~0", {}, -1, "int", nullptr},
      {"~0ull", {}, -1, "unsigned long long", nullptr},
      {"(0u - 1) / 2", {}, 2147483647, "unsigned int", nullptr},
      {"-8 % 3u", {}, 2, "unsigned int", nullptr},  // 4294967288 % 3
      {"-7 / 2u", {}, 2147483644, "unsigned int", nullptr},
      {"-1 & 0xff", {}, 255, "int", nullptr},
      {"0xffffffff & -1", {}, 4294967295, "unsigned int", nullptr},
      {"-1 ^ 0u", {}, 4294967295, "unsigned int", nullptr},
      {"-1LL | 0u", {}, -1, "long long", nullptr},
      {"65536LL * 65536", {}, 4294967296, "long long", nullptr},
      {"1 + 1u + 1LL", {}, 3, "long long", nullptr},
      {"1LL + 1ull", {}, 2, "unsigned long long", nullptr},
      // ?: converts both branches to their common type.
      {"1 ? -1 : 0u", {}, 4294967295, "unsigned int", nullptr},
      {"0 ? 1u : -1", {}, 4294967295, "unsigned int", nullptr},
      {"1 ? -1 : 0LL", {}, -1, "long long", nullptr},
      {"threadIdx.x ? 1 : -1", {{kThreadIdxX, 0}}, -1, "int", nullptr},
      // Shifts: the type of the (promoted) left operand; counts checked against its width.
      {"1 << 30", {}, 1073741824, "int", nullptr},
      {"1u << 31", {}, 2147483648, "unsigned int", nullptr},
      {"(1u << 31) << 1", {}, 0, "unsigned int", nullptr},
      {"1LL << 32", {}, 4294967296, "long long", nullptr},
      {"1ull << 63", {}, kInt64Min, "unsigned long long", nullptr},
      {"1 << 2ull", {}, 4, "int", nullptr},
      {"threadIdx.x << 31", {{kThreadIdxX, 1}}, 2147483648, "unsigned int", nullptr},
      {"-1 >> 1", {}, -1, "int", nullptr},  // arithmetic right shift of a negative value
      {"-8 >> 1", {}, -4, "int", nullptr},
      {"0xffffffff >> 4", {}, 268435455, "unsigned int", nullptr},
      {"(-1 < 0u) << 3", {}, 0, "int", nullptr},
      // Errors: signed overflow, bad shifts, division by zero.
      {"1 << 31", {}, 0, "", "integer overflow"},
      {"2 << 30", {}, 0, "", "integer overflow"},
      {"1LL << 63", {}, 0, "", "integer overflow"},
      {"2147483647 + 1", {}, 0, "", "integer overflow"},
      {"-2147483647 - 2", {}, 0, "", "integer overflow"},
      {"65536 * 65536", {}, 0, "", "integer overflow"},
      {"-(-2147483647 - 1)", {}, 0, "", "integer overflow"},
      {"(-2147483647 - 1) / -1", {}, 0, "", "integer overflow"},
      {"(-2147483647 - 1) % -1", {}, 0, "", "integer overflow"},
      {"(int)threadIdx.x + 2147483647", {}, 0, "", "integer overflow"},
      {"-1 << 1", {}, 0, "", "left shift of a negative value"},
      {"1u << 32", {}, 0, "", "shift count out of range"},
      {"1 << 32u", {}, 0, "", "shift count out of range"},
      {"1 << -1", {}, 0, "", "shift count out of range"},
      {"1ull << 64", {}, 0, "", "shift count out of range"},
      {"1 / 0u", {}, 0, "", "division by zero"},
      {"1u % threadIdx.x", {{kThreadIdxX, 0}}, 0, "", "division by zero (modulo)"},
  });
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
      {"08", "column 2: invalid digit '8' in octal literal in '08'"},
      {"1 + 0179", "column 8: invalid digit '9' in octal literal in '1 + 0179'"},
      {"0b102", "column 5: invalid digit '2' in binary literal in '0b102'"},
      {"0x", "column 3: malformed number in '0x'"},
      {"0xg", "column 3: malformed number in '0xg'"},
      // Decimal without u: int or long long, and nothing larger.
      {"9223372036854775808", "column 1: integer literal too large in '9223372036854775808'"},
      {"18446744073709551615", "column 1: integer literal too large in '18446744073709551615'"},
      {"18446744073709551616u", "column 1: integer literal too large in '18446744073709551616u'"},
      {"0x10000000000000000", "column 1: integer literal too large in '0x10000000000000000'"},
      {"1uu", "column 2: invalid suffix 'uu' on integer literal in '1uu'"},
      {"1lL", "column 2: invalid suffix 'lL' on integer literal in '1lL'"},
      {"1lul", "column 2: invalid suffix 'lul' on integer literal in '1lul'"},
      {"1lll", "column 2: invalid suffix 'lll' on integer literal in '1lll'"},
      {"(unsigned long long long)1", "column 2: invalid type 'unsigned long long long' in '(unsigned long long long)1'"},
      {"(signed unsigned)1", "column 2: invalid type 'signed unsigned' in '(signed unsigned)1'"},
      {"(unsigned size_t)1", "column 2: invalid type 'unsigned size_t' in '(unsigned size_t)1'"},
      {"(int int)1", "column 2: invalid type 'int int' in '(int int)1'"},
      {"(int x)", "column 6: expected ')' in '(int x)'"},
      {"(int)", "column 6: expression ends early in '(int)'"},
      {"int + 1", "column 1: unknown variable 'int' in 'int + 1'"},
  };
  for (const Row& r : rows) {
    const std::string text = r.text;
    CAPTURE(text);
    auto e = Expr::parse(text, sym);
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
  struct Row { const char* text; int64_t lo, hi; bool may_fail; };
  const Row rows[] = {
      {"blockIdx.x * 32 + threadIdx.x", 0, 2047, false},
      {"blockIdx.x * 32 + threadIdx.x < n", 1, 1, false},      // provably true: whole grid in bounds
      {"blockIdx.x * 32 + threadIdx.x < 2000", 0, 1, false},   // may differ: edge blocks
      {"blockIdx.x * 32 + threadIdx.x >= 4096", 0, 0, false},  // provably false
      {"threadIdx.x % 8", 0, 7, false},
      {"threadIdx.x & 12", 0, 12, false},
      {"threadIdx.x ^ 5", 0, 31, false},
      {"threadIdx.x / 4", 0, 7, false},
      // Unsigned results that may wrap take the whole range of their type.
      {"threadIdx.x - 1", 0, 4294967295, false},
      {"(threadIdx.x - 1) % 32", 0, 31, false},
      {"-threadIdx.x", 0, 4294967295, false},
      {"0u - 1 - threadIdx.x", 4294967264, 4294967295, false},  // no wrap: exact
      {"threadIdx.x * 134217728", 0, 4160749568, false},        // 31 * 2^27 < 2^32: exact
      {"threadIdx.x * 268435456", 0, 4294967295, false},        // 31 * 2^28 wraps
      {"(int)threadIdx.x - 1", -1, 30, false},
      {"(long long)threadIdx.x - 1", -1, 30, false},
      {"(int)(threadIdx.x - 1)", -2147483648, 2147483647, false},
      {"n - 4096", -2048, -2048, false},
      {"threadIdx.x < n - 4096", 1, 1, false},  // -2048 converted to unsigned: 4294965248
      {"2147483647 + threadIdx.x", 2147483647, 2147483678, false},  // unsigned: no overflow
      // Signed overflow possible: may_fail, bounds of the points that do not fail.
      {"2147483647 + (int)threadIdx.x", 2147483647, 2147483647, true},
      {"1 << threadIdx.x", 1, 2147483647, true},  // 1 << 31 overflows int: clamped to INT_MAX
      {"1u << threadIdx.x", 1, 2147483648, false},
      // An unsigned long long that may exceed INT64_MAX is 'unknown': [INT64_MIN, INT64_MAX].
      {"0xffffffffffffffff", kInt64Min, kInt64Max, false},
      {"(unsigned long long)threadIdx.x - 1", kInt64Min, kInt64Max, false},
      {"((unsigned long long)threadIdx.x - 1) % 32", 0, 31, false},
      {"(unsigned long long)threadIdx.x + 5", 5, 36, false},
      // Every point fails (INT_MIN / -1, INT_MIN / 0): any bounds, but not empty (found by fuzzing).
      {"(-2147483647 - 1) / -(int)(threadIdx.x & 1)", -2147483648, 2147483647, true},
      // Shift counts from 2^32 - 32 up: all out of range.
      {"1 >> (4294967264LL + threadIdx.x)", -2147483648, 2147483647, true},
  };
  for (const Row& r : rows) {
    const std::string text = r.text;
    CAPTURE(text);
    auto e = Expr::parse(text, sym);
    REQUIRE(e.ok());
    const Interval iv = e->interval(ie);
    CHECK(iv.lo == r.lo);
    CHECK(iv.hi == r.hi);
    CHECK(iv.may_fail == r.may_fail);
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
      {"1u << threadIdx.x", false},
      {"1 << (threadIdx.x * 3)", true},            // shift counts up to 93
      {"9223372036854775807 + threadIdx.x", true},
      {"threadIdx.x % (blockIdx.x - 5)", true},
      {"(int)threadIdx.x << 27", true},            // 31 << 27 overflows int
      {"threadIdx.x << 27", false},                // unsigned: wraps
      {"1 << (int)threadIdx.x - 1", true},         // count -1 at threadIdx.x = 0
  };
  for (const Row& r : rows) {
    const std::string text = r.text;
    CAPTURE(text);
    auto e = Expr::parse(text, sym);
    REQUIRE(e.ok());
    CHECK(e->interval(ie).may_fail == r.may_fail);
  }
}

// The example through a whole scenario: lane 0 of `tile[(threadIdx.x - 1) % 32][...]`
// reads row 31, as on the GPU. A define has the type of its expression (unsigned here, so
// up + 1 wraps to 0 for lane 0 and the guard passes); a loop variable is int (so j - 1u is
// unsigned and wraps to 4294967295, row 31).
TEST_CASE("a scenario indexes with unsigned built-ins as CUDA does") {
  ScenarioSpec spec = seed_transpose_spec(32);
  spec.block = {32, 1, 1};
  spec.tile = {32, 1, 1};
  spec.n = 32;
  spec.grid = {1, 1, 1};
  spec.defines = {{"up", "threadIdx.x - 1"}};
  spec.accesses = {
      AccessSpec{"ld", "tile[(threadIdx.x - 1) % 32][0]", "", {}, 0, "", ""},
      AccessSpec{"ld", "tile[up % 32][1]", "up + 1 < 32", {}, 0, "", ""},
      AccessSpec{"ld", "tile[(j - 1u) % 32][2]", "", {LoopSpec{"j", 0, 1, 1}}, 0, "", ""},
  };
  auto s = compile(spec);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  auto w = warp_instructions(*s, Dim3{0, 0, 0}, 0);
  REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
  REQUIRE(w->size() == 3);
  const WarpAccess& a = (*w)[0].access;
  CHECK(a.mask == 0xffffffffu);
  CHECK(a.addr[0] == 31 * 32 * 4);  // lane 0: row 31
  CHECK(a.addr[1] == 0);            // lane 1: row 0
  CHECK(a.addr[5] == 4 * 32 * 4);   // lane 5: row 4
  const WarpAccess& b = (*w)[1].access;
  CHECK(b.mask == 0xffffffffu);  // lane 0: up + 1 == 0u < 32
  CHECK(b.addr[0] == (31 * 32 + 1) * 4);
  const WarpAccess& c = (*w)[2].access;
  CHECK(c.addr[0] == (31 * 32 + 2) * 4);
  CHECK(c.addr[31] == (31 * 32 + 2) * 4);
  // The per-launch totals agree with the brute force over every block.
  auto lt = launch_totals(*s);
  auto bf = launch_totals_brute_force(*s);
  REQUIRE(lt.ok());
  REQUIRE(bf.ok());
  CHECK(lt->ld.instructions == 3);
  CHECK(lt->ld.wavefronts == bf->ld.wavefronts);

  // An index is checked as a value: unsigned 4294967295 is not -1, and is outside the array.
  struct Row { const char* target; const char* error; };
  const Row rows[] = {
      {"tile[threadIdx.x - 1][0]", "index 4294967295 ('threadIdx.x - 1') is outside [0, 32) of tile"},
      {"tile[(int)threadIdx.x - 1][0]", "index -1 ('(int)threadIdx.x - 1') is outside [0, 32) of tile"},
      // 2^64 - 1 is stored as -1: rejected too (kernel_model prints the stored value).
      {"tile[(unsigned long long)threadIdx.x - 1][0]", "is outside [0, 32) of tile"},
  };
  for (const Row& r : rows) {
    const std::string target = r.target;
    CAPTURE(target);
    spec.defines.clear();
    spec.accesses = {AccessSpec{"ld", target, "", {}, 0, "", ""}};
    auto bad = compile(spec);
    REQUIRE(bad.ok());
    auto wb = warp_instructions(*bad, Dim3{0, 0, 0}, 0);
    REQUIRE_FALSE(wb.ok());
    CHECK(wb.error().message.find(r.error) != std::string::npos);
  }
}
