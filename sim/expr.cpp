// expr.cpp: parser (precedence climbing), checked evaluation, interval bounds.
#include "expr.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <limits>

namespace bankscope {

namespace {

enum Kind : uint8_t { kConst, kVar, kUnary, kBinary, kTernary };

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

// 128-bit intermediates make interval bounds overflow-free (GCC/Clang extension).
__extension__ typedef __int128 i128;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace

SymbolTable::SymbolTable() {
  names_ = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
            "blockIdx.z",  "blockDim.x",  "blockDim.y",  "blockDim.z", "gridDim.x",
            "gridDim.y",   "gridDim.z",   "lane",        "warp",       "n"};
  deps_.resize(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) deps_[i] = slot_bit(static_cast<int>(i));
}

Result<int> SymbolTable::add(const std::string& name) {
  if (find(name) >= 0) return Error{"'" + name + "' is already defined"};
  if (size() >= kMaxSlots) return Error{"too many variables (at most " + std::to_string(kMaxSlots - kFirstUserSlot) + " defines and loop variables)"};
  names_.push_back(name);
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
  Error fail(const std::string& what) const {
    return Error{"column " + std::to_string(pos_ + 1) + ": " + what + " in '" + printable(s_) + "'"};
  }
  // The expression as it can be quoted on one line: control characters escaped, long text cut.
  static std::string printable(const std::string& text) {
    std::string out;
    for (char c : text.substr(0, 200)) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", u);
        out += buf;
      } else {
        out += c;
      }
    }
    if (text.size() > 200) out += "...";
    return out;
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  int add(Expr::Node n) {
    e_.nodes_.push_back(n);
    return static_cast<int>(e_.nodes_.size()) - 1;
  }
  bool too_many_nodes() const { return e_.nodes_.size() >= kMaxExprNodes; }
  // Nesting guard: parentheses, unary operators and ?: each take a level.
  struct Nest {
    int& depth;
    explicit Nest(int& d) : depth(++d) {}
    ~Nest() { --depth; }
  };
  int depth_ = 0;

  Result<int> parse_ternary() {
    Nest nest(depth_);
    if (depth_ > kMaxExprDepth) return fail("nested more than " + std::to_string(kMaxExprDepth) + " levels");
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
      return add(Expr::Node{kTernary, 0, *cond, *a, *b, 0});
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
      lhs = add(Expr::Node{kBinary, o->op, *lhs, *rhs, -1, 0});
    }
    return lhs;
  }

  Result<int> parse_unary() {
    skip_ws();
    if (pos_ >= s_.size()) return fail("expression ends early");
    const char ch = s_[pos_];
    if (ch == '-' || ch == '!' || ch == '~' || ch == '+') {
      Nest nest(depth_);
      if (depth_ > kMaxExprDepth) return fail("nested more than " + std::to_string(kMaxExprDepth) + " levels");
      ++pos_;
      auto a = parse_unary();
      if (!a) return a;
      if (ch == '+') return a;
      const UnOp op = ch == '-' ? kNeg : ch == '!' ? kNot : kBitNot;
      return add(Expr::Node{kUnary, op, *a, -1, -1, 0});
    }
    return parse_primary();
  }

  Result<int> parse_primary() {
    skip_ws();
    if (pos_ >= s_.size()) return fail("expression ends early");
    const char ch = s_[pos_];
    if (ch == '(') {
      ++pos_;
      auto r = parse_ternary();
      if (!r) return r;
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ')') return fail("expected ')'");
      ++pos_;
      return r;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      const size_t start = pos_;
      int base = 10;
      if (ch == '0' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == 'x' || s_[pos_ + 1] == 'X')) {
        base = 16;
        pos_ += 2;
      }
      int64_t v = 0;
      bool any = false;
      while (pos_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_]))) {
        const char d = s_[pos_];
        int dv;
        if (std::isdigit(static_cast<unsigned char>(d))) {
          dv = d - '0';
        } else if (base == 16) {
          dv = std::tolower(static_cast<unsigned char>(d)) - 'a' + 10;
        } else {
          break;
        }
        if (dv >= base) break;
        if (v > (kMax - dv) / base) {
          pos_ = start;
          return fail("integer literal too large");
        }
        v = v * base + dv;
        any = true;
        ++pos_;
      }
      if (!any) return fail("malformed number");
      // C suffixes on literals are accepted and ignored (32u, 8LL).
      while (pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'U' || s_[pos_] == 'l' || s_[pos_] == 'L')) ++pos_;
      if (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        return fail("malformed number");
      }
      return add(Expr::Node{kConst, 0, -1, -1, -1, v});
    }
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.')) {
        ++pos_;
      }
      const std::string name = s_.substr(start, pos_ - start);
      const int slot = sym_.find(name);
      if (slot < 0) {
        const size_t save = pos_;
        pos_ = start;
        Error e = fail("unknown variable '" + name + "'");
        pos_ = save;
        return e;
      }
      return add(Expr::Node{kVar, 0, -1, -1, -1, slot});
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
  e.nodes_.push_back(Node{kConst, 0, -1, -1, -1, v});
  return e;
}

namespace {

struct Evaluator {
  const std::vector<Expr::Node>& n;
  const Env& env;
  std::string* err;

  bool fail(const char* what) {
    if (err != nullptr) *err = what;
    return false;
  }

  bool ev(int i, int64_t* out) {
    const Expr::Node& x = n[static_cast<size_t>(i)];
    switch (x.kind) {
      case kConst: *out = x.value; return true;
      case kVar: *out = env.v[x.value]; return true;
      case kUnary: {
        int64_t a;
        if (!ev(x.a, &a)) return false;
        if (x.op == kNeg) {
          if (a == kMin) return fail("integer overflow");
          *out = -a;
        } else if (x.op == kNot) {
          *out = !a;
        } else {
          *out = ~a;
        }
        return true;
      }
      case kTernary: {
        int64_t c;
        if (!ev(x.a, &c)) return false;
        return ev(c ? x.b : x.c, out);
      }
      default: break;
    }
    int64_t a, b;
    if (!ev(x.a, &a)) return false;
    // Short-circuit as C does: the right side of && / || is not evaluated when it cannot matter.
    if (x.op == kAnd && !a) return (*out = 0, true);
    if (x.op == kOr && a) return (*out = 1, true);
    if (!ev(x.b, &b)) return false;
    switch (x.op) {
      case kMul: if (__builtin_mul_overflow(a, b, out)) return fail("integer overflow"); return true;
      case kAdd: if (__builtin_add_overflow(a, b, out)) return fail("integer overflow"); return true;
      case kSub: if (__builtin_sub_overflow(a, b, out)) return fail("integer overflow"); return true;
      case kDiv:
        if (b == 0) return fail("division by zero");
        if (a == kMin && b == -1) return fail("integer overflow");
        *out = a / b;
        return true;
      case kMod:
        if (b == 0) return fail("division by zero (modulo)");
        if (a == kMin && b == -1) return (*out = 0, true);
        *out = a % b;
        return true;
      case kShl:
        if (b < 0 || b > 62) return fail("shift count out of range");
        if (a < 0 || a > (kMax >> b)) return fail("integer overflow");
        *out = a << b;
        return true;
      case kShr:
        if (b < 0 || b > 63) return fail("shift count out of range");
        *out = a >> b;
        return true;
      case kLt: *out = a < b; return true;
      case kLe: *out = a <= b; return true;
      case kGt: *out = a > b; return true;
      case kGe: *out = a >= b; return true;
      case kEq: *out = a == b; return true;
      case kNe: *out = a != b; return true;
      case kBitAnd: *out = a & b; return true;
      case kBitXor: *out = a ^ b; return true;
      case kBitOr: *out = a | b; return true;
      case kAnd: *out = (a && b); return true;
      case kOr: *out = (a || b); return true;
      default: return fail("bad expression node");
    }
  }
};

constexpr Interval kTop{kMin, kMax};
constexpr Interval kBool{0, 1};

Interval clamp128(i128 lo, i128 hi) {
  if (lo < kMin || hi > kMax) return kTop;
  return Interval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

// Smallest 2^k - 1 >= v (v >= 0).
int64_t fill_bits(int64_t v) {
  int64_t m = 0;
  while (m < v) m = (m << 1) | 1;
  return m;
}

struct IntervalEvaluator {
  const std::vector<Expr::Node>& n;
  const IntervalEnv& env;

  static Interval failing(Interval v) {
    v.may_fail = true;
    return v;
  }
  static Interval with_fail(Interval v, bool f) {
    v.may_fail = v.may_fail || f;
    return v;
  }

  // The bounds of node i; may_fail is set when evaluating it could fail somewhere in the box (a
  // divisor or shift count that may be out of range, bounds clamped because they may overflow),
  // or when a child's evaluation could.
  Interval ev(int i) {
    const Expr::Node& x = n[static_cast<size_t>(i)];
    switch (x.kind) {
      case kConst: return Interval{x.value, x.value};
      case kVar: return env.v[x.value];
      case kUnary: {
        const Interval a = ev(x.a);
        if (x.op == kNeg) return with_fail(clamp128(-i128(a.hi), -i128(a.lo)), a.may_fail || a.lo == kMin);
        if (x.op == kNot) {
          if (a.lo > 0 || a.hi < 0) return with_fail(Interval{0, 0}, a.may_fail);
          if (a.is_point() && a.lo == 0) return with_fail(Interval{1, 1}, a.may_fail);
          return with_fail(kBool, a.may_fail);
        }
        return with_fail(Interval{~a.hi, ~a.lo}, a.may_fail);
      }
      case kTernary: {
        const Interval c = ev(x.a);
        if (c.lo > 0 || c.hi < 0) return with_fail(ev(x.b), c.may_fail);
        if (c.is_point() && c.lo == 0) return with_fail(ev(x.c), c.may_fail);
        const Interval a = ev(x.b), b = ev(x.c);
        return Interval{std::min(a.lo, b.lo), std::max(a.hi, b.hi), c.may_fail || a.may_fail || b.may_fail};
      }
      default: break;
    }
    const Interval a = ev(x.a), b = ev(x.b);
    auto truth = [](const Interval& v) -> int {  // 1 true, 0 false, -1 unknown
      if (v.lo > 0 || v.hi < 0) return 1;
      if (v.is_point() && v.lo == 0) return 0;
      return -1;
    };
    // && and || do not evaluate their right side when the left decides (as in C).
    if (x.op == kAnd || x.op == kOr) {
      const int ta = truth(a);
      if ((x.op == kAnd && ta == 0) || (x.op == kOr && ta == 1)) {
        return with_fail(Interval{ta, ta}, a.may_fail);
      }
      const int tb = truth(b);
      const bool f = a.may_fail || b.may_fail;
      if (x.op == kAnd) {
        if (tb == 0) return with_fail(Interval{0, 0}, f);
        if (ta == 1 && tb == 1) return with_fail(Interval{1, 1}, f);
      } else {
        if (tb == 1) return with_fail(Interval{1, 1}, f);
        if (ta == 0 && tb == 0) return with_fail(Interval{0, 0}, f);
      }
      return with_fail(kBool, f);
    }
    const Interval r = combine(x.op, a, b);
    return with_fail(r, a.may_fail || b.may_fail);
  }

  static Interval combine(uint8_t op, const Interval& a, const Interval& b) {
    auto cmp = [](bool always, bool never) { return always ? Interval{1, 1} : never ? Interval{0, 0} : kBool; };
    auto clamped = [](i128 lo, i128 hi) {
      const Interval v = clamp128(lo, hi);
      return (lo < kMin || hi > kMax) ? failing(v) : v;  // may overflow: evaluation fails there
    };
    switch (op) {
      case kAdd: return clamped(i128(a.lo) + b.lo, i128(a.hi) + b.hi);
      case kSub: return clamped(i128(a.lo) - b.hi, i128(a.hi) - b.lo);
      case kMul: {
        const i128 p[4] = {i128(a.lo) * b.lo, i128(a.lo) * b.hi, i128(a.hi) * b.lo, i128(a.hi) * b.hi};
        i128 lo = p[0], hi = p[0];
        for (const i128& v : p) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        return clamped(lo, hi);
      }
      case kDiv:
        if (b.lo <= 0 && b.hi >= 0) return failing(kTop);
        if (b.lo > 0 && a.lo >= 0) return Interval{a.lo / b.hi, a.hi / b.lo};
        return (a.lo == kMin && b.lo <= -1 && b.hi >= -1) ? failing(kTop) : kTop;
      case kMod:
        if (b.lo <= 0 && b.hi >= 0) return failing(kTop);
        if (b.lo > 0 && a.lo >= 0) {
          if (b.is_point() && a.hi / b.lo == a.lo / b.lo) return Interval{a.lo % b.lo, a.hi % b.lo};
          return Interval{0, std::min(a.hi, b.hi - 1)};
        }
        return kTop;
      case kShl:
        if (b.lo < 0 || b.hi > 62 || a.lo < 0) return failing(kTop);
        if (i128(a.hi) << b.hi > kMax) return failing(clamp128(i128(a.lo) << b.lo, i128(a.hi) << b.hi));
        return Interval{a.lo << b.lo, a.hi << b.hi};
      case kShr:
        if (b.lo < 0 || b.hi > 63) return failing(kTop);
        if (a.lo >= 0) return Interval{a.lo >> b.hi, a.hi >> b.lo};
        return kTop;
      case kLt: return cmp(a.hi < b.lo, a.lo >= b.hi);
      case kLe: return cmp(a.hi <= b.lo, a.lo > b.hi);
      case kGt: return cmp(a.lo > b.hi, a.hi <= b.lo);
      case kGe: return cmp(a.lo >= b.hi, a.hi < b.lo);
      case kEq: return cmp(a.is_point() && b.is_point() && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo);
      case kNe: return cmp(a.hi < b.lo || b.hi < a.lo, a.is_point() && b.is_point() && a.lo == b.lo);
      case kBitAnd:
        if (a.lo >= 0 && b.lo >= 0) return Interval{0, std::min(a.hi, b.hi)};
        if (a.lo >= 0) return Interval{0, a.hi};
        if (b.lo >= 0) return Interval{0, b.hi};
        return kTop;
      case kBitXor:
      case kBitOr:
        if (a.lo >= 0 && b.lo >= 0) {
          if (a.is_point() && b.is_point()) {
            const int64_t v = op == kBitOr ? (a.lo | b.lo) : (a.lo ^ b.lo);
            return Interval{v, v};
          }
          return Interval{op == kBitOr ? std::max(a.lo, b.lo) : 0, fill_bits(std::max(a.hi, b.hi))};
        }
        return kTop;
      default: return kTop;
    }
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
  return e.ev(static_cast<int>(nodes_.size()) - 1);
}

SlotMask Expr::deps(const SymbolTable& symbols) const {
  SlotMask m = 0;
  for (const Node& x : nodes_) {
    if (x.kind == kVar) m |= symbols.deps(static_cast<int>(x.value));
  }
  return m;
}

}  // namespace bankscope
