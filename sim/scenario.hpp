// scenario.hpp: a kernel's shared-memory behaviour as data.
//
// A ScenarioSpec is what a scenario file says, as text and numbers (the app edits it, save writes it
// back). compile() checks it and turns it into a Scenario: arrays laid out, expressions parsed
// against one symbol table. kernel_model.hpp runs a Scenario.
//
//   spec (file, UI) --compile--> Scenario --warp_instructions / launch_totals--> reports
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bank_model.hpp"
#include "expr.hpp"
#include "layout.hpp"
#include "status.hpp"

namespace bankscope {

struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  int64_t count() const { return x * y * z; }
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

struct ArraySpec {
  std::string name = "tile";
  std::string type = "float";
  std::vector<int64_t> dims{32, 32};  // logical shape, as C declares it: [cols] .. [d0][d1][d2][cols]
  int64_t row_stride = 0;             // physical elements per row; 0 = dims.back() (no padding)
  int64_t xor_mask = 0;               // physical col = col ^ (row & xor_mask)
  int swizzle_bits = 0, swizzle_base = 0, swizzle_shift = 0;  // CuTe Swizzle<B,M,S>
  int tma_swizzle = 0;  // written by TMA with CU_TENSOR_MAP_SWIZZLE_<n>B: 32, 64 or 128; 0 = not
  int64_t offset = -1;  // byte offset in the scenario's extern buffer; -1 = a static __shared__ array
};

// for (int var = init; cond; update). When init, cond and update are all empty the loop is the
// old form: for (var = begin; var < end; var += step).
struct LoopSpec {
  std::string var;
  int64_t begin = 0, end = 0, step = 1;
  std::string init{}, cond{}, update{};  // expressions; update is an assignment: "s *= 2", "i += step", "k++"
  // A loop that holds a body: consecutive statements whose loops at the same depth carry the same
  // body id share one loop (each iteration runs them all, in order); -1 = the statement's own loop.
  int body = -1;
  // Defines scoped to this loop's body (`auto name = expr;` at its top), evaluated per thread and
  // iteration after the loop variable is bound; they may use it and the enclosing loops' names.
  std::vector<std::pair<std::string, std::string>> defines{};
  std::string path{};  // where the file declares it, for errors ("accesses[1].loop"); "" = derived
  bool old_form() const { return init.empty() && cond.empty() && update.empty(); }
};

// How the compiled kernel issues an access whose guard is false for some lanes of a warp (read
// from the SASS, not the source: nvcc 13 predicates the STS of a guarded store, so warps whose
// lanes all fail the guard still execute it):
//   branch      the warp branches around it when no lane passes (no instruction issued)
//   predicated  every warp that reaches it issues it, lanes that fail the guard inactive; an
//               instruction with no active lane counts as executed and costs 0 wavefronts
//   hoisted     issued by every lane of the warp, the guard ignored
enum class IssueMode : uint8_t { kBranch, kPredicated, kHoisted };
const char* issue_mode_name(IssueMode m);

struct AccessSpec {
  std::string op = "ld";  // "ld", "st", "ldmatrix", "stmatrix" or "atom" (README "Scenario format")
  std::string target;     // "tile[threadIdx.x][threadIdx.y + j]"
  std::string guard;      // "" = always; e.g. "x < n && y < n"
  std::vector<LoopSpec> loops;  // outermost first; the enclosing bodies' loops come first
  int width = 0;          // bytes per lane; 0 = the element size (e.g. 16 to read a float tile as float4)
  std::string label;      // short name for tables; "" = derived
  std::string issue;      // "branch" (default when empty), "predicated" or "hoisted"
  int line = 0;           // source line of the kernel (.cu) this access is on; 0 = not given.
                          // Only `bankscope-cli check --cu` reads it (against nvcc's SASS).
  std::string path{};     // where the file declares it ("accesses[1].body[0]"); "" = accesses[i]
  // ldmatrix/stmatrix: .x1, .x2, .x4 (0 = not given) and .trans; `target` is each lane's row
  // address (the element where its 16-byte row starts), evaluated for lanes 0..8*num-1 only.
  int num = 0;
  bool trans = false;
  std::string atom{};  // atom: "add", "min", "max", "exch", "cas" or "popc_inc"
};

struct ScenarioSpec {
  std::string name;
  std::string description;
  std::string gpu_kernel;  // which bankscope-gpu kernel implements this scenario ("" = none)
  std::vector<ArraySpec> arrays{ArraySpec{}};
  Dim3 block{32, 32, 1};
  Dim3 grid{0, 0, 0};       // 0 = derived from n and tile
  // "grid" given as expressions of n, blockDim and params, x first (e.g. ["(n + 63) / 64",
  // "(n + 70) / 64"]: a kernel whose launch is not ceil(n / tile)); when set it replaces grid and
  // tile, so the launch follows n (`--n`, bankscope-gpu validate) as the kernel's host code does.
  std::vector<std::string> grid_expr;
  int64_t n = 2048;         // matrix size; variable `n` in expressions. 0 = not given (a file
                            // without "n": then a grid is required and `n` may not be used)
  bool n_defaulted = false;  // the file gave no "n": n is the default 2048, and outputs say so
  // Kernel parameters: int variables of every expression, in order (`--param K=2048` overrides).
  std::vector<std::pair<std::string, int64_t>> params;
  int64_t extern_bytes = -1;  // size of the extern __shared__ buffer; -1 = none
  Dim3 tile{32, 32, 1};     // elements per block in x and y when the grid is derived from n
  std::vector<std::pair<std::string, std::string>> defines;  // name -> expression, in order
  std::vector<AccessSpec> accesses;
  BankConfig banks;
};

inline constexpr int kMaxLoopsPerAccess = 6;       // loops around one statement, bodies included
inline constexpr int kMaxLoopIterations = 1 << 20;        // per loop: beyond, it never ends
inline constexpr int64_t kMaxInstructionsPerWarp = 1 << 20;  // the whole program, unrolled

struct CompiledLoop {
  int slot = -1;  // in the statement's scope (CompiledAccess::scope)
  int body = -1;  // LoopSpec::body
  // The smallest and largest value the variable takes over the whole launch (loops are uniform:
  // every thread runs the same iterations), for the interval analysis.
  int64_t lo = 0, hi = 0;
  // Scoped defines (LoopSpec::defines): slot, expression, evaluated after the variable is bound.
  std::vector<std::pair<int, Expr>> defines;
  Expr init, cond, next;  // next: the variable's value after the update, e.g. "s * (2)"
  std::string update_text;
};

struct CompiledAccess {
  Op op = Op::kLoad;
  // The statement's scope, as C scopes a for loop: the builtins and defines (Scenario::symbols)
  // plus this statement's own loop variables, whose slots other statements may reuse. Its target
  // and guard are parsed against it, so they cannot name another statement's loop variable.
  SymbolTable scope;
  int array = 0;
  std::vector<Expr> index;  // one per dimension of the array
  Expr guard;               // empty = always
  std::vector<CompiledLoop> loops;
  // Every iteration of the loops, in program order: loops.size() values each (outermost first).
  std::vector<int64_t> iterations;
  int width = 4;
  int matrices = 0;            // ldmatrix/stmatrix: 1, 2 or 4
  bool trans = false;          // ldmatrix/stmatrix: .trans
  AtomOp atom = AtomOp::kAdd;  // atom
  IssueMode issue = IssueMode::kBranch;
  // "ld tile[threadIdx.x][threadIdx.y + j]", "ldmatrix.x4 sA[lane % 16][8 * (lane / 16)]",
  // "atom.add hist[bin]": the op's name, a space, the target.
  std::string text;
  std::string label;
  std::string where;  // "accesses[1]"
  int64_t instructions_per_warp() const;  // product of loop trip counts
};

struct Scenario {
  ScenarioSpec spec;
  std::vector<SharedArray> arrays;
  Dim3 grid;  // resolved
  SymbolTable symbols;  // builtins and defines; each statement adds its loop variables in its scope
  std::vector<std::pair<int, Expr>> defines;  // slot, expression; evaluated in order per thread
  std::vector<CompiledAccess> accesses;
  // Program order: (statement, iteration of its loops). Statements that share a body interleave.
  std::vector<std::pair<int32_t, int32_t>> program;
  std::vector<std::pair<int, int64_t>> params;  // slot, value
  int warps_per_block() const { return static_cast<int>((spec.block.count() + kWarpSize - 1) / kWarpSize); }
  uint64_t shared_bytes() const;
};

// Checks everything and names the field that is wrong: "accesses[2].target: column 14: ...".
Result<Scenario> compile(const ScenarioSpec& spec);

// The seed lesson's kernel (32x32 threads, one element each, bounds-checked) with a given physical
// row stride: 32 gives tile[32][32], 33 gives tile[32][33]. Used as the built-in default.
ScenarioSpec seed_transpose_spec(int64_t row_stride);

}  // namespace bankscope
