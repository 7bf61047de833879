// gpu_results.hpp: measured results from bankscope-gpu, as the app and the CLI read them.
//
// bankscope-gpu writes this JSON (assets/results/h200/validate.json); the visualizer loads it to
// set predicted and measured numbers side by side. The format is defined here so sim/ (and so
// the app) can read it without CUDA.
//
// {
//   "bankscope_results": 2,        (1 is still read: its rows have no layout identity)
//   "device": {"name": "NVIDIA H200", "sm": "9.0", "sms": 132, "sm_clock_mhz": 1980,
//              "mem_clock_mhz": 3201, "driver": "580.159.04", "cuda_runtime": "13.0", ...},
//   "kernels": [ {
//       "kernel": "seed_32x32", "scenario": "seed_transpose_32x32.json", "n": 2048,
//       "row_stride": 32, "xor": 0, "swizzle": [0, 0, 0], "block": [32, 8, 1],   (version 2)
//       "predicted": {"ld": {"instructions":..,"wavefronts":..,"bank_conflicts":..}, "st": {...},
//                     "time_ms": .., "bound": "shared"},
//       "measured":  {"ld": {"instructions":..,"wavefronts":..,"bank_conflicts":..,
//                            "instructions_sass":.., "wavefronts_sass":..,
//                            "bank_conflicts_sass":..}, "st": {...},
//                     "time_ms": .., "gbps": .., "counters_source": "cupti|ncu|none"},
//       "correct": true, "verdict": "match" } ... ]
// }
// Optional numbers are written as null when not measured; readers accept a missing key as null.
// Extra fields (added by the GPU backend, all optional on read): device.copy_gbps (cudaMemcpy
// device-to-device bandwidth measured in the same run), device.cuda_driver, device.date,
// device.counters_note, device.sm_clock_now_mhz, device.mem_clock_now_mhz; per kernel: gpu_kernel, type, copy_gbps, predicted.gbps,
// predicted.shared_ms, predicted.dram_ms, measured.sass_source, measured.runs, note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "status.hpp"

namespace bankscope {
struct Scenario;
}

namespace bankscope {

// One identity for a layout: a measurement is shown beside a prediction only when every field
// agrees (scenario file, N, every layout parameter of arrays[0], element type, block shape). The
// app and bankscope-gpu both use key_of(); see tests for the cases it must tell apart.
struct ResultsKey {
  std::string scenario;  // scenario file basename ("tiled_32x8_32x33.json")
  int64_t n = 0;
  int64_t row_stride = 0;  // physical elements per row, resolved (never 0)
  int64_t xor_mask = 0;
  int swizzle_bits = 0, swizzle_base = 0, swizzle_shift = 0;
  std::string type;  // element type name as element_name() prints it ("float", "float4")
  int64_t block_x = 0, block_y = 0, block_z = 0;
  bool operator==(const ResultsKey& o) const {
    return scenario == o.scenario && n == o.n && row_stride == o.row_stride &&
           xor_mask == o.xor_mask && swizzle_bits == o.swizzle_bits &&
           swizzle_base == o.swizzle_base && swizzle_shift == o.swizzle_shift && type == o.type &&
           block_x == o.block_x && block_y == o.block_y && block_z == o.block_z;
  }
  std::string describe() const;  // one line, for "no measured row for ..." messages
};

struct CounterSet {
  std::optional<uint64_t> instructions;     // measured: smsp__inst_executed_op_shared_* (hardware)
  std::optional<uint64_t> wavefronts;       // hardware l1tex__ counter (or the model's prediction)
  std::optional<uint64_t> bank_conflicts;
  std::optional<uint64_t> wavefronts_sass;  // smsp__sass_l1tex_... (instruction-level, exact)
  std::optional<uint64_t> instructions_sass;    // smsp__sass_inst_executed_op_shared_*
  std::optional<uint64_t> bank_conflicts_sass;  // smsp__sass_l1tex_data_bank_conflicts_..._op_*
};

struct KernelResult {
  std::string kernel;
  std::string scenario;  // scenario file name (basename), "" if none
  int64_t n = 0;
  int64_t row_stride = 0;
  CounterSet predicted_ld, predicted_st, measured_ld, measured_st;
  std::optional<double> predicted_ms, measured_ms, measured_gbps;
  std::string bound;            // "shared" | "dram" | ...
  std::string counters_source;  // "cupti", "ncu", "clock64", "none"
  bool correct = false;
  std::string verdict;
  // Added by the GPU backend (all optional in the JSON).
  std::string gpu_kernel;                // bankscope-gpu kernel name ("tiled_32x8", ...)
  std::string type;                      // element type ("float", "double", "float4")
  std::optional<double> predicted_gbps, predicted_shared_ms, predicted_dram_ms;
  std::optional<double> copy_gbps;       // cudaMemcpy D2D of the same bytes, same run
  std::string sass_source;               // where wavefronts_sass came from: "ncu", "cupti", ""
  int runs = 0;                          // timed runs behind measured_ms (median)
  std::string note;
  // The rest of the layout identity (ResultsKey); format version 2 writes them.
  int64_t xor_mask = 0;
  int swizzle_bits = 0, swizzle_base = 0, swizzle_shift = 0;
  int64_t block_x = 0, block_y = 0, block_z = 0;
  bool has_layout_key = false;  // false for rows of version-1 files: they match no prediction
};

struct DeviceInfo {
  std::string name, sm, driver, cuda_runtime;
  int sms = 0;
  int sm_clock_mhz = 0, mem_clock_mhz = 0;
  // Added by the GPU backend (optional in the JSON).
  std::string cuda_driver;    // CUDA version the driver supports, "13.0"
  std::string date;           // UTC, ISO 8601
  std::string counters_note;  // how counters were read, or why not
  std::optional<double> copy_gbps;
  int sm_clock_now_mhz = 0, mem_clock_now_mhz = 0;  // read through NVML at the start (0 = unknown)
};

struct GpuResults {
  DeviceInfo device;
  std::vector<KernelResult> kernels;
  // The row for a kernel/scenario and n, or null.
  const KernelResult* find(const std::string& scenario_basename, int64_t n) const;
  // The row whose layout identity equals `key`, or null.
  const KernelResult* find(const ResultsKey& key) const;
};

// The identity of a measured row, and of a prediction: arrays[0] of the compiled scenario.
ResultsKey key_of(const KernelResult& k);

ResultsKey key_of(const std::string& scenario_basename, const Scenario& s);

Result<GpuResults> parse_gpu_results(const std::string& json_text, const std::string& source);
Result<GpuResults> load_gpu_results(const std::string& path);
std::string gpu_results_to_json(const GpuResults& r);

}  // namespace bankscope
