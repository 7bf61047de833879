// expr.cpp: parser (precedence climbing) that types every node as C does, checked evaluation,
// interval bounds.
//
// [SECTION] Types and the arithmetic of one operation (shared by eval() and interval())
// [SECTION] Symbols
// [SECTION] Parser
// [SECTION] Evaluation
// [SECTION] Intervals
//
// One definition of each operation: apply_binary() and apply_unary() below compute a C++ result
// (or its error) on values as Env stores them (int64, an unsigned long long as its bits); eval()
// calls them at every node, and interval() whenever its operands are single values, so the two
// cannot disagree on a constant. Interval bounds are carried as 128-bit integers holding the
// mathematical values of the node's type (an unsigned long long from 0 to 2^64 - 1), so no bound
// computation can itself overflow.
#include "expr.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <limits>

namespace bankscope {

namespace {

enum Kind : uint8_t { kConst, kVar, kUnary, kBinary, kTernary, kCast };

enum BinOp : uint8_t {
  kMul, kDiv, kMod, kAdd, kSub, kShl, kShr, kLt, kLe, kGt, kGe, kEq, kNe,
  kBitAnd, kBitXor, kBitOr, kAnd, kOr,
};
enum UnOp : uint8_t { kNeg, kNot, kBitNot };

struct OpInfo {
  const char* text;
  BinOp op;
  int prec;  // higher binds tighter
};
// Longest spellings first so "<=" wins over "<" and "<<".
const OpInfo kBinOps[] = {
    {"<<", kShl, 9}, {">>", kShr, 9}, {"<=", kLe, 8}, {">=", kGe, 8}, {"==", kEq, 7},
    {"!=", kNe, 7},  {"&&", kAnd, 3}, {"||", kOr, 2}, {"*", kMul, 11}, {"/", kDiv, 11},
    {"%", kMod, 11}, {"+", kAdd, 10}, {"-", kSub, 10}, {"<", kLt, 8}, {">", kGt, 8},
    {"&", kBitAnd, 6}, {"^", kBitXor, 5}, {"|", kBitOr, 4},
};

// 128-bit intermediates hold every value of every type and every exact sum, difference and
// product of two 64-bit values but one (unsigned long long * unsigned long long, handled apart)
// (GCC/Clang extension).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr i128 kU64Max = i128(std::numeric_limits<uint64_t>::max());

// [SECTION] Types and the arithmetic of one operation

constexpr ExprType kInt = ExprType::kInt;
constexpr ExprType kUInt = ExprType::kUnsigned;
constexpr ExprType kLL = ExprType::kLongLong;
constexpr ExprType kULL = ExprType::kUnsignedLongLong;

constexpr bool is_signed(ExprType t) { return t == kInt || t == kLL; }
constexpr int width(ExprType t) { return (t == kInt || t == kUInt) ? 32 : 64; }
constexpr i128 type_min(ExprType t) {
  return t == kInt ? i128(std::numeric_limits<int32_t>::min()) : t == kLL ? i128(kMin) : i128(0);
}
constexpr i128 type_max(ExprType t) {
  return t == kInt    ? i128(std::numeric_limits<int32_t>::max())
         : t == kUInt ? i128(std::numeric_limits<uint32_t>::max())
         : t == kLL   ? i128(kMax)
                      : kU64Max;
}
bool fits(i128 v, ExprType t) { return v >= type_min(t) && v <= type_max(t); }

// v modulo 2^N, as the int64 Env stores for type t (the conversion of C++20 [conv.integral]).
int64_t to_bits(i128 v, ExprType t) {
  const uint64_t low = static_cast<uint64_t>(static_cast<u128>(v));
  switch (t) {
    case kInt: return static_cast<int32_t>(static_cast<uint32_t>(low));
    case kUInt: return static_cast<uint32_t>(low);
    default: return static_cast<int64_t>(low);
  }
}
// The value of type t that Env stores as `bits`.
i128 from_bits(int64_t bits, ExprType t) { return t == kULL ? i128(static_cast<uint64_t>(bits)) : i128(bits); }
// v converted to type t (wraps modulo 2^N).
i128 convert(i128 v, ExprType t) { return fits(v, t) ? v : from_bits(to_bits(v, t), t); }

// The usual arithmetic conversions (C++ [expr.arith.conv]) for two types that are at least int.
ExprType common_type(ExprType a, ExprType b) {
  if (a == b) return a;
  if (is_signed(a) == is_signed(b)) return width(a) >= width(b) ? a : b;
  const ExprType u = is_signed(a) ? b : a;
  const ExprType s = is_signed(a) ? a : b;
  // The unsigned type wins unless the signed one is wider (and so holds all its values).
  return width(u) >= width(s) ? u : s;
}

bool is_comparison(uint8_t op) { return op >= kLt && op <= kNe; }
bool is_shift(uint8_t op) { return op == kShl || op == kShr; }

// The type a binary operator computes in: the left operand's for shifts, else the common type.
ExprType operation_type(uint8_t op, ExprType a, ExprType b) { return is_shift(op) ? a : common_type(a, b); }
// The type of its result: int for comparisons and && ||.
ExprType result_type(uint8_t op, ExprType a, ExprType b) {
  return (is_comparison(op) || op == kAnd || op == kOr) ? kInt : operation_type(op, a, b);
}

// Bits of type t as Env stores them (see to_bits), converted to type t: only the low 32 or 64 bits
// matter, whatever the source type.
int64_t convert_bits(int64_t v, ExprType t) {
  switch (t) {
    case kInt: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case kUInt: return static_cast<uint32_t>(static_cast<uint64_t>(v));
    default: return v;
  }
}

// a op b on stored values (Env's representation), both already converted to t; for shifts a is of
// type t and b is the count, of type tb. Returns false and sets *err where C++ has undefined
// behaviour or a division by zero. && and || are not handled here (they short-circuit).
// Works on int64 (exact for every 32-bit operation; __builtin_*_overflow for long long; native
// wrap for unsigned long long): eval() runs per lane, so this is the model's hot path.
bool apply_binary(uint8_t op, ExprType t, ExprType tb, int64_t a, int64_t b, int64_t* out, const char** err) {
  auto fail = [&](const char* what) {
    *err = what;
    return false;
  };
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  // Signed: the exact result, or an error; unsigned: the result modulo 2^N.
  auto narrow = [&](int64_t r) {  // r exact in int64, t a 32-bit type
    if (t == kInt && (r < std::numeric_limits<int32_t>::min() || r > std::numeric_limits<int32_t>::max())) {
      return fail("integer overflow");
    }
    *out = convert_bits(r, t);
    return true;
  };
  switch (op) {
    case kAdd:
    case kSub:
    case kMul:
      if (t == kULL) {
        *out = static_cast<int64_t>(op == kAdd ? ua + ub : op == kSub ? ua - ub : ua * ub);
        return true;
      }
      if (t == kLL) {
        const bool overflow = op == kAdd   ? __builtin_add_overflow(a, b, out)
                              : op == kSub ? __builtin_sub_overflow(a, b, out)
                                           : __builtin_mul_overflow(a, b, out);
        return overflow ? fail("integer overflow") : true;
      }
      // 32-bit operands: sums and differences are exact in int64, and so are products of two ints
      // (< 2^62); an unsigned int product (< 2^64) wraps in uint64 as it must modulo 2^32.
      if (op == kMul) return t == kUInt ? narrow(static_cast<int64_t>(ua * ub & 0xffffffffu)) : narrow(a * b);
      return narrow(op == kAdd ? a + b : a - b);
    case kDiv:
    case kMod:
      if (b == 0) return fail(op == kDiv ? "division by zero" : "division by zero (modulo)");
      if (t == kULL) return (*out = static_cast<int64_t>(op == kDiv ? ua / ub : ua % ub), true);
      // INT_MIN / -1 overflows, and C++ leaves INT_MIN % -1 undefined with it.
      if (is_signed(t) && b == -1 && a == static_cast<int64_t>(type_min(t))) return fail("integer overflow");
      *out = op == kDiv ? a / b : a % b;  // truncation toward zero, as C++
      return true;
    case kShl:
    case kShr: {
      const bool negative_count = tb != kULL && b < 0;  // an unsigned long long count is never negative
      if (negative_count || ub >= static_cast<uint64_t>(width(t))) return fail("shift count out of range");
      const int c = static_cast<int>(b);
      if (op == kShr) {
        *out = t == kULL ? static_cast<int64_t>(ua >> c) : a >> c;  // arithmetic if negative
        return true;
      }
      if (is_signed(t)) {
        if (a < 0) return fail("left shift of a negative value");
        if (a > (static_cast<int64_t>(type_max(t)) >> c)) return fail("integer overflow");
        *out = a << c;
        return true;
      }
      *out = convert_bits(static_cast<int64_t>(ua << c), t);
      return true;
    }
    case kLt: return (*out = t == kULL ? ua < ub : a < b, true);
    case kLe: return (*out = t == kULL ? ua <= ub : a <= b, true);
    case kGt: return (*out = t == kULL ? ua > ub : a > b, true);
    case kGe: return (*out = t == kULL ? ua >= ub : a >= b, true);
    case kEq: return (*out = a == b, true);
    case kNe: return (*out = a != b, true);
    // Values of one type in its stored form: the result is in that form too.
    case kBitAnd: return (*out = a & b, true);
    case kBitXor: return (*out = a ^ b, true);
    case kBitOr: return (*out = a | b, true);
    default: return fail("bad expression node");
  }
}

// op a, with a (stored) of type t, the result's type for - and ~; ! gives int.
bool apply_unary(uint8_t op, ExprType t, int64_t a, int64_t* out, const char** err) {
  switch (op) {
    case kNeg:
      if (is_signed(t) && a == static_cast<int64_t>(type_min(t))) return (*err = "integer overflow", false);
      *out = convert_bits(static_cast<int64_t>(0 - static_cast<uint64_t>(a)), t);
      return true;
    case kBitNot: *out = convert_bits(~a, t); return true;
    default: *out = a == 0; return true;
  }
}

// C type names a cast may use, and how they combine.
enum class TypeWord : uint8_t { kSigned, kUnsignedWord, kIntWord, kLong, kShort, kChar, kTypedef };
struct TypeWordInfo {
  const char* text;
  TypeWord word;
  ExprType typedef_type;  // for kTypedef
};
const TypeWordInfo kTypeWords[] = {
    {"signed", TypeWord::kSigned, kInt},     {"unsigned", TypeWord::kUnsignedWord, kInt},
    {"int", TypeWord::kIntWord, kInt},       {"long", TypeWord::kLong, kInt},
    {"short", TypeWord::kShort, kInt},       {"char", TypeWord::kChar, kInt},
    {"size_t", TypeWord::kTypedef, kULL},    {"int32_t", TypeWord::kTypedef, kInt},
    {"uint32_t", TypeWord::kTypedef, kUInt}, {"int64_t", TypeWord::kTypedef, kLL},
    {"uint64_t", TypeWord::kTypedef, kULL},
};
const TypeWordInfo* find_type_word(const std::string& w) {
  for (const TypeWordInfo& t : kTypeWords) {
    if (w == t.text) return &t;
  }
  return nullptr;
}

}  // namespace

const char* expr_type_name(ExprType t) {
  switch (t) {
    case ExprType::kInt: return "int";
    case ExprType::kUnsigned: return "unsigned int";
    case ExprType::kLongLong: return "long long";
    case ExprType::kUnsignedLongLong: return "unsigned long long";
  }
  return "?";
}

// [SECTION] Symbols

SymbolTable::SymbolTable() {
  names_ = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
            "blockIdx.z",  "blockDim.x",  "blockDim.y",  "blockDim.z", "gridDim.x",
            "gridDim.y",   "gridDim.z",   "lane",        "warp",       "n"};
  // CUDA declares threadIdx and blockIdx as uint3, blockDim and gridDim as dim3 (unsigned int
  // members: documented by NVIDIA, CUDA C++ Programming Guide, "Built-in Variables"). lane and warp
  // stand for %laneid (a .u32 PTX special register) and threadIdx.x / 32: unsigned int too. n is
  // the kernels' `int n`.
  types_.assign(names_.size(), kUInt);
  types_[kN] = kInt;
  deps_.resize(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) deps_[i] = slot_bit(static_cast<int>(i));
}

Result<int> SymbolTable::add(const std::string& name, ExprType type) {
  if (find(name) >= 0) return Error{"'" + name + "' is already defined"};
  // A cast is recognised by its type name, so a variable cannot take one.
  if (find_type_word(name) != nullptr) return Error{"'" + name + "' is a C type name"};
  if (size() >= kMaxSlots) return Error{"too many variables (at most " + std::to_string(kMaxSlots - kFirstUserSlot) + " defines and loop variables)"};
  names_.push_back(name);
  types_.push_back(type);
  deps_.push_back(slot_bit(size() - 1));
  return size() - 1;
}

int SymbolTable::find(const std::string& name) const {
  if (name == "N") return kN;
  if (name == "laneid") return kLane;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

// [SECTION] Parser

class Parser {
 public:
  Parser(const std::string& s, const SymbolTable& sym, Expr& out) : s_(s), sym_(sym), e_(out) {}

  Result<int> parse_all() {
    auto r = parse_ternary();
    if (!r) return r;
    skip_ws();
    if (pos_ != s_.size()) return fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return r;
  }

 private:
  Error fail(const std::string& what) const { return fail_at(pos_, what); }
  Error fail_at(size_t pos, const std::string& what) const {
    return Error{"column " + std::to_string(pos + 1) + ": " + what + " in '" + printable(s_) + "'"};
  }
  bool at(size_t p, bool (*pred)(int)) const { return p < s_.size() && pred(static_cast<unsigned char>(s_[p])) != 0; }
  static bool is_digit(int c) { return std::isdigit(c) != 0; }
  static bool is_xdigit(int c) { return std::isxdigit(c) != 0; }
  static bool is_word(int c) { return std::isalnum(c) != 0 || c == '_'; }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  ExprType type_of(int node) const { return e_.nodes_[static_cast<size_t>(node)].type; }
  int add(Expr::Node n) {
    e_.nodes_.push_back(n);
    return static_cast<int>(e_.nodes_.size()) - 1;
  }
  bool too_many_nodes() const { return e_.nodes_.size() >= kMaxExprNodes; }
  // Nesting guard: parentheses, casts, unary operators and ?: each take a level.
  struct Nest {
    int& depth;
    explicit Nest(int& d) : depth(++d) {}
    ~Nest() { --depth; }
  };
  int depth_ = 0;
  Error too_deep() const { return fail("nested more than " + std::to_string(kMaxExprDepth) + " levels"); }

  Result<int> parse_ternary() {
    Nest nest(depth_);
    if (depth_ > kMaxExprDepth) return too_deep();
    auto cond = parse_binary(0);
    if (!cond) return cond;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '?') {
      ++pos_;
      auto a = parse_ternary();
      if (!a) return a;
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      auto b = parse_ternary();
      if (!b) return b;
      // The branches convert to their common type, whichever is taken.
      return add(Expr::Node{kTernary, 0, common_type(type_of(*a), type_of(*b)), kInt, *cond, *a, *b, 0});
    }
    return cond;
  }

  const OpInfo* peek_binop() {
    skip_ws();
    for (const OpInfo& o : kBinOps) {
      const size_t len = std::char_traits<char>::length(o.text);
      if (s_.compare(pos_, len, o.text) == 0) return &o;
    }
    return nullptr;
  }

  Result<int> parse_binary(int min_prec) {
    auto lhs = parse_unary();
    if (!lhs) return lhs;
    for (;;) {
      const OpInfo* o = peek_binop();
      if (o == nullptr || o->prec < min_prec) break;
      pos_ += std::char_traits<char>::length(o->text);
      auto rhs = parse_binary(o->prec + 1);
      if (!rhs) return rhs;
      if (too_many_nodes()) return fail("expression too long (more than " + std::to_string(kMaxExprNodes) + " terms)");
      const ExprType t = result_type(o->op, type_of(*lhs), type_of(*rhs));
      lhs = add(Expr::Node{kBinary, o->op, t, operation_type(o->op, type_of(*lhs), type_of(*rhs)), *lhs, *rhs, -1, 0});
    }
    return lhs;
  }

  Result<int> parse_unary() {
    skip_ws();
    if (pos_ >= s_.size()) return fail("expression ends early");
    const char ch = s_[pos_];
    if (ch == '-' || ch == '!' || ch == '~' || ch == '+') {
      Nest nest(depth_);
      if (depth_ > kMaxExprDepth) return too_deep();
      ++pos_;
      auto a = parse_unary();
      if (!a) return a;
      if (ch == '+') return a;  // every operand is at least int: no promotion to make
      const UnOp op = ch == '-' ? kNeg : ch == '!' ? kNot : kBitNot;
      return add(Expr::Node{kUnary, op, op == kNot ? kInt : type_of(*a), kInt, *a, -1, -1, 0});
    }
    return parse_primary();
  }

  // After '(': a type name and ')' if the next word names a type (then *is_cast), else nothing.
  Result<ExprType> parse_type_name(bool* is_cast) {
    *is_cast = false;
    skip_ws();
    const size_t start = pos_;
    std::string spelled;
    int count[7] = {};
    ExprType typedef_type = kInt;
    for (;;) {
      size_t end = pos_;
      while (at(end, is_word)) ++end;
      const TypeWordInfo* w = find_type_word(s_.substr(pos_, end - pos_));
      if (w == nullptr) break;
      *is_cast = true;
      spelled += (spelled.empty() ? "" : " ") + std::string(w->text);
      ++count[static_cast<int>(w->word)];
      typedef_type = w->typedef_type;
      pos_ = end;
      skip_ws();
    }
    if (!*is_cast) return kInt;
    auto n = [&](TypeWord w) { return count[static_cast<int>(w)]; };
    const int words = static_cast<int>(std::count_if(std::begin(count), std::end(count), [](int c) { return c > 0; }));
    if (n(TypeWord::kShort) > 0 || n(TypeWord::kChar) > 0) {
      return fail_at(start, "unsupported type '" + spelled + "' (int, unsigned int, long long or unsigned long long)");
    }
    if (n(TypeWord::kTypedef) > 0) {
      if (n(TypeWord::kTypedef) > 1 || words > 1) return fail_at(start, "invalid type '" + spelled + "'");
      return typedef_type;
    }
    const bool is_unsigned = n(TypeWord::kUnsignedWord) > 0;
    if (n(TypeWord::kSigned) + n(TypeWord::kUnsignedWord) > 1 || n(TypeWord::kIntWord) > 1 || n(TypeWord::kLong) > 2) {
      return fail_at(start, "invalid type '" + spelled + "'");
    }
    // long is 64-bit as on Linux (LP64), so long and long long are alike here.
    if (n(TypeWord::kLong) > 0) return is_unsigned ? kULL : kLL;
    return is_unsigned ? kUInt : kInt;
  }

  // C's integer literals ([lex.icon]): decimal, octal (leading 0), hex (0x), binary (0b), with
  // the suffixes u, l, ll in either order; the type is the first of a list that holds the value.
  Result<int> parse_literal() {
    const size_t start = pos_;
    int base = 10;
    if (s_[pos_] == '0') {
      const char p = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
      if (p == 'x' || p == 'X') {
        base = 16;
        pos_ += 2;
      } else if (p == 'b' || p == 'B') {
        base = 2;
        pos_ += 2;
      } else {
        base = 8;  // the leading 0 is itself an octal digit
      }
    }
    u128 v = 0;
    bool any = false;
    while (at(pos_, base == 16 ? is_xdigit : is_digit)) {
      const char d = s_[pos_];
      const int dv = std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : std::tolower(static_cast<unsigned char>(d)) - 'a' + 10;
      if (dv >= base) {
        return fail("invalid digit '" + std::string(1, d) + "' in " + (base == 8 ? "octal" : "binary") + " literal");
      }
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(dv);
      if (v > static_cast<u128>(kU64Max)) return fail_at(start, "integer literal too large");
      any = true;
      ++pos_;
    }
    if (!any) return fail("malformed number");
    // Suffix: u, l, ll (not lL), in either order.
    const size_t suffix = pos_;
    bool is_unsigned = false;
    int longs = 0;
    auto take_u = [&] {
      if (pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'U')) return (is_unsigned = true, ++pos_, true);
      return false;
    };
    auto take_l = [&] {
      if (pos_ >= s_.size() || (s_[pos_] != 'l' && s_[pos_] != 'L')) return false;
      longs = (pos_ + 1 < s_.size() && s_[pos_ + 1] == s_[pos_]) ? 2 : 1;
      pos_ += static_cast<size_t>(longs);
      return true;
    };
    if (take_u()) {
      take_l();
    } else if (take_l()) {
      take_u();
    }
    auto is_suffix_char = [](int c) { return c == 'u' || c == 'U' || c == 'l' || c == 'L'; };
    size_t end = pos_;
    while (end < s_.size() && is_suffix_char(s_[end])) ++end;
    if (end != pos_) return fail_at(suffix, "invalid suffix '" + s_.substr(suffix, end - suffix) + "' on integer literal");
    if (at(pos_, is_word)) return fail("malformed number");
    // The candidate types, in order ([lex.icon] table 8; long = long long here).
    ExprType candidates[4];
    int n = 0;
    if (!is_unsigned && longs == 0) candidates[n++] = kInt;
    if (base != 10 && longs == 0) candidates[n++] = kUInt;
    if (is_unsigned && longs == 0) candidates[n++] = kUInt;
    if (!is_unsigned) candidates[n++] = kLL;
    if (is_unsigned || base != 10) candidates[n++] = kULL;
    for (int i = 0; i < n; ++i) {
      if (static_cast<i128>(v) <= type_max(candidates[i])) {
        return add(Expr::Node{kConst, 0, candidates[i], kInt, -1, -1, -1, to_bits(static_cast<i128>(v), candidates[i])});
      }
    }
    return fail_at(start, "integer literal too large");
  }

  Result<int> parse_primary() {
    skip_ws();
    if (pos_ >= s_.size()) return fail("expression ends early");
    const char ch = s_[pos_];
    if (ch == '(') {
      ++pos_;
      bool is_cast = false;
      auto type = parse_type_name(&is_cast);
      if (!type) return type.error();
      if (is_cast) {
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != ')') return fail("expected ')'");
        ++pos_;
        Nest nest(depth_);
        if (depth_ > kMaxExprDepth) return too_deep();
        auto a = parse_unary();  // a cast applies to a unary expression: (int)x + 1 is ((int)x) + 1
        if (!a) return a;
        return add(Expr::Node{kCast, 0, *type, kInt, *a, -1, -1, 0});
      }
      auto r = parse_ternary();
      if (!r) return r;
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ')') return fail("expected ')'");
      ++pos_;
      return r;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) return parse_literal();
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.')) {
        ++pos_;
      }
      const std::string name = s_.substr(start, pos_ - start);
      const int slot = sym_.find(name);
      if (slot < 0) return fail_at(start, "unknown variable '" + name + "'");
      return add(Expr::Node{kVar, 0, sym_.type(slot), kInt, -1, -1, -1, slot});
    }
    return fail("unexpected '" + std::string(1, ch) + "'");
  }

  const std::string& s_;
  const SymbolTable& sym_;
  Expr& e_;
  size_t pos_ = 0;
};

Result<Expr> Expr::parse(const std::string& text, const SymbolTable& symbols) {
  if (text.size() > kMaxExprChars) {
    return Error{"expression of " + std::to_string(text.size()) + " characters; at most " +
                 std::to_string(kMaxExprChars)};
  }
  Expr e;
  e.text_ = text;
  Parser p(text, symbols, e);
  auto root = p.parse_all();
  if (!root) return root.error();
  return e;
}

Expr Expr::constant(int64_t v) {
  Expr e;
  e.text_ = std::to_string(v);
  e.nodes_.push_back(Node{kConst, 0, kLL, kInt, -1, -1, -1, v});
  return e;
}

ExprType Expr::type() const { return nodes_.empty() ? kInt : nodes_.back().type; }

std::string Expr::value_text(int64_t v) const {
  return type() == kULL ? std::to_string(static_cast<uint64_t>(v)) : std::to_string(v);
}

// [SECTION] Evaluation

namespace {

struct Evaluator {
  const std::vector<Expr::Node>& n;
  const Env& env;
  std::string* err;

  bool fail(const char* what) {
    if (err != nullptr) *err = what;
    return false;
  }
  ExprType type(int i) const { return n[static_cast<size_t>(i)].type; }

  // *out = the value of node i, in its type, as Env stores it.
  bool ev(int i, int64_t* out) {
    const Expr::Node& x = n[static_cast<size_t>(i)];
    const char* what = nullptr;
    switch (x.kind) {
      case kConst: *out = x.value; return true;
      case kVar: *out = convert_bits(env.v[x.value], x.type); return true;
      case kCast: {
        if (!ev(x.a, out)) return false;
        *out = convert_bits(*out, x.type);
        return true;
      }
      case kUnary: {
        int64_t a;
        if (!ev(x.a, &a)) return false;
        if (!apply_unary(x.op, type(x.a), a, out, &what)) return fail(what);
        return true;
      }
      case kTernary: {
        int64_t c;
        if (!ev(x.a, &c)) return false;
        if (!ev(c != 0 ? x.b : x.c, out)) return false;
        *out = convert_bits(*out, x.type);
        return true;
      }
      default: break;
    }
    int64_t a, b;
    if (!ev(x.a, &a)) return false;
    // Short-circuit as C does: the right side of && / || is not evaluated when it cannot matter.
    if (x.op == kAnd && a == 0) return (*out = 0, true);
    if (x.op == kOr && a != 0) return (*out = 1, true);
    if (!ev(x.b, &b)) return false;
    if (x.op == kAnd || x.op == kOr) return (*out = b != 0, true);
    const ExprType ta = type(x.a), tb = type(x.b);
    const ExprType t = x.operation;
    if (!is_shift(x.op)) {
      if (ta != t) a = convert_bits(a, t);
      if (tb != t) b = convert_bits(b, t);
    }
    if (!apply_binary(x.op, t, tb, a, b, out, &what)) return fail(what);
    return true;
  }
};

// [SECTION] Intervals

// Bounds of a node's values in its type, as exact values (an unsigned long long up to 2^64 - 1).
struct Range {
  i128 lo = 0, hi = 0;
  bool may_fail = false;
  bool is_point() const { return lo == hi; }
};

Range whole(ExprType t, bool may_fail) { return Range{type_min(t), type_max(t), may_fail}; }

// The values of r converted to type t: exact where no value wraps, or where they all wrap by the
// same multiple of 2^N; else the whole type.
Range convert_range(Range r, ExprType t) {
  if (r.lo >= type_min(t) && r.hi <= type_max(t)) return r;
  if (r.hi - r.lo >= type_max(t) - type_min(t)) return whole(t, r.may_fail);
  const i128 lo = convert(r.lo, t), hi = convert(r.hi, t);
  if (lo > hi) return whole(t, r.may_fail);  // the range crosses a wrap point
  return Range{lo, hi, r.may_fail};
}

// An Interval (Env's representation, see expr.hpp) read as type t.
Range from_interval(const Interval& iv, ExprType t) {
  if (t == kULL && iv.lo < 0) return whole(t, iv.may_fail);  // 'unknown'
  return convert_range(Range{iv.lo, iv.hi, iv.may_fail}, t);
}
Interval to_interval(const Range& r, ExprType t) {
  if (t == kULL && r.hi > kMax) return Interval{kMin, kMax, r.may_fail};  // 'unknown'
  return Interval{static_cast<int64_t>(r.lo), static_cast<int64_t>(r.hi), r.may_fail};
}

// 1 nonzero everywhere, 0 zero everywhere, -1 unknown.
int truth(const Range& v) {
  if (v.lo > 0 || v.hi < 0) return 1;
  if (v.is_point() && v.lo == 0) return 0;
  return -1;
}

// Smallest 2^k - 1 >= v (v >= 0).
i128 fill_bits(i128 v) {
  i128 m = 0;
  while (m < v) m = (m << 1) | 1;
  return m;
}

// Exact bounds [lo, hi] of an arithmetic result in type t: signed ones outside the type overflow
// (evaluation fails there; the bounds keep the points that do not), unsigned ones wrap.
Range arithmetic_range(i128 lo, i128 hi, ExprType t) {
  if (!is_signed(t)) return convert_range(Range{lo, hi, false}, t);
  if (lo > type_max(t) || hi < type_min(t)) return whole(t, true);  // fails everywhere
  if (lo >= type_min(t) && hi <= type_max(t)) return Range{lo, hi, false};
  return Range{std::max(lo, type_min(t)), std::min(hi, type_max(t)), true};
}

// Bounds of a op b over the box, for operands converted to t (shifts: a of type t, b any count).
Range combine(uint8_t op, ExprType t, const Range& a, const Range& b) {
  auto cmp = [](bool always, bool never) { return always ? Range{1, 1} : never ? Range{0, 0} : Range{0, 1}; };
  switch (op) {
    case kAdd: return arithmetic_range(a.lo + b.lo, a.hi + b.hi, t);
    case kSub: return arithmetic_range(a.lo - b.hi, a.hi - b.lo, t);
    case kMul: {
      // Only unsigned long long products may not fit 128 bits; any that passes 2^64 wraps.
      if (t == kULL && a.hi > 0 && b.hi > kU64Max / a.hi) return whole(t, false);
      const i128 p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      return arithmetic_range(*std::min_element(p, p + 4), *std::max_element(p, p + 4), t);
    }
    case kDiv:
    case kMod: {
      const bool zero = b.lo <= 0 && b.hi >= 0;
      if (b.lo == 0 && b.hi == 0) return whole(t, true);
      // INT_MIN / -1 and INT_MIN % -1 fail.
      const bool overflow = is_signed(t) && a.lo == type_min(t) && b.lo <= -1 && b.hi >= -1;
      const bool may_fail = zero || overflow;
      if (op == kDiv) {
        // Truncating division is monotone in each operand on either side of 0: the bounds are at
        // corners of the box with b's zero removed.
        i128 lo = 0, hi = 0;
        bool first = true;
        auto corners = [&](i128 blo, i128 bhi) {
          for (i128 x : {a.lo, a.hi}) {
            for (i128 y : {blo, bhi}) {
              const i128 q = x / y;
              lo = first ? q : std::min(lo, q);
              hi = first ? q : std::max(hi, q);
              first = false;
            }
          }
        };
        if (b.lo <= -1) corners(b.lo, std::min<i128>(b.hi, -1));
        if (b.hi >= 1) corners(std::max<i128>(b.lo, 1), b.hi);
        // Only INT_MIN / -1 leaves the type, and it fails: bounds of the other points.
        Range r = arithmetic_range(lo, hi, t);
        r.may_fail = r.may_fail || may_fail;
        return r;
      }
      // |a % b| < |b| and |a % b| <= |a|; the sign is a's.
      if (b.is_point() && b.lo > 0 && a.lo >= 0 && a.lo / b.lo == a.hi / b.lo) {
        return Range{a.lo % b.lo, a.hi % b.lo, may_fail};
      }
      const i128 m = std::max(-b.lo, b.hi) - 1;
      return Range{a.lo >= 0 ? 0 : std::max(a.lo, -m), a.hi <= 0 ? 0 : std::min(a.hi, m), may_fail};
    }
    case kShl:
    case kShr: {
      // Counts outside [0, width) fail; the others bound the result.
      const bool bad_count = b.lo < 0 || b.hi >= width(t);
      const i128 count_lo = std::max<i128>(b.lo, 0), count_hi = std::min<i128>(b.hi, width(t) - 1);
      if (count_lo > count_hi) return whole(t, true);  // no valid count: fails everywhere
      const int clo = static_cast<int>(count_lo), chi = static_cast<int>(count_hi);
      if (op == kShr) {
        const i128 lo = std::min(a.lo >> clo, a.lo >> chi), hi = std::max(a.hi >> clo, a.hi >> chi);
        return Range{lo, hi, bad_count};
      }
      const bool negative = is_signed(t) && a.lo < 0;  // fails where a < 0
      const i128 alo = negative ? 0 : a.lo;
      if (a.hi < alo) return whole(t, true);
      auto shl = [](i128 x, int c) { return static_cast<i128>(static_cast<u128>(x) << c); };
      Range r = arithmetic_range(shl(alo, clo), shl(a.hi, chi), t);
      r.may_fail = r.may_fail || bad_count || negative;
      return r;
    }
    case kLt: return cmp(a.hi < b.lo, a.lo >= b.hi);
    case kLe: return cmp(a.hi <= b.lo, a.lo > b.hi);
    case kGt: return cmp(a.lo > b.hi, a.hi <= b.lo);
    case kGe: return cmp(a.lo >= b.hi, a.hi < b.lo);
    case kEq: return cmp(a.is_point() && b.is_point() && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo);
    case kNe: return cmp(a.hi < b.lo || b.hi < a.lo, a.is_point() && b.is_point() && a.lo == b.lo);
    case kBitAnd:
      if (a.lo >= 0 && b.lo >= 0) return Range{0, std::min(a.hi, b.hi)};
      if (a.lo >= 0) return Range{0, a.hi};
      if (b.lo >= 0) return Range{0, b.hi};
      return whole(t, false);
    case kBitXor:
    case kBitOr:
      if (a.lo >= 0 && b.lo >= 0) {
        return Range{op == kBitOr ? std::max(a.lo, b.lo) : 0, fill_bits(std::max(a.hi, b.hi))};
      }
      return whole(t, false);
    default: return whole(t, true);
  }
}

struct IntervalEvaluator {
  const std::vector<Expr::Node>& n;
  const IntervalEnv& env;

  static Range with_fail(Range v, bool f) {
    v.may_fail = v.may_fail || f;
    return v;
  }
  ExprType type(int i) const { return n[static_cast<size_t>(i)].type; }

  // The bounds of node i in its type; may_fail is set when evaluating it could fail somewhere in
  // the box (a divisor or shift count that may be out of range, a signed result that may
  // overflow), or when a child's evaluation could.
  Range ev(int i) {
    const Expr::Node& x = n[static_cast<size_t>(i)];
    switch (x.kind) {
      case kConst: {
        const i128 v = from_bits(x.value, x.type);
        return Range{v, v};
      }
      case kVar: return from_interval(env.v[x.value], x.type);
      case kCast: return convert_range(ev(x.a), x.type);
      case kUnary: {
        const Range a = ev(x.a);
        const ExprType t = type(x.a);
        if (x.op == kNot) {
          const int ta = truth(a);
          return ta < 0 ? Range{0, 1, a.may_fail} : Range{!ta, !ta, a.may_fail};
        }
        if (a.is_point()) {
          return point(a, [&](int64_t* out, const char** err) { return apply_unary(x.op, t, to_bits(a.lo, t), out, err); }, t);
        }
        if (x.op == kBitNot) return convert_range(Range{-1 - a.hi, -1 - a.lo, a.may_fail}, t);
        return with_fail(arithmetic_range(-a.hi, -a.lo, t), a.may_fail);  // kNeg
      }
      case kTernary: {
        const Range c = ev(x.a);
        const int tc = truth(c);
        if (tc == 1) return with_fail(convert_range(ev(x.b), x.type), c.may_fail);
        if (tc == 0) return with_fail(convert_range(ev(x.c), x.type), c.may_fail);
        const Range a = convert_range(ev(x.b), x.type), b = convert_range(ev(x.c), x.type);
        return Range{std::min(a.lo, b.lo), std::max(a.hi, b.hi), c.may_fail || a.may_fail || b.may_fail};
      }
      default: break;
    }
    Range a = ev(x.a);
    // && and || do not evaluate their right side when the left decides (as in C).
    if (x.op == kAnd || x.op == kOr) {
      const int ta = truth(a);
      if ((x.op == kAnd && ta == 0) || (x.op == kOr && ta == 1)) return Range{ta, ta, a.may_fail};
      const Range b = ev(x.b);
      const int tb = truth(b);
      const bool f = a.may_fail || b.may_fail;
      if (x.op == kAnd) {
        if (tb == 0) return Range{0, 0, f};
        if (ta == 1 && tb == 1) return Range{1, 1, f};
      } else {
        if (tb == 1) return Range{1, 1, f};
        if (ta == 0 && tb == 0) return Range{0, 0, f};
      }
      return Range{0, 1, f};
    }
    Range b = ev(x.b);
    const ExprType t = operation_type(x.op, type(x.a), type(x.b));
    if (!is_shift(x.op)) {
      a = convert_range(a, t);
      b = convert_range(b, t);
    }
    const bool f = a.may_fail || b.may_fail;
    if (a.is_point() && b.is_point()) {
      const ExprType tb = type(x.b);
      auto apply = [&](int64_t* out, const char** err) {
        return apply_binary(x.op, t, tb, to_bits(a.lo, t), to_bits(b.lo, is_shift(x.op) ? tb : t), out, err);
      };
      return with_fail(point(a, apply, x.type), f);
    }
    return with_fail(combine(x.op, t, a, b), f);
  }

  // The exact result of an operation on single values (of result type t): a point, or a failure
  // everywhere.
  template <class Apply>
  static Range point(const Range& a, Apply&& apply, ExprType t) {
    int64_t bits = 0;
    const char* err = nullptr;
    if (!apply(&bits, &err)) return whole(t, true);
    const i128 v = from_bits(bits, t);
    return Range{v, v, a.may_fail};
  }
};

}  // namespace

bool Expr::eval(const Env& env, int64_t* out, std::string* error) const {
  assert(!nodes_.empty() && "eval() on an empty expression");
  Evaluator e{nodes_, env, error};
  return e.ev(static_cast<int>(nodes_.size()) - 1, out);
}

Interval Expr::interval(const IntervalEnv& env) const {
  assert(!nodes_.empty() && "interval() on an empty expression");
  IntervalEvaluator e{nodes_, env};
  return to_interval(e.ev(static_cast<int>(nodes_.size()) - 1), type());
}

SlotMask Expr::deps(const SymbolTable& symbols) const {
  SlotMask m = 0;
  for (const Node& x : nodes_) {
    if (x.kind == kVar) m |= symbols.deps(static_cast<int>(x.value));
  }
  return m;
}

}  // namespace bankscope
