// resource_usage.hpp: registers and shared bytes of the compiled kernels, read from the output of
// `cuobjdump --dump-resource-usage` (generated at build time by kernels/CMakeLists.txt into
// <build>/kernels/bench_resource_usage.txt when cuobjdump is found).
//
//   " Function <mangled>:\n  REG:28 STACK:0 SHARED:5248 LOCAL:0 ..."  ->  demangled name -> facts
//
// Used for timing predictions made without a GPU; with a GPU the bench asks cudaFuncGetAttributes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "bench_kernels.hpp"
#include "sim/status.hpp"

namespace bankscope {

// cuobjdump's SHARED counts the 1 KiB the driver reserves per block on sm_90 whenever the kernel
// uses shared memory [measured here, CUDA 13.0: k_transpose_seed<32>'s 32x32-float tile (4096 B) is
// listed as SHARED:5120, kernels without shared memory as 0]; the facts hold the static bytes.
inline constexpr int kReservedSharedInDump = 1024;

struct ResourceUsage {
  std::map<std::string, CompiledFacts> by_symbol;  // demangled, without the parameter list
  std::string source;                              // the file it was read from
};

// Parses cuobjdump's text. Error: no "Function" entry in it (not a resource-usage dump).
Result<ResourceUsage> parse_resource_usage(const std::string& text, const std::string& source);
Result<ResourceUsage> load_resource_usage(const std::string& path);

// "void bankscope::k_transpose_seed<32>(float*, float const*, int)" ->
// "bankscope::k_transpose_seed<32>"
std::string symbol_without_signature(const std::string& demangled);

// The facts of one bench kernel; nullopt when its symbol is not in the dump.
std::optional<CompiledFacts> find_compiled(const ResourceUsage& usage, const BenchKernel& k);

// Where the build put the generated file ("" when cuobjdump was not found at configure time).
std::string default_resource_usage_path();

}  // namespace bankscope
