// expr.hpp: the integer index expressions of a scenario, e.g. "threadIdx.y + j" or
// "blockIdx.x * 32 + threadIdx.x < n".
//
// C syntax and precedence: literals, variables, casts, unary - + ! ~, * / %, + -, << >>,
// < <= > >=, == !=, &, ^, |, &&, ||, ?:, parentheses. Integer semantics are CUDA C++'s (nvcc on
// Linux, where long is 64-bit), so an expression means what it means in the kernel:
//   types      int (32-bit), unsigned int, long long (64-bit; long is the same here),
//              unsigned long long. Every value is at least int, so no promotions are needed.
//   variables  threadIdx.*, blockIdx.*, blockDim.*, gridDim.* are unsigned int (CUDA's uint3 and
//              dim3); lane (= laneid) and warp are unsigned int too (as %laneid and
//              threadIdx.x / 32 would be); n is int (the kernels take `int n`); a loop variable is
//              int; a define has the type of its expression (`auto x = expr;`).
//   literals   C's rules: decimal without suffix is the first of int, long long that holds it;
//              octal (010 == 8), hex (0x) and binary (0b) the first of int, unsigned int,
//              long long, unsigned long long; suffixes u, l, ll and their combinations narrow the
//              list as in C. A literal no listed type holds is an error.
//   casts      (int), (unsigned), (unsigned int), (long), (unsigned long), (long long),
//              (unsigned long long), other spellings of those with signed/int, and (size_t),
//              (int32_t), (uint32_t), (int64_t), (uint64_t). A conversion wraps modulo 2^N (two's
//              complement, as nvcc does and C++20 requires).
//   operators  the usual arithmetic conversions apply to both operands of every binary operator
//              but shifts (whose type is the left operand's); comparisons, !, && and || give int;
//              ?: converts its two branches to their common type. So -1 < 0u is 0, as in C.
//   wrap       unsigned arithmetic, unary minus and ~ wrap modulo 2^32 or 2^64.
//   errors     what C++ leaves undefined is an error, not a guess: signed overflow (+ - * /,
//              INT_MIN % -1, unary minus), division or modulo by zero, a shift count negative or
//              not below the width of the left operand's type, a left shift of a negative value or
//              one whose result does not fit a signed type (1 << 31: the C rule; C++14 to C++17
//              would give INT_MIN, and no index expression should rely on that).
// Limits, so that no input can exhaust the stack: kMaxExprChars characters, kMaxExprNodes nodes,
// kMaxExprDepth levels of nesting.
//
// Variables live in numbered slots of an Env (the builtins below, then scenario defines and loop
// variables); a SymbolTable maps names to slots and types at parse time so evaluation does no
// lookups. Besides evaluation an Expr answers two questions the per-launch totals need: which
// slots it depends on, and a conservative interval of its value when each slot ranges over an
// interval.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "status.hpp"

namespace bankscope {

enum Slot : int {
  kThreadIdxX, kThreadIdxY, kThreadIdxZ,
  kBlockIdxX, kBlockIdxY, kBlockIdxZ,
  kBlockDimX, kBlockDimY, kBlockDimZ,
  kGridDimX, kGridDimY, kGridDimZ,
  kLane, kWarp, kN,
  kFirstUserSlot,
  kMaxSlots = 64,
};

inline constexpr size_t kMaxExprChars = 4096;
inline constexpr size_t kMaxExprNodes = 1024;
inline constexpr int kMaxExprDepth = 64;

using SlotMask = uint64_t;
inline constexpr SlotMask slot_bit(int s) { return SlotMask{1} << s; }
inline constexpr SlotMask kBlockIdxSlots =
    slot_bit(kBlockIdxX) | slot_bit(kBlockIdxY) | slot_bit(kBlockIdxZ);

// The C++ integer types of the language (sizes as with nvcc on Linux x86-64 and aarch64).
enum class ExprType : uint8_t { kInt, kUnsigned, kLongLong, kUnsignedLongLong };
const char* expr_type_name(ExprType t);  // "int", "unsigned int", "long long", "unsigned long long"

// Values are stored as int64_t: an int, unsigned int or long long as its value, an unsigned long
// long as its bit pattern (2^64 - 1 is stored as -1). A slot's value is converted to the slot's
// type when read (modulo 2^N, as passing it to the kernel would), so any int64 is a valid input.
struct Env {
  int64_t v[kMaxSlots] = {};
};

// Bounds of an expression's value, in the representation of Env: for int, unsigned int and long
// long the values themselves. An unsigned long long interval is its values when they are all at
// most INT64_MAX; one that may hold a larger value is [INT64_MIN, INT64_MAX], 'unknown' (any
// value of the type). So every value eval() can return lies in [lo, hi], and lo > 0 || hi < 0
// still proves a value nonzero. A slot whose interval does not fit its type is read as the whole
// type (its values wrap when read, see Env).
struct Interval {
  int64_t lo = 0;
  int64_t hi = 0;
  // Evaluating at some point of the box may fail (division by zero, overflow, a bad shift): the
  // bounds then say nothing about the failing points, and callers must not treat them as uniform.
  bool may_fail = false;
  bool is_point() const { return lo == hi; }
};
struct IntervalEnv {
  Interval v[kMaxSlots] = {};
};

// name -> (slot, type). Starts with the builtins; defines and loop variables are added in order.
class SymbolTable {
 public:
  SymbolTable();
  // Adds a name of the given type; fails if it exists, is a type name (int, size_t, ...) or no
  // slot is left. The default is the 64-bit signed type every variable had before types existed.
  Result<int> add(const std::string& name, ExprType type = ExprType::kLongLong);
  int find(const std::string& name) const;  // -1 if unknown
  const std::string& name(int slot) const { return names_[static_cast<size_t>(slot)]; }
  ExprType type(int slot) const { return types_[static_cast<size_t>(slot)]; }
  int size() const { return static_cast<int>(names_.size()); }
  // Slots a user slot depends on (for defines: the builtins its expression reads, transitively).
  SlotMask deps(int slot) const { return deps_[static_cast<size_t>(slot)]; }
  void set_deps(int slot, SlotMask m) { deps_[static_cast<size_t>(slot)] = m; }

 private:
  std::vector<std::string> names_;
  std::vector<ExprType> types_;
  std::vector<SlotMask> deps_;
};

class Expr {
 public:
  Expr() = default;
  // Parses `text`; errors name the column: "column 7: unknown variable 'threadIdx.w'".
  static Result<Expr> parse(const std::string& text, const SymbolTable& symbols);
  static Expr constant(int64_t v);  // a long long

  // The C type of the whole expression.
  ExprType type() const;
  // Evaluates; *out is the value as Env stores it (see there). On an error (division by zero,
  // signed overflow, a bad shift) returns false and sets *error.
  bool eval(const Env& env, int64_t* out, std::string* error) const;
  Interval interval(const IntervalEnv& env) const;
  // A value eval() returned, printed as this expression's type (an unsigned long long stored as
  // -1 prints 18446744073709551615).
  std::string value_text(int64_t v) const;

  // Slots read directly or (through defines) transitively.
  SlotMask deps(const SymbolTable& symbols) const;
  const std::string& text() const { return text_; }
  bool empty() const { return nodes_.empty(); }

  struct Node {
    uint8_t kind;  // see expr.cpp
    uint8_t op;
    ExprType type;                   // of the node's value
    ExprType operation;              // binary: the type it computes in (operands converted)
    int32_t a = -1, b = -1, c = -1;  // child node indices
    int64_t value = 0;               // constant (as Env stores it), or slot for a variable
  };

 private:
  std::vector<Node> nodes_;  // root is the last node
  std::string text_;
  friend class Parser;
};

}  // namespace bankscope
