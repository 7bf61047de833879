// test_gpu_host.cpp: the GPU backend's pieces that need no device: kernel plans, the model's
// predictions for the shipped scenarios, the results JSON, ncu's CSV, the timing model.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness.hpp"
#include "kernels.hpp"
#include "ncu_runner.hpp"
#include "sim/gpu_results.hpp"
#include "sim/timing_model.hpp"

using namespace bankscope;

TEST_CASE("plan_transpose: the scenario's gpu_kernel and layout pick the kernel") {
  struct Row {
    const char* name;
    Elem elem;
    PhysicalLayout layout;
    const char* symbol;  // "" = expect an error containing `error`
    bool is_static;
    int block_rows;
    const char* error;
  };
  const Row rows[] = {
      {"seed", Elem::kFloat, PhysicalLayout{32}, "k_transpose_seed<32>", true, 32, ""},
      {"seed", Elem::kFloat, PhysicalLayout{33}, "k_transpose_seed<33>", true, 32, ""},
      {"seed", Elem::kFloat, PhysicalLayout{40}, "k_transpose_dyn<float, 32>", false, 32, ""},
      // k_transpose_seed has no XOR parameter: the seed shape with xor 31 (what `fix` chooses for
      // the seed tile) runs the run-time layout, not the plain [32][32] kernel.
      {"seed", Elem::kFloat, PhysicalLayout{32, 31}, "k_transpose_dyn<float, 32>", false, 32, ""},
      {"tiled_32x8_double", Elem::kDouble, PhysicalLayout{32, 15}, "k_transpose_dyn<double, 8>", false, 8, ""},
      {"tiled_32x8", Elem::kFloat, PhysicalLayout{33}, "k_transpose_32x8<float, 33, 0>", true, 8, ""},
      {"tiled_32x8_xor", Elem::kFloat, PhysicalLayout{32, 31}, "k_transpose_32x8<float, 32, 31>", true, 8, ""},
      {"tiled_32x8_xor", Elem::kFloat, PhysicalLayout{32, 0, Swizzle{5, 0, 5}}, "k_transpose_dyn<float, 8>",
       false, 8, ""},
      {"dynamic_stride", Elem::kFloat, PhysicalLayout{32}, "k_transpose_dyn<float, 8>", false, 8, ""},
      {"tiled_32x8_double", Elem::kDouble, PhysicalLayout{33}, "k_transpose_32x8<double, 33, 0>", true, 8, ""},
      {"tiled_float4", Elem::kFloat4, PhysicalLayout{32}, "k_transpose_32x8<float4, 32, 0>", true, 8, ""},
      {"tiled_32x8_double", Elem::kFloat, PhysicalLayout{33}, "", false, 0, "needs arrays[0].type double"},
      {"seed", Elem::kDouble, PhysicalLayout{33}, "", false, 0, "needs arrays[0].type float"},
      {"nope", Elem::kFloat, PhysicalLayout{33}, "", false, 0, "unknown gpu_kernel \"nope\""},
      {"dynamic_stride", Elem::kFloat, PhysicalLayout{31}, "", false, 0, "below the tile width"},
      // 32 rows x 2000 floats = 256000 bytes > 227 KiB.
      {"dynamic_stride", Elem::kFloat, PhysicalLayout{2000}, "", false, 0, "bytes of shared memory"},
  };
  for (const Row& r : rows) {
    const std::string name = r.name;
    CAPTURE(name);
    CAPTURE(r.layout.row_stride);
    TransposePlan p;
    const std::string err = plan_transpose(r.name, r.elem, r.layout, &p);
    if (r.symbol[0] == '\0') {
      CHECK(err.find(r.error) != std::string::npos);
    } else {
      REQUIRE(err.empty());
      CHECK(p.symbol == r.symbol);
      CHECK(p.is_static == r.is_static);
      CHECK(p.block_rows == r.block_rows);
      // Dynamic tiles are sized to the layout's extent: row 31 starts at 31 * stride, plus 32.
      CHECK(p.dyn_smem == (r.is_static ? 0u : size_t(31 * r.layout.row_stride + 32) * elem_bytes(r.elem)));
    }
  }
}

TEST_CASE("plan_jobs: shipped scenarios predict the counts measured on the H200 with ncu") {
  // Measured here (GPU_FACTS.md, ncu, fp32): smsp__sass_..._wavefronts_mem_shared_op_ld at N=2048
  // with 32x8 blocks is 4,194,304 for tile[32][32] and 131,072 for tile[32][33]; a single block
  // (N=32) is 1,024 and 32.
  const std::string dir = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/";
  struct Row {
    const char* file;
    int64_t n;
    uint64_t ld_wavefronts, st_wavefronts, ld_instructions;
  };
  const Row rows[] = {
      {"tiled_32x8_32x32.json", 2048, 4194304, 131072, 131072},
      {"tiled_32x8_32x33.json", 2048, 131072, 131072, 131072},
      {"tiled_32x8_32x32.json", 32, 1024, 32, 32},
      {"tiled_32x8_32x33.json", 32, 32, 32, 32},
      {"seed_transpose_32x32.json", 2048, 4194304, 131072, 131072},
      {"seed_transpose_32x33.json", 2048, 131072, 131072, 131072},
      {"tiled_32x8_xor.json", 2048, 131072, 131072, 131072},
  };
  for (const Row& r : rows) {
    const std::string file = r.file;
    CAPTURE(file);
    CAPTURE(r.n);
    Result<std::vector<TransposeJob>> jobs = plan_jobs({dir + r.file}, {r.n}, nullptr);
    REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? "" : jobs.error().message));
    REQUIRE(jobs.value().size() == 1);
    const TransposeJob& j = jobs.value()[0];
    CHECK(j.predicted.ld.wavefronts == r.ld_wavefronts);
    CHECK(j.predicted.st.wavefronts == r.st_wavefronts);
    CHECK(j.predicted.ld.instructions == r.ld_instructions);
    CHECK(j.n == r.n);
  }
}

TEST_CASE("plan_transpose: a bench candidate's name launches that kernel (issue 15)") {
  TransposePlan p;
  REQUIRE(plan_transpose("fast_shift_64x64_t256", Elem::kFloat, PhysicalLayout{64}, &p) == "");
  CHECK(p.bench_kernel == "fast_shift_64x64_t256");
  CHECK(p.symbol == "bench::fast_shift<64, 64, 256, 1, 0>");
  CHECK(p.block_x == 256);
  CHECK(p.block_rows == 1);
  CHECK(p.tile_rows == 64);
  CHECK(p.tile_cols == 64);
  CHECK(p.dyn_smem == 0);
  REQUIRE(plan_transpose("fast_shift_128x64_t256", Elem::kFloat, PhysicalLayout{64}, &p) == "");
  CHECK(p.tile_rows == 128);
  CHECK(p.tile_cols == 64);
  REQUIRE(plan_transpose("fast_f4v_128x128_t512", Elem::kFloat, PhysicalLayout{128}, &p) == "");
  CHECK(p.symbol == "bench::fast_f4v<128, 128, 512, 4>");
  CHECK(p.block_x == 512);
  // fp32 only; launches that need more than n (the persistent grid, the tensor map) are not
  // planned.
  CHECK(plan_transpose("fast_shift_64x64_t256", Elem::kDouble, PhysicalLayout{64}, &p)
            .find("needs arrays[0].type float") != std::string::npos);
  CHECK(plan_transpose("fast_tma", Elem::kFloat, PhysicalLayout{32}, &p)
            .rfind("unknown gpu_kernel", 0) == 0);
  CHECK(plan_transpose("fast_f4p_64x64_t256", Elem::kFloat, PhysicalLayout{64}, &p)
            .rfind("unknown gpu_kernel", 0) == 0);
  CHECK(plan_transpose("cublas_sgeam", Elem::kFloat, PhysicalLayout{32}, &p)
            .rfind("unknown gpu_kernel", 0) == 0);
}

TEST_CASE("plan_jobs: issue-15 scenarios predict per-launch counts counted by hand") {
  // Every block of these kernels issues the same shared accesses at every n (edges mask global
  // accesses only), so a launch is (per-block counts) x grid. Per block, by hand from the code:
  //   fast_shift<64, 64, 256>: 8 warps; STS.128: 4 a warp (64 rows x 16 chunks / 256 threads)
  //     + 1 for the 2 warps of the halo (4 rows x 16 chunks = threads 0..63) = 34; LDS.128: 7 a
  //     warp (one 4x4-block pair, rows 4i+1..4i+7) = 56. Conflict-free: 4 wavefronts each.
  //   fast_shift<128, 64, 256>: STS 8 x 8 + 2 = 66; LDS 2 x 7 x 8 = 112.
  //   fast_f4v<128, 128, 512>: 16 warps; STS 8 a warp = 128; LDS 2 x 4 a warp = 128.
  const std::string dir = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/";
  struct Row {
    const char* file;
    int64_t n;
    uint64_t blocks, ld_instructions, st_instructions;
  };
  const Row rows[] = {
      {"fast_shift_64x64_t256.json", 33, 1, 56, 34},
      {"fast_shift_64x64_t256.json", 8191, 128 * 128, 56 * 16384, 34 * 16384},
      {"fast_shift_64x64_t256.json", 4100, 65 * 65, 56 * 4225, 34 * 4225},
      {"fast_shift_128x64_t256.json", 100, 2, 224, 132},  // 2 x 1 tiles of 64 columns x 128 rows
      {"fast_f4_128x128_t512.json", 33, 1, 128, 128},
      {"fast_f4_128x128_t512.json", 8191, 64 * 64, 128 * 4096, 128 * 4096},
  };
  for (const Row& r : rows) {
    const std::string file = r.file;
    CAPTURE(file);
    CAPTURE(r.n);
    Result<std::vector<TransposeJob>> jobs = plan_jobs({dir + r.file}, {r.n}, nullptr);
    REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? "" : jobs.error().message));
    REQUIRE(jobs.value().size() == 1);
    const TransposeJob& j = jobs.value()[0];
    CHECK(j.predicted.blocks == r.blocks);
    CHECK(j.predicted.ld.instructions == r.ld_instructions);
    CHECK(j.predicted.st.instructions == r.st_instructions);
    CHECK(j.predicted.ld.wavefronts == 4 * r.ld_instructions);
    CHECK(j.predicted.st.wavefronts == 4 * r.st_instructions);
  }
}

TEST_CASE("plan_jobs: a bench kernel's scenario must have the kernel's block and tile") {
  const std::string dir = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/";
  std::ifstream in(dir + "fast_shift_64x64_t256.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string tmp =
      (std::filesystem::temp_directory_path() / "bankscope_wrong_tile.json").string();
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::remove(path.c_str()); }
  } cleanup{tmp};
  const auto write_with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    std::ofstream(tmp) << t;
  };
  write_with("\"tile\": [\n    64,\n    64\n  ]", "\"tile\": [32, 64]");
  Result<std::vector<TransposeJob>> jobs = plan_jobs({tmp}, {100}, nullptr);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.error().message.find(
            "tile: gpu_kernel \"fast_shift_64x64_t256\" has 64x64 elements per block") !=
        std::string::npos);
  write_with("\"block\": [\n    256,\n    1\n  ]", "\"block\": [128, 1]");
  jobs = plan_jobs({tmp}, {100}, nullptr);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.error().message.find("runs 256x1 threads, the scenario says 128x1x1") !=
        std::string::npos);
}

TEST_CASE("plan_jobs: errors name the file") {
  Result<std::vector<TransposeJob>> jobs = plan_jobs({"/nonexistent/x.json"}, {32}, nullptr);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.error().message.find("/nonexistent/x.json") != std::string::npos);
}

TEST_CASE("timing model: two ceilings, the larger wins") {
  DeviceThroughput dev;
  dev.sms = 132;
  dev.sm_clock_mhz = 1980;
  dev.dram_gbps = 4000;
  // tile[32][32], 32x8 threads, N=2048: 4,194,304 + 131,072 wavefronts; 2 * 2048^2 * 4 bytes.
  const TimingPrediction p = predict_time(KernelWork{4325376, 33554432}, dev);
  CHECK(p.shared_ms == doctest::Approx(0.0165495).epsilon(1e-5));
  CHECK(p.dram_ms == doctest::Approx(0.0083886).epsilon(1e-5));
  CHECK(p.ms == p.shared_ms);
  CHECK(p.bound == "shared");
  // Padded: 262,144 wavefronts -> DRAM-bound.
  const TimingPrediction q = predict_time(KernelWork{262144, 33554432}, dev);
  CHECK(q.bound == "dram");
  CHECK(q.ms == doctest::Approx(0.0083886).epsilon(1e-5));
  CHECK(predict_time(KernelWork{1, 1}, DeviceThroughput{}).bound == "unknown");
  CHECK(effective_gbps(33554432, 0.01) == doctest::Approx(3355.4432));
  CHECK(effective_gbps(1, 0.0) == 0.0);
  CHECK(transpose_dram_bytes(16384, 4) == 2147483648ull);
}

TEST_CASE("gpu results JSON: round trip and errors") {
  GpuResults r;
  r.device.name = "NVIDIA H200";
  r.device.sm = "9.0";
  r.device.sms = 132;
  r.device.sm_clock_mhz = 1980;
  r.device.copy_gbps = 4200.5;
  KernelResult k;
  k.kernel = "tiled_32x8_32x32";
  k.scenario = "tiled_32x8_32x32.json";
  k.n = 2048;
  k.row_stride = 32;
  k.predicted_ld = CounterSet{131072, 4194304, 4063232, std::nullopt, std::nullopt, std::nullopt};
  k.measured_ld = CounterSet{131072, 4216000, 4085000, 4194304, 131072, 4063232};
  k.type = "float";
  k.xor_mask = 0;
  k.swizzle_bits = 5;
  k.swizzle_base = 0;
  k.swizzle_shift = 5;
  k.block_x = 32;
  k.block_y = 8;
  k.block_z = 1;
  k.has_layout_key = true;
  k.measured_ms = 0.05;
  k.correct = true;
  k.verdict = "match";
  k.counters_source = "cupti";
  k.sass_source = "ncu";
  r.kernels.push_back(k);

  Result<GpuResults> back = parse_gpu_results(gpu_results_to_json(r), "mem.json");
  REQUIRE(back.ok());
  CHECK(back->device.name == "NVIDIA H200");
  CHECK(back->device.sms == 132);
  CHECK(back->device.copy_gbps.value_or(0) == doctest::Approx(4200.5));
  REQUIRE(back->kernels.size() == 1);
  const KernelResult& b = back->kernels[0];
  CHECK(b.predicted_ld.wavefronts.value_or(0) == 4194304u);
  CHECK(b.measured_ld.wavefronts.value_or(0) == 4216000u);
  CHECK(b.measured_ld.wavefronts_sass.value_or(0) == 4194304u);
  CHECK_FALSE(b.measured_st.wavefronts.has_value());
  CHECK_FALSE(b.predicted_ms.has_value());
  CHECK(b.measured_ms.value_or(0) == doctest::Approx(0.05));
  CHECK(b.correct);
  CHECK(b.sass_source == "ncu");
  CHECK(back->find("tiled_32x8_32x32.json", 2048) != nullptr);
  CHECK(back->find("tiled_32x8_32x32.json", 4096) == nullptr);
  // Version 2: the instruction-level counters and the layout identity come back.
  CHECK(b.measured_ld.instructions_sass.value_or(0) == 131072u);
  CHECK(b.measured_ld.bank_conflicts_sass.value_or(0) == 4063232u);
  CHECK_FALSE(b.measured_st.instructions_sass.has_value());
  CHECK(b.has_layout_key);
  CHECK(key_of(b) == key_of(k));
  CHECK(back->find(key_of(k)) == &b);
  ResultsKey other = key_of(k);
  other.swizzle_bits = 0;  // the same stride without the swizzle: another layout
  CHECK(back->find(other) == nullptr);
  // Version 1 rows are read, but have no layout identity: they match no prediction.
  Result<GpuResults> v1 = parse_gpu_results(
      R"({"bankscope_results": 1, "kernels": [{"kernel": "k", "scenario": "s.json", "n": 32, "row_stride": 32}]})",
      "v1.json");
  REQUIRE(v1.ok());
  REQUIRE(v1->kernels.size() == 1);
  CHECK_FALSE(v1->kernels[0].has_layout_key);
  CHECK(v1->find(key_of(v1->kernels[0])) == nullptr);
  // Saved again as version 2, such a row still has no identity (not zeros that name a layout).
  Result<GpuResults> resaved = parse_gpu_results(gpu_results_to_json(v1.value()), "resaved.json");
  REQUIRE(resaved.ok());
  CHECK_FALSE(resaved->kernels.at(0).has_layout_key);

  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"{", "bad.json: [json.exception.parse_error"},
      {"{}", "bad.json: not a bankscope results file"},
      {R"({"bankscope_results": 3})", "unsupported format version (this build reads 1 and 2)"},
      // Version 2 rows name their whole layout: a row without it would match any layout.
      {R"({"bankscope_results": 2, "kernels": [{"kernel": "k", "n": 1, "xor": 0, "block": [32, 8, 1]}]})",
       "bad.json: kernels[0].swizzle: missing"},
      {R"({"bankscope_results": 2, "kernels": [{"kernel": "k", "xor": 0, "swizzle": [5, 0], "block": [32, 8, 1]}]})",
       "bad.json: kernels[0].swizzle: expected [B, M, S]"},
      {R"({"bankscope_results": 1, "kernels": [{"kernel": "k", "n": "2048"}]})",
       "bad.json: kernels[0].n: expected an integer"},
      {R"({"bankscope_results": 1, "kernels": [{"kernel": "k", "measured": {"ld": {"wavefronts": -1}}}]})",
       "kernels[0].measured.ld.wavefronts: expected a non-negative integer"},
      {R"({"bankscope_results": 1, "kernels": [{"n": 1}]})", "kernels[0].kernel: missing"},
  };
  for (const Bad& x : bad) {
    CAPTURE(x.text);
    Result<GpuResults> e = parse_gpu_results(x.text, "bad.json");
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().message.find(x.message) != std::string::npos);
  }
}

TEST_CASE("ncu CSV: rows grouped by launch, thousands separators, other lines skipped") {
  const std::string text =
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"1\",\"void bankscope::k_transpose_seed<32>(float *, const float *, int)\",\"a.sum\",\"\",\"4,194,304\"\n"
      "\"0\",\"1\",\"void bankscope::k_transpose_seed<32>(float *, const float *, int)\",\"b.sum\",\"\",\"131072\"\n"
      "\"1\",\"1\",\"void bankscope::k_transpose_seed<33>(float *, const float *, int)\",\"a.sum\",\"\",\"131,072\"\n";
  Result<std::vector<NcuKernel>> k = parse_ncu_csv(text);
  REQUIRE(k.ok());
  REQUIRE(k->size() == 2);
  CHECK(k.value()[0].metrics.at("a.sum") == 4194304.0);
  CHECK(k.value()[0].metrics.at("b.sum") == 131072.0);
  CHECK(k.value()[1].metrics.at("a.sum") == 131072.0);
  CHECK(k.value()[1].name.find("k_transpose_seed<33>") != std::string::npos);
  CHECK_FALSE(parse_ncu_csv("==PROF== nothing\n").ok());
  CHECK_FALSE(parse_ncu_csv("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"k\",\"m\",\"n/a\"\n").ok());
}

TEST_CASE("ncu source view: per-instruction wavefronts at their offset in the function") {
  // The form ncu 2025.3.1 prints on the H200 (assets/results/h200/2026-12-01a, the corpus
  // transpose), cut to a few columns and rows: offsets count from the function's first address.
  const std::string text =
      "==PROF== Connected to process 1\n"
      "\"Kernel Name\",\"void transpose_tiled<(int)32>(float *, const float *, int)\",\n"
      "\"Address\",\"Source\",\"Instructions Executed\",\"L1 Wavefronts Shared Excessive\","
      "\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\"\n"
      "\"0x7f904d7a0000\",\"      LDC R1, c[0x0][0x28]\",\"512\",\"0\",\"0\",\"0\"\n"
      "\"0x7f904d7a0a20\",\"      STS [R7+-0x800], R24\",\"512\",\"0\",\"512\",\"512\"\n"
      "\"0x7f904d7a1390\",\"      LDS R9, [R0+-0x40]\",\"512\",\"15,872\",\"16,384\",\"512\"\n"
      "\"0x7f904d7a13a0\",\"      BAR.SYNC.DEFER_BLOCKING 0x0\",\"-\",\"\",\"\",\"\"\n"
      "\"Kernel Name\",\"void transpose_tiled<(int)33>(float *, const float *, int)\",\n"
      "\"Address\",\"Source\",\"Instructions Executed\",\"L1 Wavefronts Shared Excessive\","
      "\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\"\n"
      "\"0x7f904d7b0000\",\"      LDC R1, c[0x0][0x28]\",\"512\",\"0\",\"0\",\"0\"\n"
      "\"0x7f904d7b1390\",\"      LDS R9, [R0+-0x40]\",\"512\",\"0\",\"512\",\"512\"\n";
  auto k = parse_ncu_source_csv(text);
  REQUIRE(k.ok());
  REQUIRE(k->size() == 2);
  CHECK(k->at(0).name == "void transpose_tiled<(int)32>(float *, const float *, int)");
  REQUIRE(k->at(0).insts.size() == 4);
  // offset, SASS, executed, wavefronts, ideal
  CHECK(k->at(0).insts[1].offset == 0xa20);
  CHECK(k->at(0).insts[1].sass == "STS [R7+-0x800], R24");
  CHECK(k->at(0).insts[2].offset == 0x1390);
  CHECK(k->at(0).insts[2].executed == 512);
  CHECK(k->at(0).insts[2].wavefronts == 16384);
  CHECK(k->at(0).insts[2].ideal == 512);
  CHECK(k->at(0).insts[3].wavefronts == 0);  // "" where the metric does not apply
  REQUIRE(k->at(1).insts.size() == 2);
  CHECK(k->at(1).insts[1].offset == 0x1390);
  CHECK(k->at(1).insts[1].wavefronts == 512);
  // A kernel without shared-memory instructions gets a header without the shared columns (CUB's
  // device histogram, H200 2026-12-01c): its rows read 0 wavefronts. No Source column: an error.
  auto none = parse_ncu_source_csv(
      "\"Kernel Name\",\"k\",\n\"Address\",\"Source\",\"Instructions Executed\"\n"
      "\"0x7f0000000000\",\"      LDC R1, c[0x0][0x28]\",\"64\"\n");
  REQUIRE(none.ok());
  REQUIRE(none->at(0).insts.size() == 1);
  CHECK(none->at(0).insts[0].executed == 64);
  CHECK(none->at(0).insts[0].wavefronts == 0);
  auto bad = parse_ncu_source_csv("\"Kernel Name\",\"k\",\n\"Address\",\"Instructions Executed\"\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("Source") != std::string::npos);
}

namespace {
// A source-view table of one kernel: one LDS at 0x100 with `executed` executions and `wf` wavefronts.
NcuSourceKernel table(const std::string& name, double executed, double wf) {
  NcuSourceKernel k;
  k.name = name;
  k.insts.push_back(NcuSourceInst{0x0, "LDC R1, c[0x0][0x28]", 1, 0, 0});
  k.insts.push_back(NcuSourceInst{0x100, "LDS R6, [R4]", executed, wf, executed});
  return k;
}
SourceLaunchKey launch_key(const std::string& name, uint64_t executed) {
  SourceLaunchKey k;
  k.kernel = name;
  k.executions[0x100] = executed;
  return k;
}
}  // namespace

TEST_CASE("ncu source tables are matched to launches, repeats and equal launches included") {
  // The atomics probe on the H200 (2026-12-01x): every launch's table printed twice, and launches
  // 6 and 7 (cast32 quads, mod8) with equal tables. Taking "a table equal to the one before it" as
  // a repeat dropped launch 7 and shifted every later launch by one (87 false mismatches).
  const std::string k = "cast32_kernel(const int *, unsigned int, float *)";
  const std::string traced = "cast32_kernel(int const*, unsigned int, float*)";
  const NcuSourceKernel a = table(k, 4, 4), b = table(k, 4, 4), c = table(k, 2, 2);
  std::vector<NcuSourceKernel> tables = {a, a, b, b, c, c};
  std::vector<SourceLaunchKey> launches = {launch_key(traced, 4), launch_key(traced, 4), launch_key(traced, 2)};
  CHECK(align_source_tables(tables, launches) == std::vector<size_t>{0, 2, 4});
  // Some launches printed once, some twice.
  tables = {a, a, c, table(k, 7, 9), table(k, 7, 9)};
  launches = {launch_key(traced, 4), launch_key(traced, 2), launch_key(traced, 7)};
  CHECK(align_source_tables(tables, launches) == std::vector<size_t>{0, 2, 3});
  // Every launch once: one to one.
  tables = {a, c};
  launches = {launch_key(traced, 4), launch_key(traced, 2)};
  CHECK(align_source_tables(tables, launches) == std::vector<size_t>{0, 1});
  // Where the tables alone allow two assignments, the counts decide: {a, a, c, c} for launches of 4,
  // 4 and 2 executions is a, a, c (c printed twice), not a (twice), c, c.
  tables = {a, a, c, c};
  launches = {launch_key(traced, 4), launch_key(traced, 4), launch_key(traced, 2)};
  CHECK(align_source_tables(tables, launches) == std::vector<size_t>{0, 1, 2});
  // And the kernel's name, where the counts are all equal: {x, x, y, y} for launches of x, x and y is
  // x, x, y (y printed twice), not x (twice), y, y.
  const NcuSourceKernel x = table("void kx<(int)1>(float *)", 4, 4), y = table("ky(float *)", 4, 4);
  tables = {x, x, y, y};
  launches = {launch_key("void kx<1>(float*)", 4), launch_key("void kx<1>(float*)", 4), launch_key("ky(float*)", 4)};
  CHECK(align_source_tables(tables, launches) == std::vector<size_t>{0, 1, 2});
  // No assignment uses every table: fewer tables than launches, or an extra table that repeats nothing.
  launches = {launch_key(traced, 4), launch_key(traced, 2)};
  CHECK(align_source_tables({a}, launches).empty());
  CHECK(align_source_tables({a, c, a}, launches).empty());
}

TEST_CASE("committed H200 results load, and the SASS-exact counts equal the model") {
  const std::string path = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/results/h200/validate.json";
  Result<GpuResults> r = load_gpu_results(path);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->device.name == "NVIDIA H200");
  REQUIRE(r->kernels.size() >= 40);
  for (const KernelResult& k : r->kernels) {
    CAPTURE(k.kernel);
    CAPTURE(k.n);
    CHECK(k.correct);
    REQUIRE(k.measured_ld.wavefronts_sass.has_value());
    CHECK(*k.measured_ld.wavefronts_sass == k.predicted_ld.wavefronts.value_or(0));
    CHECK(*k.measured_st.wavefronts_sass == k.predicted_st.wavefronts.value_or(0));
    if (k.n == 32) CHECK(k.measured_ld.wavefronts == k.predicted_ld.wavefronts);  // one block: exact
  }
  const KernelResult* padded = r->find("tiled_32x8_32x33.json", 2048);
  REQUIRE(padded != nullptr);
  CHECK(padded->predicted_ld.wavefronts.value_or(0) == 131072u);
}

TEST_CASE("verdict: every predicted counter against its exact measured counterpart") {
  // The H200's N = 33 row of tiled_32x8_32x33 (assets/results/h200/validate.json, 2026-11-30): the
  // STS is predicated, so the hardware instruction counter counts all 4 x 8 x 4 = 128 warp-level
  // executions, while the SASS-patched one counts the 66 with an active thread.
  // CounterSet: {instructions (hw), l1tex wf, l1tex cf, sass wf, sass inst, sass cf}.
  KernelResult k;
  k.kernel = "tiled_32x8_32x33";
  k.n = 33;
  k.correct = true;
  k.measured_ld = CounterSet{66, 66, 0, 66, 66, std::nullopt};
  k.measured_st = CounterSet{128, 66, 0, 66, 66, std::nullopt};
  // A model that branches around the store (the old scenarios): 66 and 66.
  k.predicted_ld = CounterSet{66, 66, 0, std::nullopt, 66, std::nullopt};
  k.predicted_st = CounterSet{66, 66, 0, std::nullopt, 66, std::nullopt};
  // Before this change the verdict compared wavefronts only and said "match".
  CHECK(verdict_of(k) == "MISMATCH: st instructions 128 measured vs 66 predicted");
  {
    // The table shows the compared pairs (predicted/measured, ! on a difference) under the metric
    // names, and the l1tex__ counters apart, as context.
    GpuResults r;
    r.kernels.push_back(k);
    r.kernels[0].verdict = verdict_of(k);
    const std::string t = format_table(r);
    CAPTURE(t);
    CHECK(t.find("inst   = smsp__inst_executed_op_shared_ld.sum") != std::string::npos);
    CHECK(t.find("active = smsp__sass_inst_executed_op_shared_ld.sum") != std::string::npos);
    CHECK(t.find(" 66/128! ") != std::string::npos);  // st instructions
    CHECK(t.find(" 66/66 ") != std::string::npos);
    CHECK(t.find("Context, not compared") != std::string::npos);
  }
  std::vector<ComparedCounter> cmp = compared_counters(k);
  // Per op: instructions (hw), active instructions (sass), wavefronts (sass); conflicts only for
  // one block (N = 33 is 4 blocks).
  REQUIRE(cmp.size() == 6);
  CHECK(cmp[0].what == "ld instructions");
  CHECK(cmp[0].metric == "smsp__inst_executed_op_shared_ld.sum");
  CHECK(cmp[1].what == "ld active instructions");
  CHECK(cmp[1].metric == "smsp__sass_inst_executed_op_shared_ld.sum");
  CHECK(cmp[5].what == "st wavefronts");
  CHECK(cmp[5].metric == "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum");

  k.predicted_st.instructions = 128;  // what the model with "issue": "predicated" gives
  CHECK(verdict_of(k) == "match (6 of 8 counters)");
  // A model that counted predicated-off executions as active would be caught too.
  k.predicted_st.instructions_sass = 128;
  CHECK(verdict_of(k) == "MISMATCH: st active instructions 66 measured vs 128 predicted");
  k.predicted_st.instructions_sass = 66;

  // Many blocks: the l1tex__ counters (4,208,563 vs 4,194,304 at N = 2048) are context only.
  KernelResult big;
  big.n = 2048;
  big.correct = true;
  big.predicted_ld = CounterSet{131072, 4194304, 4063232, std::nullopt, std::nullopt, std::nullopt};
  big.measured_ld = CounterSet{std::nullopt, 4208563, 4077491, std::nullopt, std::nullopt, std::nullopt};
  CHECK(compared_counters(big).empty());
  CHECK(verdict_of(big) == "timing only");
  // One block (N = 32): the l1tex__ counters are exact, and compared.
  big.n = 32;
  big.predicted_ld = CounterSet{32, 1024, 992, std::nullopt, std::nullopt, std::nullopt};
  big.measured_ld = CounterSet{std::nullopt, 1024, 992, std::nullopt, std::nullopt, std::nullopt};
  CHECK(verdict_of(big) == "match (2 of 8 counters, 2 from hardware counters)");
  big.measured_ld.bank_conflicts = 991;
  CHECK(verdict_of(big) == "MISMATCH: ld bank_conflicts 991 measured vs 992 predicted");
  big.correct = false;
  CHECK(verdict_of(big) == "WRONG OUTPUT");
}

TEST_CASE("plan_jobs: --stride runs dynamic_stride.json at each stride, rows keep the scenario name") {
  const std::string dir = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/";
  std::vector<std::string> notes;
  Result<std::vector<TransposeJob>> jobs = plan_jobs(
      {dir + "dynamic_stride.json", dir + "tiled_32x8_32x33.json"}, {2048}, &notes, {34, 36, 40, 48});
  REQUIRE_MESSAGE(jobs.ok(), (jobs.ok() ? "" : jobs.error().message));
  // 4 strides of dynamic_stride, then the other scenario once (strides apply to dynamic_stride only).
  REQUIRE(jobs->size() == 5);
  const int64_t strides[] = {34, 36, 40, 48};
  // Column read of a 32x32 float tile: gcd(stride, 32)-way, so 2, 4, 8, 16 wavefronts per
  // instruction x 131,072 column-read instructions at N = 2048 (64 x 64 blocks x 8 warps x 4).
  const uint64_t ld_wavefronts[] = {2 * 131072, 4 * 131072, 8 * 131072, 16 * 131072};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    const TransposeJob& j = jobs.value()[size_t(i)];
    CHECK(j.scenario == "dynamic_stride.json");
    CHECK(j.name == "dynamic_stride_s" + std::to_string(strides[i]));
    CHECK(j.plan.layout.row_stride == strides[i]);
    CHECK(j.plan.symbol == "k_transpose_dyn<float, 8>");
    CHECK(j.predicted.ld.instructions == 131072u);
    CHECK(j.predicted.ld.wavefronts == ld_wavefronts[i]);
  }
  CHECK(jobs.value()[4].name == "tiled_32x8_32x33");
  CHECK(jobs.value()[4].plan.layout.row_stride == 33);
}
