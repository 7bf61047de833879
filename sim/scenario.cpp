// scenario.cpp: compile() checks a ScenarioSpec and binds its expressions to one symbol table.
#include "scenario.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <functional>

namespace bankscope {

#define BANKSCOPE_TRY(var, expr)          \
  auto var##_r = (expr);                  \
  if (!var##_r) return var##_r.error();   \
  auto var = std::move(*var##_r)

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// A loop's update as the variable's next value: "s *= 2" -> "s * (2)", "k++" -> "k + 1",
// "s = s / 2" -> "(s / 2)". Anything but an assignment to the loop variable is an error.
Result<std::string> update_as_next(const std::string& text, const std::string& var) {
  const std::string t = trim(text);
  if (t == var + "++" || t == "++" + var) return var + " + 1";
  if (t == var + "--" || t == "--" + var) return var + " - 1";
  const std::string hint = " (write " + var + " *= 2, " + var + " >>= 1, " + var + " += step, " + var + "++ ...)";
  if (t.compare(0, var.size(), var) != 0 ||
      (t.size() > var.size() && (std::isalnum(static_cast<unsigned char>(t[var.size()])) || t[var.size()] == '_'))) {
    return Error{"'" + t + "' does not assign the loop variable " + var + hint};
  }
  size_t i = var.size();
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  for (const char* op : {"<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^", ""}) {
    const std::string o = op;
    if (t.compare(i, o.size() + 1, o + "=") == 0 && t.compare(i, 2, "==") != 0) {
      const std::string rhs = trim(t.substr(i + o.size() + 1));
      if (rhs.empty()) return Error{"'" + t + "' has nothing after '" + o + "='"};
      return o.empty() ? "(" + rhs + ")" : var + " " + o + " (" + rhs + ")";
    }
  }
  return Error{"'" + t + "' is not an assignment" + hint};
}

Result<SharedArray> compile_array(const ArraySpec& a, uint32_t base) {
  if (!is_identifier(a.name)) return Error{"name: '" + a.name + "' is not a C identifier"};
  const auto type = parse_element_type(a.type);
  if (!type) {
    return Error{"type: unknown element type '" + a.type +
                 "' (expected char, short, half, bfloat16, float, int, unsigned, half2, double, "
                 "long long, float2, float4 or int4)"};
  }
  if (a.dims.empty() || a.dims.size() > size_t(kMaxArrayRank)) {
    return Error{"dims: give 1 to 4 dimensions, got " + std::to_string(a.dims.size())};
  }
  for (int64_t d : a.dims) {
    if (d < 1 || d > (1 << 20)) {
      return Error{"dims: size " + std::to_string(d) + " must be in 1..1048576"};
    }
  }
  if (a.row_stride < 0 || a.row_stride > (1 << 20)) {
    return Error{"row_stride: " + std::to_string(a.row_stride) + " must be in 1..1048576 (0 = no padding)"};
  }
  if (a.xor_mask < 0 || a.xor_mask > (1 << 20)) {
    return Error{"xor: mask " + std::to_string(a.xor_mask) + " must be in 0..1048576"};
  }
  TileShape shape;
  shape.rank = static_cast<int>(a.dims.size());
  shape.rows = shape.rank == 1 ? 1 : static_cast<int>(a.dims[0]);
  shape.cols = static_cast<int>(a.dims.back());
  if (shape.rank > 2) {
    for (int d = 0; d < shape.rank; ++d) shape.extent[d] = static_cast<int>(a.dims[size_t(d)]);
  }
  PhysicalLayout layout;
  layout.row_stride = static_cast<int>(a.row_stride);
  layout.xor_mask = static_cast<int>(a.xor_mask);
  layout.swizzle = Swizzle{a.swizzle_bits, a.swizzle_base, a.swizzle_shift};
  layout.tma_span = a.tma_swizzle;
  return make_shared_array(a.name, *type, shape, layout, base);
}

// Splits "tile[expr][expr]" into the array name and its index expressions (brackets may nest).
Result<std::pair<std::string, std::vector<std::string>>> split_target(const std::string& text) {
  const std::string t = trim(text);
  size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
  const std::string name = t.substr(0, i);
  if (name.empty()) return Error{"expected an array name, as in tile[threadIdx.y][threadIdx.x]"};
  std::vector<std::string> idx;
  while (i < t.size()) {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    if (i >= t.size()) break;
    if (t[i] != '[') return Error{"column " + std::to_string(i + 1) + ": expected '[' in '" + t + "'"};
    int depth = 1;
    const size_t start = ++i;
    while (i < t.size() && depth > 0) {
      if (t[i] == '[') ++depth;
      if (t[i] == ']') --depth;
      ++i;
    }
    if (depth != 0) return Error{"missing ']' in '" + t + "'"};
    idx.push_back(t.substr(start, i - 1 - start));
  }
  if (idx.empty()) return Error{"'" + t + "' has no index; write " + name + "[...]"};
  return std::make_pair(name, idx);
}

}  // namespace

const char* issue_mode_name(IssueMode m) {
  switch (m) {
    case IssueMode::kBranch: return "branch";
    case IssueMode::kPredicated: return "predicated";
    case IssueMode::kHoisted: return "hoisted";
  }
  return "?";
}

int64_t CompiledAccess::instructions_per_warp() const {
  return loops.empty() ? 1 : static_cast<int64_t>(iterations.size() / loops.size());
}

uint64_t Scenario::shared_bytes() const {
  uint64_t end = 0;
  for (const SharedArray& a : arrays) end = std::max<uint64_t>(end, a.base + a.bytes());
  return end;
}

Result<Scenario> compile(const ScenarioSpec& spec) {
  Scenario s;
  s.spec = spec;

  auto bc = make_bank_config(spec.banks.banks, spec.banks.bank_bytes);
  if (!bc) return with_context("banks", bc.error());

  // Block and grid.
  const Dim3& b = spec.block;
  if (b.x < 1 || b.y < 1 || b.z < 1) {
    return Error{"block: sizes must be positive, got [" + std::to_string(b.x) + ", " +
                 std::to_string(b.y) + ", " + std::to_string(b.z) + "]"};
  }
  if (b.count() > 1024 || b.z > 64) {
    return Error{"block: " + std::to_string(b.count()) +
                 " threads; a CUDA block has at most 1024 (and z <= 64)"};
  }
  if (spec.n < 0 || spec.n > (int64_t{1} << 31)) {
    return Error{"n: " + std::to_string(spec.n) + " must be in 1..2^31"};
  }
  const bool has_n = spec.n != 0;
  if (!spec.grid_expr.empty()) {
    // Evaluated below, once the params exist.
  } else if (spec.grid.x == 0 && spec.grid.y == 0 && spec.grid.z == 0) {
    // No silent default: a grid derived from n needs n.
    if (!has_n) {
      return Error{"n: missing: add \"n\": N (the problem size; the grid is then ceil(n / tile)) or "
                   "\"grid\": [x, y, z]"};
    }
    const Dim3& t = spec.tile;
    if (t.x < 1 || t.y < 1) return Error{"tile: elements per block must be positive"};
    s.grid = Dim3{(spec.n + t.x - 1) / t.x, (spec.n + t.y - 1) / t.y, 1};
  } else {
    const Dim3& g = spec.grid;
    if (g.x < 1 || g.y < 1 || g.z < 1 || g.x > 2147483647 || g.y > 65535 || g.z > 65535) {
      return Error{"grid: sizes must be in 1..2^31-1 (x) and 1..65535 (y, z)"};
    }
    s.grid = g;
  }
  // Without "n" the name n exists (it is a builtin slot) but may not be read.
  auto check_n = [&](const Expr& e, const SymbolTable& st, const std::string& field) -> Result<bool> {
    if (!has_n && (e.deps(st) & slot_bit(kN))) {
      return Error{field + ": uses n, but the scenario gives no \"n\" (add \"n\": N)"};
    }
    return true;
  };

  // Kernel parameters: int variables, as the kernel's `int K` argument.
  for (const auto& [name, value] : spec.params) {
    const std::string where = "params." + name;
    if (!is_identifier(name)) return Error{where + ": '" + name + "' is not an identifier"};
    if (value < INT32_MIN || value > INT32_MAX) {
      return Error{where + ": " + std::to_string(value) + " does not fit an int"};
    }
    auto slot = s.symbols.add(name, ExprType::kInt);
    if (!slot) return with_context(where, slot.error());
    s.params.emplace_back(*slot, value);
  }

  // A grid given as expressions: of n, blockDim and params only (the same in every thread, and
  // known before the launch, as the host code that computes it).
  if (!spec.grid_expr.empty()) {
    if (spec.grid_expr.size() > 3) return Error{"grid: expected 1 to 3 sizes, got " + std::to_string(spec.grid_expr.size())};
    Env host;
    host.v[kBlockDimX] = spec.block.x;
    host.v[kBlockDimY] = spec.block.y;
    host.v[kBlockDimZ] = spec.block.z;
    host.v[kN] = spec.n;
    for (const auto& [slot, value] : s.params) host.v[slot] = value;
    constexpr SlotMask kNotOnHost = kBlockIdxSlots | slot_bit(kThreadIdxX) | slot_bit(kThreadIdxY) |
                                    slot_bit(kThreadIdxZ) | slot_bit(kLane) | slot_bit(kWarp) |
                                    slot_bit(kGridDimX) | slot_bit(kGridDimY) | slot_bit(kGridDimZ);
    int64_t g[3] = {1, 1, 1};
    for (size_t i = 0; i < spec.grid_expr.size(); ++i) {
      const std::string where = "grid[" + std::to_string(i) + "]";
      auto e = Expr::parse(spec.grid_expr[i], s.symbols);
      if (!e) return with_context(where, e.error());
      if (e->deps(s.symbols) & kNotOnHost) {
        return Error{where + ": '" + spec.grid_expr[i] +
                     "' may use n, blockDim and params only (the launch is computed before any thread runs)"};
      }
      if (auto ok = check_n(*e, s.symbols, where); !ok) return ok.error();
      std::string err;
      if (!e->eval(host, &g[i], &err)) return Error{where + " = '" + spec.grid_expr[i] + "': " + err};
      const int64_t hi = i == 0 ? 2147483647 : 65535;
      if (g[i] < 1 || g[i] > hi) {
        return Error{where + " = '" + spec.grid_expr[i] + "' is " + std::to_string(g[i]) + "; it must be in 1.." +
                     std::to_string(hi)};
      }
    }
    s.grid = Dim3{g[0], g[1], g[2]};
  }

  // Arrays. Static ones are laid out one after another, 16-byte aligned, as the compiler places
  // static __shared__ arrays (assumed: the exact placement of several arrays is the compiler's
  // choice). The extern buffer follows them at a 16-byte boundary (assumed: where nvcc puts the
  // dynamic shared memory); an array with an offset lives in it at that byte.
  if (spec.arrays.empty()) return Error{"arrays: a scenario needs at least one shared array"};
  if (spec.extern_bytes != -1 && (spec.extern_bytes < 1 || spec.extern_bytes > int64_t(kMaxSharedBytesPerBlockSm90))) {
    return Error{"extern.bytes: " + std::to_string(spec.extern_bytes) + " must be in 1.." +
                 std::to_string(kMaxSharedBytesPerBlockSm90)};
  }
  std::vector<uint32_t> bases(spec.arrays.size(), 0);
  uint32_t base = 0;
  for (size_t i = 0; i < spec.arrays.size(); ++i) {
    const std::string where = "arrays[" + std::to_string(i) + "]";
    auto a = compile_array(spec.arrays[i], 0);
    if (!a) return with_context(where, a.error());
    for (size_t k = 0; k < i; ++k) {
      if (spec.arrays[k].name == a->name) return Error{where + ".name: '" + a->name + "' is declared twice"};
    }
    if (spec.arrays[i].offset >= 0) {
      if (spec.extern_bytes < 0) {
        return Error{where + ".offset: '" + a->name + "' has an offset but the scenario has no \"extern\": {\"bytes\": N}"};
      }
      continue;
    }
    bases[i] = base;
    const uint64_t end = (uint64_t(base) + a->bytes() + 15) / 16 * 16;
    if (end > kMaxSharedBytesPerBlockSm90) {
      return Error{"arrays: " + std::to_string(end) + " bytes of shared memory in all; a block can have at most " +
                   std::to_string(kMaxSharedBytesPerBlockSm90) + " (227 KiB on sm_90)"};
    }
    base = static_cast<uint32_t>(end);
  }
  if (spec.extern_bytes > 0) {
    if (uint64_t(base) + uint64_t(spec.extern_bytes) > kMaxSharedBytesPerBlockSm90) {
      return Error{"extern.bytes: " + std::to_string(base) + " static + " + std::to_string(spec.extern_bytes) +
                   " extern bytes; a block can have at most " + std::to_string(kMaxSharedBytesPerBlockSm90)};
    }
  }
  const uint32_t extern_base = base;
  for (size_t i = 0; i < spec.arrays.size(); ++i) {
    const std::string where = "arrays[" + std::to_string(i) + "]";
    const ArraySpec& as = spec.arrays[i];
    if (as.offset >= 0) {
      if (as.offset > spec.extern_bytes) {
        return Error{where + ".offset: " + std::to_string(as.offset) + " is past the extern buffer's " +
                     std::to_string(spec.extern_bytes) + " bytes"};
      }
      bases[i] = extern_base + static_cast<uint32_t>(as.offset);
    }
    auto a = compile_array(as, bases[i]);
    if (!a) return with_context(where + (as.offset >= 0 ? ".offset" : ""), a.error());
    if (as.offset >= 0) {
      const uint64_t lo = uint64_t(as.offset), hi = lo + a->bytes();  // [lo, hi) in the buffer
      if (hi > uint64_t(spec.extern_bytes)) {
        return Error{where + ".offset: '" + a->name + "' (bytes " + std::to_string(lo) + ".." +
                     std::to_string(hi - 1) + ") does not fit the extern buffer's " +
                     std::to_string(spec.extern_bytes) + " bytes"};
      }
      for (size_t k = 0; k < i; ++k) {
        const ArraySpec& o = spec.arrays[k];
        if (o.offset < 0) continue;
        const uint64_t olo = uint64_t(o.offset), ohi = olo + s.arrays[k].bytes();
        if (lo < ohi && olo < hi) {
          return Error{where + ".offset: '" + a->name + "' (bytes " + std::to_string(lo) + ".." +
                       std::to_string(hi - 1) + ") overlaps '" + o.name + "' (bytes " + std::to_string(olo) +
                       ".." + std::to_string(ohi - 1) + ") in the extern buffer"};
        }
      }
    }
    s.arrays.push_back(*a);
  }

  // The values every thread shares (for loop bounds, evaluated here): dimensions, n, params and
  // the defines made only of those.
  constexpr SlotMask kThreadVarying = kBlockIdxSlots | slot_bit(kThreadIdxX) | slot_bit(kThreadIdxY) |
                                      slot_bit(kThreadIdxZ) | slot_bit(kLane) | slot_bit(kWarp);
  Env uniform;
  uniform.v[kBlockDimX] = spec.block.x;
  uniform.v[kBlockDimY] = spec.block.y;
  uniform.v[kBlockDimZ] = spec.block.z;
  uniform.v[kGridDimX] = s.grid.x;
  uniform.v[kGridDimY] = s.grid.y;
  uniform.v[kGridDimZ] = s.grid.z;
  uniform.v[kN] = spec.n;
  for (const auto& [slot, value] : s.params) uniform.v[slot] = value;
  // Evaluates a define into `uniform` if it is the same in every thread.
  auto eval_uniform = [&](const Expr& e, const SymbolTable& st, int slot, const std::string& where) -> Result<bool> {
    if (e.deps(st) & kThreadVarying) return true;
    std::string err;
    if (!e.eval(uniform, &uniform.v[slot], &err)) return Error{where + " = '" + e.text() + "': " + err};
    return true;
  };

  // Defines, in order; each may use the builtins, params and earlier defines.
  for (size_t i = 0; i < spec.defines.size(); ++i) {
    const auto& [name, text] = spec.defines[i];
    const std::string where = "defines." + name;
    if (!is_identifier(name)) return Error{where + ": '" + name + "' is not an identifier"};
    auto e = Expr::parse(text, s.symbols);
    if (!e) {
      // A define that names a loop variable belongs inside that loop: say where it goes.
      for (const AccessSpec& as : spec.accesses) {
        for (const LoopSpec& l : as.loops) {
          if (e.error().message.find("unknown variable '" + l.var + "'") == std::string::npos) continue;
          return Error{where + ": " + e.error().message + "; '" + l.var +
                       "' is a loop variable: put this define in the \"defines\" of a loop entry ({\"loop\", "
                       "\"defines\", \"body\"}), evaluated per iteration"};
        }
      }
      return with_context(where, e.error());
    }
    BANKSCOPE_TRY(ok_n, check_n(*e, s.symbols, where));
    (void)ok_n;
    auto slot = s.symbols.add(name, e->type());  // `auto name = expr;`
    if (!slot) return with_context(where, slot.error());
    s.symbols.set_deps(*slot, e->deps(s.symbols) | slot_bit(*slot));
    BANKSCOPE_TRY(ok_u, eval_uniform(*e, s.symbols, *slot, where));
    (void)ok_u;
    s.defines.emplace_back(*slot, std::move(*e));
  }

  // Accesses. Loop variables (and a body's scoped defines) are scoped as in C: each exists only
  // inside its loop. `owner` remembers, per such name, the first statement that declares it, so
  // that a statement naming another's gets an error saying so rather than "unknown".
  if (spec.accesses.empty()) return Error{"accesses: a scenario needs at least one access"};
  struct Owner {
    std::string name;
    size_t stmt;
    bool is_define;
  };
  std::vector<Owner> owner;
  for (size_t i = 0; i < spec.accesses.size(); ++i) {
    for (const LoopSpec& l : spec.accesses[i].loops) {
      auto add_owner = [&](const std::string& name, bool def) {
        const bool known = std::any_of(owner.begin(), owner.end(), [&](const Owner& o) { return o.name == name; });
        if (!known) owner.push_back({name, i, def});
      };
      add_owner(l.var, false);
      for (const auto& d : l.defines) add_owner(d.first, true);
    }
  }
  std::vector<std::string> loop_where;  // per statement and depth: the field a loop error names
  for (size_t i = 0; i < spec.accesses.size(); ++i) {
    const AccessSpec& as = spec.accesses[i];
    const std::string where = as.path.empty() ? "accesses[" + std::to_string(i) + "]" : as.path;
    CompiledAccess ca;
    ca.where = where;
    ca.scope = s.symbols;
    if (as.op == "ld" || as.op == "load") {
      ca.op = Op::kLoad;
    } else if (as.op == "st" || as.op == "store") {
      ca.op = Op::kStore;
    } else if (as.op == "ldmatrix") {
      ca.op = Op::kLdmatrix;
    } else if (as.op == "stmatrix") {
      ca.op = Op::kStmatrix;
    } else if (as.op == "atom") {
      ca.op = Op::kAtomic;
    } else {
      return Error{where + ".op: '" + as.op +
                   "' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\" or \"atom\""};
    }
    // The issue-11 kinds' fields (a spec built in code is checked as a file is, json_io.cpp).
    if (is_matrix(ca.op)) {
      if (as.width != 0) {
        return Error{where + ".width: " + as.op +
                     " rows are always 16 bytes (8 b16 elements); give no width"};
      }
      if (as.num != 1 && as.num != 2 && as.num != 4) {
        return Error{where + ".num: " + std::to_string(as.num) +
                     " must be 1, 2 or 4 (.x1, .x2, .x4)"};
      }
      ca.matrices = as.num;
      ca.trans = as.trans;
    } else if (as.num != 0 || as.trans) {
      return Error{where + ".num: only for \"ldmatrix\" and \"stmatrix\", not \"" + as.op + "\""};
    }
    if (ca.op == Op::kAtomic) {
      if (!atom_from_name(trim(as.atom), &ca.atom)) {
        return Error{where + ".atom: '" + as.atom + "' must be " + kAtomNames};
      }
    } else if (!as.atom.empty()) {
      return Error{where + ".atom: only for \"op\": \"atom\", not \"" + as.op + "\""};
    }
    const std::string issue = trim(as.issue);
    if (issue.empty() || issue == "branch") {
      ca.issue = IssueMode::kBranch;
    } else if (issue == "predicated") {
      ca.issue = IssueMode::kPredicated;
    } else if (issue == "hoisted") {
      ca.issue = IssueMode::kHoisted;
    } else {
      return Error{where + ".issue: '" + as.issue + "' must be \"branch\", \"predicated\" or \"hoisted\""};
    }
    if (as.loops.size() > size_t(kMaxLoopsPerAccess)) {
      return Error{where + ".loops: at most " + std::to_string(kMaxLoopsPerAccess) + " nested loops (bodies included)"};
    }
    for (size_t k = 0; k < as.loops.size(); ++k) {
      const LoopSpec& l = as.loops[k];
      const std::string lw = l.path.empty() ? where + ".loops." + l.var : l.path;
      const std::string lvar = l.path.empty() ? where + ".loops" : l.path + ".var";
      if (!is_identifier(l.var)) return Error{lvar + ": '" + l.var + "' is not an identifier"};
      int slot = ca.scope.find(l.var);
      if (slot >= 0 && slot < kFirstUserSlot) {
        return Error{lvar + ": '" + l.var + "' is a built-in variable"};
      }
      for (const auto& d : s.defines) {
        if (d.first == slot) return Error{lvar + ": '" + l.var + "' is already a define"};
      }
      for (const auto& p : s.params) {
        if (p.first == slot) return Error{lvar + ": '" + l.var + "' is already a param"};
      }
      if (slot >= 0) return Error{lvar + ": '" + l.var + "' is used twice"};
      std::string init = l.init, cond = l.cond, update = l.update;
      if (l.old_form()) {
        if (l.step < 1) return Error{lw + ": step must be >= 1"};
        init = std::to_string(l.begin);
        cond = l.var + " < " + std::to_string(l.end);
        update = l.var + " += " + std::to_string(l.step);
      } else if (init.empty() || cond.empty() || update.empty()) {
        return Error{lw + ": a loop needs \"init\", \"cond\" and \"update\" (or \"begin\", \"end\", \"step\")"};
      }
      CompiledLoop cl;
      cl.body = l.body;
      cl.update_text = trim(update);
      // Parses a bound and checks that every thread computes the same value.
      auto bound = [&](const std::string& text, const std::string& field) -> Result<Expr> {
        auto e = Expr::parse(text, ca.scope);
        if (!e) return with_context(lw + "." + field, e.error());
        BANKSCOPE_TRY(okn, check_n(*e, ca.scope, lw + "." + field));
        (void)okn;
        if (e->deps(ca.scope) & kThreadVarying) {
          return Error{lw + "." + field + ": '" + text + "' differs from thread to thread (it depends on "
                       "threadIdx, blockIdx, lane or warp); a loop bound may use n, blockDim, gridDim, params, "
                       "outer loop variables and defines of those"};
        }
        return e;
      };
      BANKSCOPE_TRY(ie, bound(init, "init"));  // before the variable exists, as in C
      cl.init = std::move(ie);
      auto added = ca.scope.add(l.var, ExprType::kInt);  // for (int j = ...)
      if (!added) return with_context(where + ".loops", added.error());
      cl.slot = *added;
      BANKSCOPE_TRY(ce, bound(cond, "cond"));
      cl.cond = std::move(ce);
      auto next_text = update_as_next(update, l.var);
      if (!next_text) return with_context(lw + ".update", next_text.error());
      BANKSCOPE_TRY(ne, bound(*next_text, "update"));
      cl.next = std::move(ne);
      for (const auto& [dname, dtext] : l.defines) {
        const std::string dw = lw + ".defines." + dname;
        if (!is_identifier(dname)) return Error{dw + ": '" + dname + "' is not an identifier"};
        auto e = Expr::parse(dtext, ca.scope);
        if (!e) return with_context(dw, e.error());
        BANKSCOPE_TRY(okn, check_n(*e, ca.scope, dw));
        (void)okn;
        auto ds = ca.scope.add(dname, e->type());
        if (!ds) return with_context(dw, ds.error());
        ca.scope.set_deps(*ds, e->deps(ca.scope) | slot_bit(*ds));
        cl.defines.emplace_back(*ds, std::move(*e));
      }
      ca.loops.push_back(std::move(cl));
    }
    // Parses an expression of this statement. It is first parsed against the scope plus every
    // other statement's loop names, so that naming one of them gives the C rule as the error.
    auto parse_here = [&](const std::string& text, const std::string& field) -> Result<Expr> {
      SymbolTable probe = ca.scope;
      std::vector<std::pair<int, const Owner*>> foreign;  // probe slot -> its declaration
      for (const Owner& o : owner) {
        if (probe.find(o.name) >= 0) continue;
        auto slot = probe.add(o.name, ExprType::kInt);
        if (!slot) break;  // out of slots: such a name is then reported as unknown
        foreign.emplace_back(*slot, &o);
      }
      auto e = Expr::parse(text, probe);
      if (!e) return with_context(where + "." + field, e.error());
      const SlotMask used = e->deps(probe);
      for (const auto& [slot, o] : foreign) {
        if (used & slot_bit(slot)) {
          if (o->is_define) {
            return Error{where + "." + field + ": '" + probe.name(slot) + "' is a define of a loop body of accesses[" +
                         std::to_string(o->stmt) + "]; it exists only inside that loop"};
          }
          return Error{where + "." + field + ": '" + probe.name(slot) + "' is a loop variable of accesses[" +
                       std::to_string(o->stmt) + "]; a loop variable exists only inside its loop"};
        }
      }
      BANKSCOPE_TRY(okn, check_n(*e, probe, where + "." + field));
      (void)okn;
      return e;  // names only slots of ca.scope, which the probe shares
    };
    auto split = split_target(as.target);
    if (!split) return with_context(where + ".target", split.error());
    const auto& [aname, idx_text] = *split;
    int array = -1;
    for (size_t k = 0; k < s.arrays.size(); ++k) {
      if (s.arrays[k].name == aname) array = static_cast<int>(k);
    }
    if (array < 0) return Error{where + ".target: no shared array named '" + aname + "'"};
    ca.array = array;
    const SharedArray& arr = s.arrays[static_cast<size_t>(array)];
    if (static_cast<int>(idx_text.size()) != arr.shape.rank) {
      return Error{where + ".target: '" + aname + "' has " + std::to_string(arr.shape.rank) +
                   " dimension(s) but " + std::to_string(idx_text.size()) + " indices are given"};
    }
    for (const std::string& it : idx_text) {
      auto e = parse_here(it, "target");
      if (!e) return e.error();
      ca.index.push_back(std::move(*e));
    }
    if (!trim(as.guard).empty()) {
      auto g = parse_here(as.guard, "if");
      if (!g) return g.error();
      ca.guard = std::move(*g);
    }
    ca.width = is_matrix(ca.op) ? 16 : as.width == 0 ? arr.elem_bytes() : as.width;
    if (ca.width != 1 && ca.width != 2 && ca.width != 4 && ca.width != 8 && ca.width != 16) {
      return Error{where + ".width: " + std::to_string(ca.width) + " must be 1, 2, 4, 8 or 16 bytes"};
    }
    if (ca.op == Op::kAtomic && ca.width != 4 && ca.width != 8) {
      return Error{
          where + ".width: atom is 4 or 8 bytes per lane, not " + std::to_string(ca.width) +
          (as.width == 0
               ? std::string(" (the size of a ") + element_name(arr.type) + "; give \"width\")"
               : "")};
    }
    if (!is_matrix(ca.op) && ca.width % arr.elem_bytes() != 0 && ca.width < arr.elem_bytes()) {
      return Error{where + ".width: " + std::to_string(ca.width) + " bytes is narrower than a " +
                   element_name(arr.type)};
    }
    std::string kind = op_name(ca.op);
    if (ca.op == Op::kAtomic) {
      WarpAccess probe;
      probe.op = ca.op;
      probe.width = ca.width;
      probe.atom = ca.atom;
      if (const std::string why = not_one_instruction(probe); !why.empty())
        return Error{where + ".atom: " + why};
      // R8c: nvcc 13 compiles atomicAdd on a floating-point shared element for sm_90 to an LDS +
      // ATOMS.CAST.SPIN retry loop, not to ATOMS.ADD, whose rule (R8) would be wrong for it.
      // (Narrower and wider floating-point types never get here: atom is 4 or 8 bytes.)
      const bool floating = arr.type == ElementType::kFloat || arr.type == ElementType::kDouble ||
                            arr.type == ElementType::kHalf2;
      if (floating && ca.atom == AtomOp::kAdd) {
        return Error{where + ".atom: add on a " + element_name(arr.type) +
                     " array is not one instruction on sm_90 (nvcc 13.0 emits a compare-and-swap retry loop, "
                     "LDS + ATOMS.CAST.SPIN for float, double and half2 as compiled here, whose length depends on the data; "
                     "R8c): record the kernel with bankscope-gpu trace, whose report costs each execution"};
      }
      kind += std::string(".") + atom_name(ca.atom) + (ca.width == 8 ? ".64" : "");
    }
    if (is_matrix(ca.op)) kind += ".x" + std::to_string(ca.matrices) + (ca.trans ? ".trans" : "");
    ca.text = kind + " " + trim(as.target);
    ca.label = as.label.empty() ? ca.text : as.label;
    s.accesses.push_back(std::move(ca));
  }

  // Unroll the loops once, in program order: every thread runs the same iterations (the bounds
  // are uniform), so the order of (statement, iteration) is the same for every warp of the launch.
  // Statements [lo, hi) run from loop depth `depth`; `values` holds the enclosing loops' values.
  std::vector<int64_t> values;
  std::function<Result<bool>(size_t, size_t, size_t)> run = [&](size_t lo, size_t hi, size_t depth) -> Result<bool> {
    for (size_t i = lo; i < hi;) {
      CompiledAccess& a = s.accesses[i];
      if (depth == a.loops.size()) {
        const size_t iter = a.loops.empty() ? 0 : a.iterations.size() / a.loops.size();
        a.iterations.insert(a.iterations.end(), values.begin(), values.end());
        if (s.program.size() >= size_t(kMaxInstructionsPerWarp)) {
          return Error{"accesses: more than " + std::to_string(kMaxInstructionsPerWarp) +
                       " instructions per warp once the loops are unrolled"};
        }
        s.program.emplace_back(static_cast<int32_t>(i), static_cast<int32_t>(iter));
        ++i;
        continue;
      }
      const CompiledLoop& l = a.loops[depth];
      size_t j = i + 1;  // statements [i, j) share this loop
      if (l.body >= 0) {
        while (j < hi && s.accesses[j].loops.size() > depth && s.accesses[j].loops[depth].body == l.body) {
          // One loop, so one text: a spec built by hand (not from a file) could disagree.
          const LoopSpec& mine = spec.accesses[i].loops[depth];
          const LoopSpec& theirs = spec.accesses[j].loops[depth];
          if (theirs.var != mine.var || theirs.init != mine.init || theirs.cond != mine.cond ||
              theirs.update != mine.update || theirs.begin != mine.begin || theirs.end != mine.end ||
              theirs.step != mine.step || theirs.defines != mine.defines) {
            return Error{s.accesses[j].where + ".loops." + theirs.var + ": shares body " + std::to_string(l.body) +
                         " with " + a.where + " but its loop differs"};
          }
          ++j;
        }
      }
      const LoopSpec& ls = spec.accesses[i].loops[depth];
      const std::string var = a.scope.name(l.slot);
      const std::string lw = ls.path.empty() ? a.where + ".loops." + var : ls.path;
      std::string err;
      int64_t v = 0;
      if (!l.init.eval(uniform, &v, &err)) return Error{lw + ".init: '" + l.init.text() + "': " + err};
      if (v < INT32_MIN || v > INT32_MAX) return Error{lw + ".init: " + std::to_string(v) + " does not fit the int " + var};
      int64_t lo_v = v, hi_v = v, trips = 0;
      for (;;) {
        uniform.v[l.slot] = v;
        int64_t c = 0;
        if (!l.cond.eval(uniform, &c, &err)) {
          return Error{lw + ".cond: '" + l.cond.text() + "' at " + var + " = " + std::to_string(v) + ": " + err};
        }
        if (c == 0) break;
        if (trips == kMaxLoopIterations) {
          return Error{lw + ".update: more than " + std::to_string(kMaxLoopIterations) + " iterations ('" +
                       l.update_text + "' does not reach '" + l.cond.text() + "'): the loop never ends"};
        }
        lo_v = std::min(lo_v, v);
        hi_v = std::max(hi_v, v);
        for (const auto& [slot, e] : l.defines) {
          BANKSCOPE_TRY(okd, eval_uniform(e, a.scope, slot, lw + ".defines." + a.scope.name(slot)));
          (void)okd;
        }
        values.push_back(v);
        auto r = run(i, j, depth + 1);
        values.pop_back();
        if (!r) return r;
        ++trips;
        int64_t nv = 0;
        if (!l.next.eval(uniform, &nv, &err)) {
          return Error{lw + ".update: '" + l.update_text + "' at " + var + " = " + std::to_string(v) + ": " + err};
        }
        if (nv < INT32_MIN || nv > INT32_MAX) {
          return Error{lw + ".update: '" + l.update_text + "' at " + var + " = " + std::to_string(v) + " gives " +
                       std::to_string(nv) + ", which overflows the int " + var};
        }
        if (nv == v) {
          return Error{lw + ".update: '" + l.update_text + "' leaves " + var + " at " + std::to_string(v) +
                       ": the loop never ends"};
        }
        v = nv;
      }
      if (trips == 0) {
        return Error{lw + ".cond: '" + l.cond.text() + "' is false at the start (" + var + " = " + std::to_string(v) +
                     "): the loop never runs"};
      }
      for (size_t k = i; k < j; ++k) {
        CompiledLoop& kl = s.accesses[k].loops[depth];
        kl.lo = std::min(kl.lo, lo_v);
        kl.hi = std::max(kl.hi, hi_v);
      }
      i = j;
    }
    return true;
  };
  // lo/hi accumulate over every run of a loop (an inner loop runs once per outer iteration).
  for (CompiledAccess& a : s.accesses) {
    for (CompiledLoop& l : a.loops) {
      l.lo = INT64_MAX;
      l.hi = INT64_MIN;
    }
  }
  auto ran = run(0, s.accesses.size(), 0);
  if (!ran) return ran.error();
  s.spec.banks = *bc;
  return s;
}

ScenarioSpec seed_transpose_spec(int64_t row_stride) {
  ScenarioSpec s;
  s.name = "seed transpose, tile[32][" + std::to_string(row_stride) + "]";
  s.description =
      "The lesson's kernel: 32x32 threads, one element each, bounds-checked. The row write is "
      "conflict-free; the transposed read walks a column of the tile.";
  s.gpu_kernel = "seed";
  s.arrays = {ArraySpec{"tile", "float", {32, 32}, row_stride, 0, 0, 0, 0}};
  s.block = {32, 32, 1};
  s.n = 2048;
  s.tile = {32, 32, 1};
  s.defines = {{"x", "blockIdx.x * 32 + threadIdx.x"},
               {"y", "blockIdx.y * 32 + threadIdx.y"},
               {"outX", "blockIdx.y * 32 + threadIdx.x"},
               {"outY", "blockIdx.x * 32 + threadIdx.y"}};
  AccessSpec st;
  st.op = "st";
  st.target = "tile[threadIdx.y][threadIdx.x]";
  st.guard = "x < n && y < n";
  st.label = "row write";
  AccessSpec ld;
  ld.op = "ld";
  ld.target = "tile[threadIdx.x][threadIdx.y]";
  ld.guard = "outX < n && outY < n";
  ld.label = "column read";
  s.accesses = {st, ld};
  return s;
}

}  // namespace bankscope
