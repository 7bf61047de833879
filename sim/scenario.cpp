// scenario.cpp: compile() checks a ScenarioSpec and binds its expressions to one symbol table.
#include "scenario.hpp"

#include <algorithm>
#include <cctype>

namespace bankscope {

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

Result<SharedArray> compile_array(const ArraySpec& a, uint32_t base) {
  if (!is_identifier(a.name)) return Error{"name: '" + a.name + "' is not a C identifier"};
  const auto type = parse_element_type(a.type);
  if (!type) {
    return Error{"type: unknown element type '" + a.type +
                 "' (expected char, half, float, double, float2 or float4)"};
  }
  if (a.dims.empty() || a.dims.size() > 2) {
    return Error{"dims: give 1 or 2 dimensions, got " + std::to_string(a.dims.size())};
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
  PhysicalLayout layout;
  layout.row_stride = static_cast<int>(a.row_stride);
  layout.xor_mask = static_cast<int>(a.xor_mask);
  layout.swizzle = Swizzle{a.swizzle_bits, a.swizzle_base, a.swizzle_shift};
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
  int64_t n = 1;
  for (const CompiledLoop& l : loops) n *= l.trips();
  return n;
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
  if (spec.n < 1 || spec.n > (int64_t{1} << 31)) {
    return Error{"n: " + std::to_string(spec.n) + " must be in 1..2^31"};
  }
  if (spec.grid.x == 0 && spec.grid.y == 0 && spec.grid.z == 0) {
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

  // Arrays, laid out one after another, 16-byte aligned, as the compiler places static
  // __shared__ arrays (assumed: the exact placement of several arrays is the compiler's choice).
  if (spec.arrays.empty()) return Error{"arrays: a scenario needs at least one shared array"};
  uint32_t base = 0;
  for (size_t i = 0; i < spec.arrays.size(); ++i) {
    auto a = compile_array(spec.arrays[i], base);
    if (!a) return with_context("arrays[" + std::to_string(i) + "]", a.error());
    for (const SharedArray& prev : s.arrays) {
      if (prev.name == a->name) return Error{"arrays[" + std::to_string(i) + "].name: '" + a->name + "' is declared twice"};
    }
    const uint64_t end = (uint64_t(base) + a->bytes() + 15) / 16 * 16;
    if (end > kMaxSharedBytesPerBlockSm90) {
      return Error{"arrays: " + std::to_string(end) +
                   " bytes of shared memory in all; a block can have at most " +
                   std::to_string(kMaxSharedBytesPerBlockSm90) + " (227 KiB on sm_90)"};
    }
    base = static_cast<uint32_t>(end);
    s.arrays.push_back(*a);
  }

  // Defines, in order; each may use the builtins and earlier defines.
  for (size_t i = 0; i < spec.defines.size(); ++i) {
    const auto& [name, text] = spec.defines[i];
    const std::string where = "defines." + name;
    if (!is_identifier(name)) return Error{where + ": '" + name + "' is not an identifier"};
    auto e = Expr::parse(text, s.symbols);
    if (!e) return with_context(where, e.error());
    auto slot = s.symbols.add(name, e->type());  // `auto name = expr;`
    if (!slot) return with_context(where, slot.error());
    s.symbols.set_deps(*slot, e->deps(s.symbols) | slot_bit(*slot));
    s.defines.emplace_back(*slot, std::move(*e));
  }

  // Accesses. Loop variables are scoped as in C: each exists only inside its statement's loops.
  // `owner` remembers, per loop-variable name, the first statement that declares it, so that a
  // statement naming another's loop variable gets an error saying so rather than "unknown".
  if (spec.accesses.empty()) return Error{"accesses: a scenario needs at least one access"};
  std::vector<std::pair<std::string, size_t>> owner;
  for (size_t i = 0; i < spec.accesses.size(); ++i) {
    for (const LoopSpec& l : spec.accesses[i].loops) {
      const bool known = std::any_of(owner.begin(), owner.end(), [&](const auto& o) { return o.first == l.var; });
      if (!known) owner.emplace_back(l.var, i);
    }
  }
  for (size_t i = 0; i < spec.accesses.size(); ++i) {
    const AccessSpec& as = spec.accesses[i];
    const std::string where = "accesses[" + std::to_string(i) + "]";
    CompiledAccess ca;
    ca.where = where;
    ca.scope = s.symbols;
    if (as.op == "ld" || as.op == "load") {
      ca.op = Op::kLoad;
    } else if (as.op == "st" || as.op == "store") {
      ca.op = Op::kStore;
    } else {
      return Error{where + ".op: '" + as.op + "' must be \"ld\" or \"st\""};
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
    if (as.loops.size() > 4) return Error{where + ".loops: at most 4 nested loops"};
    for (const LoopSpec& l : as.loops) {
      if (!is_identifier(l.var)) return Error{where + ".loops: '" + l.var + "' is not an identifier"};
      int slot = ca.scope.find(l.var);
      if (slot >= 0 && slot < kFirstUserSlot) {
        return Error{where + ".loops: '" + l.var + "' is a built-in variable"};
      }
      for (const auto& d : s.defines) {
        if (d.first == slot) return Error{where + ".loops: '" + l.var + "' is already a define"};
      }
      for (const CompiledLoop& other : ca.loops) {
        if (other.slot == slot) return Error{where + ".loops: '" + l.var + "' is used twice"};
      }
      if (slot < 0) {
        auto added = ca.scope.add(l.var, ExprType::kInt);  // for (int j = ...)
        if (!added) return with_context(where + ".loops", added.error());
        slot = *added;
      }
      if (l.step < 1) return Error{where + ".loops." + l.var + ": step must be >= 1"};
      CompiledLoop cl{slot, l.begin, l.end, l.step};
      if (cl.trips() < 1 || cl.trips() > 4096) {
        return Error{where + ".loops." + l.var + ": " + std::to_string(cl.trips()) +
                     " iterations; need 1..4096"};
      }
      ca.loops.push_back(cl);
    }
    // Parses an expression of this statement. It is first parsed against the scope plus every
    // other statement's loop variables, so that naming one of them gives the C rule as the error.
    auto parse_here = [&](const std::string& text, const std::string& field) -> Result<Expr> {
      SymbolTable probe = ca.scope;
      std::vector<std::pair<int, size_t>> foreign;  // probe slot -> the statement that owns it
      for (const auto& [name, stmt] : owner) {
        if (probe.find(name) >= 0) continue;
        auto slot = probe.add(name, ExprType::kInt);  // loop variables are int
        if (!slot) break;  // out of slots: such a name is then reported as unknown
        foreign.emplace_back(*slot, stmt);
      }
      auto e = Expr::parse(text, probe);
      if (!e) return with_context(where + "." + field, e.error());
      const SlotMask used = e->deps(probe);
      for (const auto& [slot, stmt] : foreign) {
        if (used & slot_bit(slot)) {
          return Error{where + "." + field + ": '" + probe.name(slot) + "' is a loop variable of accesses[" +
                       std::to_string(stmt) + "]; a loop variable exists only inside its loop"};
        }
      }
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
    ca.width = as.width == 0 ? arr.elem_bytes() : as.width;
    if (ca.width != 1 && ca.width != 2 && ca.width != 4 && ca.width != 8 && ca.width != 16) {
      return Error{where + ".width: " + std::to_string(ca.width) + " must be 1, 2, 4, 8 or 16 bytes"};
    }
    if (ca.width % arr.elem_bytes() != 0 && ca.width < arr.elem_bytes()) {
      return Error{where + ".width: " + std::to_string(ca.width) + " bytes is narrower than a " +
                   element_name(arr.type)};
    }
    ca.text = std::string(op_name(ca.op)) + " " + trim(as.target);
    ca.label = as.label.empty() ? ca.text : as.label;
    s.accesses.push_back(std::move(ca));
  }
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
