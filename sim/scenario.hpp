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
  std::vector<int64_t> dims{32, 32};  // logical shape: [cols] or [rows, cols]
  int64_t row_stride = 0;             // physical elements per row; 0 = dims.back() (no padding)
  int64_t xor_mask = 0;               // physical col = col ^ (row & xor_mask)
  int swizzle_bits = 0, swizzle_base = 0, swizzle_shift = 0;  // CuTe Swizzle<B,M,S>
};

struct LoopSpec {
  std::string var;
  int64_t begin = 0, end = 0, step = 1;  // for (var = begin; var < end; var += step)
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
  std::string op = "ld";  // "ld" or "st"
  std::string target;     // "tile[threadIdx.x][threadIdx.y + j]"
  std::string guard;      // "" = always; e.g. "x < n && y < n"
  std::vector<LoopSpec> loops;  // outermost first
  int width = 0;          // bytes per lane; 0 = the element size (e.g. 16 to read a float tile as float4)
  std::string label;      // short name for tables; "" = derived
  std::string issue;      // "branch" (default when empty), "predicated" or "hoisted"
  int line = 0;           // source line of the kernel (.cu) this access is on; 0 = not given.
                          // Only `bankscope-cli check --cu` reads it (against nvcc's SASS).
};

struct ScenarioSpec {
  std::string name;
  std::string description;
  std::string gpu_kernel;  // which bankscope-gpu kernel implements this scenario ("" = none)
  std::vector<ArraySpec> arrays{ArraySpec{}};
  Dim3 block{32, 32, 1};
  Dim3 grid{0, 0, 0};       // 0 = derived from n and tile
  int64_t n = 2048;         // matrix size; variable `n` in expressions
  Dim3 tile{32, 32, 1};     // elements per block in x and y when the grid is derived from n
  std::vector<std::pair<std::string, std::string>> defines;  // name -> expression, in order
  std::vector<AccessSpec> accesses;
  BankConfig banks;
};

struct CompiledLoop {
  int slot = -1;  // in the statement's scope (CompiledAccess::scope)
  int64_t begin = 0, end = 0, step = 1;
  int64_t trips() const { return step > 0 && end > begin ? (end - begin + step - 1) / step : 0; }
  int64_t last() const { return begin + (trips() - 1) * step; }
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
  int width = 4;
  IssueMode issue = IssueMode::kBranch;
  std::string text;   // "ld tile[threadIdx.x][threadIdx.y + j]"
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
  int warps_per_block() const { return static_cast<int>((spec.block.count() + kWarpSize - 1) / kWarpSize); }
  uint64_t shared_bytes() const;
};

// Checks everything and names the field that is wrong: "accesses[2].target: column 14: ...".
Result<Scenario> compile(const ScenarioSpec& spec);

// The seed lesson's kernel (32x32 threads, one element each, bounds-checked) with a given physical
// row stride: 32 gives tile[32][32], 33 gives tile[32][33]. Used as the built-in default.
ScenarioSpec seed_transpose_spec(int64_t row_stride);

}  // namespace bankscope
