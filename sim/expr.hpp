// expr.hpp: the integer index expressions of a scenario, e.g. "threadIdx.y + j" or
// "blockIdx.x * 32 + threadIdx.x < n".
//
// C syntax and precedence over 64-bit signed integers: literals (decimal, 0x hex), variables,
// unary - ! ~, * / %, + -, << >>, < <= > >=, == !=, &, ^, |, &&, ||, ?:, parentheses.
// Division by zero, overflow and out-of-range shifts are errors, not undefined behaviour.
// Limits, so that no input can exhaust the stack: kMaxExprChars characters, kMaxExprNodes nodes,
// kMaxExprDepth levels of nesting.
//
// Variables live in numbered slots of an Env (the builtins below, then scenario defines and loop
// variables); a SymbolTable maps names to slots at parse time so evaluation does no lookups.
// Besides evaluation an Expr answers two questions the per-launch totals need: which slots it
// depends on, and a conservative interval of its value when each slot ranges over an interval.
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

struct Env {
  int64_t v[kMaxSlots] = {};
};

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

// name -> slot. Starts with the builtins; defines and loop variables are added in order.
class SymbolTable {
 public:
  SymbolTable();
  // Adds a name; fails if it exists or no slot is left.
  Result<int> add(const std::string& name);
  int find(const std::string& name) const;  // -1 if unknown
  const std::string& name(int slot) const { return names_[static_cast<size_t>(slot)]; }
  int size() const { return static_cast<int>(names_.size()); }
  // Slots a user slot depends on (for defines: the builtins its expression reads, transitively).
  SlotMask deps(int slot) const { return deps_[static_cast<size_t>(slot)]; }
  void set_deps(int slot, SlotMask m) { deps_[static_cast<size_t>(slot)] = m; }

 private:
  std::vector<std::string> names_;
  std::vector<SlotMask> deps_;
};

class Expr {
 public:
  Expr() = default;
  // Parses `text`; errors name the column: "column 7: unknown variable 'threadIdx.w'".
  static Result<Expr> parse(const std::string& text, const SymbolTable& symbols);
  static Expr constant(int64_t v);

  // Evaluates; on division by zero / overflow returns false and sets *error.
  bool eval(const Env& env, int64_t* out, std::string* error) const;
  Interval interval(const IntervalEnv& env) const;

  // Slots read directly or (through defines) transitively.
  SlotMask deps(const SymbolTable& symbols) const;
  const std::string& text() const { return text_; }
  bool empty() const { return nodes_.empty(); }

  struct Node {
    uint8_t kind;  // see expr.cpp
    uint8_t op;
    int32_t a = -1, b = -1, c = -1;  // child node indices
    int64_t value = 0;               // constant, or slot for a variable
  };

 private:
  std::vector<Node> nodes_;  // root is the last node
  std::string text_;
  friend class Parser;
};

}  // namespace bankscope
