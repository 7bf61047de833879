// test_bench_timing.cpp: the timing model on the kernels of `bankscope-gpu bench`, through their
// descriptions in kernels/bench_kernels.hpp and the compiled kernels' registers from the cuobjdump
// resource-usage file committed beside the predictions
// (assets/results/h200/bench_resource_usage.txt):
//   - the committed H200 bench (bench.json) against the issue-6 targets (within 15% at N >= 4096,
//     padded/unpadded speedups within 10%);
//   - the fit (timing-fit) reproduces the constants compiled into sim/timing_model.hpp;
//   - element sizes reach DRAM bytes and wavefronts; the resource-usage parser;
//   - sim/ names no kernel (the layering rule: what a kernel is lives in kernels/).
// Set BANKSCOPE_TIMING_TABLE=path to write the predicted-vs-measured table (markdown) there.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "bench_kernels.hpp"
#include "bench_timing.hpp"
#include "resource_usage.hpp"
#include "sim/json_io.hpp"

using namespace bankscope;

namespace {

const std::string kSource = BANKSCOPE_SOURCE_DIR;
const std::string kScenarios = kSource + "/assets/scenarios";
const std::string kCommittedUsage = kSource + "/assets/results/h200/bench_resource_usage.txt";

ResourceUsage committed_usage() {
  auto u = load_resource_usage(kCommittedUsage);
  REQUIRE_MESSAGE(u.ok(), (u.ok() ? "" : u.error().message));
  return *u;
}

BenchRun h200_run() {
  auto r = load_bench_run(kSource + "/assets/results/h200/bench.json");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

std::vector<BenchPrediction> predict_h200() {
  const BenchRun run = h200_run();
  auto copy = copy_ceiling_of(run);
  REQUIRE(copy.ok());
  const ResourceUsage usage = committed_usage();
  ScenarioWavefronts wf(kScenarios);
  std::vector<std::string> skipped;
  auto all = predict_bench_rows(run.rows, model_device(run.sms, run.sm_clock_mhz, *copy, {}), wf,
                                &usage, &skipped);
  REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
  CHECK(skipped.empty());
  return *all;
}

const BenchKernel& kernel(const std::string& name) {
  const BenchKernel* k = find_bench_kernel(name);
  REQUIRE_MESSAGE(k != nullptr, name);
  return *k;
}

}  // namespace

TEST_CASE("resource usage: cuobjdump's text -> registers and static shared bytes per kernel") {
  const std::string text =
      "Resource usage:\n"
      " Common:\n  GLOBAL:0\n"
      " Function _ZN9bankscope16k_transpose_seedILi33EEEvPfPKfi:\n"
      "  REG:16 STACK:0 SHARED:5248 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
      " Function _ZN9bankscope5bench11fast_reg4x4EPfPKfi:\n"
      "  REG:34 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:908 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  auto u = parse_resource_usage(text, "sample");
  REQUIRE(u.ok());
  REQUIRE(u->by_symbol.size() == 2);
  // tile[32][33] floats = 4224 bytes; the dump adds the 1 KiB reserved per block.
  const CompiledFacts seed = u->by_symbol.at("bankscope::k_transpose_seed<33>");
  CHECK(seed.regs_per_thread == 16);
  CHECK(seed.static_smem_bytes == 4224);
  const CompiledFacts reg = u->by_symbol.at("bankscope::bench::fast_reg4x4");
  CHECK(reg.regs_per_thread == 34);
  CHECK(reg.static_smem_bytes == 0);
  CHECK(symbol_without_signature(
            "void bankscope::bench::fast_f4<64, 64, 256, false, 1>(float*, float const*, int)") ==
        "bankscope::bench::fast_f4<64, 64, 256, false, 1>");
  CHECK_FALSE(parse_resource_usage("not a dump\n", "x").ok());
}

TEST_CASE(
    "the bench times exactly the kernels bench_kernels() describes, in its order (no GPU needed)") {
  // make_candidates (bench.cu) takes each row's name, family, scenario and threads from the table
  // and throws if a candidate has no row or another thread count.
  std::vector<std::string> table;
  for (const BenchKernel& k : bench_kernels()) table.push_back(k.name);
  CHECK(bench_kernel_names() == table);
  CHECK(table.size() == 42);  // 22 + issue 15's six fast_f4v, nine fast_shift and five fast_sec rows
}

TEST_CASE("every bench kernel with a symbol is in the committed resource-usage file") {
  const ResourceUsage usage = committed_usage();
  int found = 0;
  for (const BenchKernel& k : bench_kernels()) {
    if (k.symbol.empty()) continue;
    CAPTURE(k.name);
    CHECK(find_compiled(usage, k).has_value());
    ++found;
  }
  CHECK(found == 40);  // 42 rows less cudaMemcpy and cuBLAS
  // Spot values (CUDA 13.0, sm_90), as ptxas -v reported them for the old hand-written table.
  CHECK(find_compiled(usage, kernel("seed_32x32"))->regs_per_thread == 16);
  CHECK(find_compiled(usage, kernel("tiled_32x8_32x33"))->regs_per_thread == 28);
  CHECK(find_compiled(usage, kernel("tiled_32x8_32x33"))->static_smem_bytes == 4224);
  CHECK(find_compiled(usage, kernel("fast_f4p_64x64_t256"))->regs_per_thread == 74);
  CHECK(find_compiled(usage, kernel("tiled_32x8_double_32x33"))->static_smem_bytes == 32 * 33 * 8);
  CHECK(find_compiled(usage, kernel("tiled_float4_32x33"))->static_smem_bytes == 32 * 33 * 16);
}

TEST_CASE(
    "the build's generated resource usage agrees with the committed one (where cuobjdump ran)") {
  const std::string generated = default_resource_usage_path();
  std::error_code ec;
  if (generated.empty() || !std::filesystem::exists(generated, ec)) {
    MESSAGE("no generated resource-usage file in this build: nothing to compare");
    return;
  }
  auto now = load_resource_usage(generated);
  REQUIRE(now.ok());
  const ResourceUsage then = committed_usage();
  for (const BenchKernel& k : bench_kernels()) {
    if (k.symbol.empty()) continue;
    CAPTURE(k.name);
    const auto a = find_compiled(*now, k);
    const auto b = find_compiled(then, k);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(a->regs_per_thread == b->regs_per_thread);
    CHECK(a->static_smem_bytes == b->static_smem_bytes);
  }
}

TEST_CASE("descriptions: DRAM bytes, wavefronts and row runs follow the element size") {
  const CompiledFacts none;
  struct Case {
    const char* kernel;
    int64_t n;
    uint64_t dram_bytes, global_wf;
    int read_run, write_run;
  };
  const Case cases[] = {
      // float, rows 128-byte aligned: 2 x 8192^2 x 4 B, one wavefront per 128 B.
      {"tiled_32x8_32x33", 8192, 536870912, 4194304, 128, 128},
      // double: 2 x 8192^2 x 8 B; a warp moves 256 B = 2 lines; runs of 32 doubles.
      {"tiled_32x8_double_32x33", 8192, 1073741824, 8388608, 256, 256},
      // float4: 2 x 8192^2 x 16 B; 512 B = 4 lines a warp; runs of 32 float4.
      {"tiled_float4_32x33", 8192, 2147483648, 16777216, 512, 512},
      // Misaligned rows: float 2 lines instead of 1, double 3 instead of 2, float4 5 instead of 4.
      {"tiled_32x8_32x33", 100, 80000, 1250, 128, 128},          // 80000/128 = 625 x 2
      {"tiled_32x8_double_32x33", 100, 160000, 1875, 256, 256},  // 1250 x 3/2
      {"tiled_float4_32x33", 100, 320000, 3125, 512, 512},       // 2500 x 5/4
  };
  for (const Case& c : cases) {
    CAPTURE(c.kernel);
    CAPTURE(c.n);
    const auto d = describe_bench_kernel(kernel(c.kernel), c.n, 0, none);
    REQUIRE(d.has_value());
    CHECK(d->work.dram_bytes == c.dram_bytes);
    CHECK(d->work.global_wavefronts == c.global_wf);
    CHECK(d->work.read_segment_bytes == c.read_run);
    CHECK(d->work.write_segment_bytes == c.write_run);
    CHECK(d->shape.threads_per_block == 256);
  }
  // Not described: cudaMemcpy and cuBLAS.
  CHECK_FALSE(describe_bench_kernel(kernel("memcpy_d2d"), 4096, 0, none).has_value());
  CHECK_FALSE(describe_bench_kernel(kernel("cublas_sgeam"), 4096, 0, none).has_value());
  // naive: one partial-line store request per element; fast kernels at n % 4 != 0: one per 8.
  CHECK(describe_bench_kernel(kernel("naive"), 1000, 0, none)->work.partial_store_requests ==
        1000000);
  CHECK(describe_bench_kernel(kernel("fast_f4_64x64_t256"), 1002, 0, none)
            ->work.partial_store_requests == 1002 * 1002 / 8);
  // fast_shift (issue 15) keeps 16-byte accesses at n % 4 != 0: no partial-line stores; the
  // misaligned loads are two aligned chunks per chunk (reads = half the bytes: wavefronts x 3/2).
  // n = 1002: 2 x 1002^2 x 4 = 8032032 bytes = 62750 whole lines (8032000 / 128), x 3/2 = 94125.
  const auto s1002 = describe_bench_kernel(kernel("fast_shift_64x64_t256"), 1002, 0, none);
  REQUIRE(s1002.has_value());
  CHECK(s1002->work.partial_store_requests == 0);
  CHECK(s1002->work.global_wavefronts == 94125);
  // n = 1024: aligned rows, one load per chunk: 2 x 1024^2 x 4 / 128 = 65536.
  CHECK(describe_bench_kernel(kernel("fast_shift_64x64_t256"), 1024, 0, none)
            ->work.global_wavefronts == 65536);
  // 128x128 tiles, 512 threads, 64 KiB of dynamic shared memory (fast_f4v_128x128_t512): N = 300
  // is 3 x 3 tiles.
  const auto big =
      describe_bench_kernel(kernel("fast_f4v_128x128_t512"), 300, 100, CompiledFacts{55, 0, 65536});
  REQUIRE(big.has_value());
  CHECK(big->shape.threads_per_block == 512);
  CHECK(big->shape.blocks == 9);
  CHECK(big->shape.smem_bytes_per_block == 65536);
  CHECK(big->work.shared_wavefronts == 900);
  // Registers and shared bytes are the compiled kernel's, passed in.
  const auto f =
      describe_bench_kernel(kernel("fast_f4_64x64_t256"), 4096, 256, CompiledFacts{36, 16384, 0});
  CHECK(f->shape.regs_per_thread == 36);
  CHECK(f->shape.smem_bytes_per_block == 16384);
  CHECK(f->work.shared_wavefronts == 256u * 64 * 64);  // 4096/64 squared tiles
}

TEST_CASE("bank model wavefronts per tile match the SASS counters (ncu_bench.csv, N=4096)") {
  ScenarioWavefronts wf(kScenarios);
  const auto per = [&](const std::string& s) {
    auto w = wf.per_block(s);
    REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
    return *w;
  };
  // ncu: (ld + st) wavefronts / blocks of the launch.
  CHECK(per("seed_transpose_32x32.json") == 1056);
  CHECK(per("seed_transpose_32x33.json") == 64);
  CHECK(per("tiled_32x8_32x32.json") == 1056);
  CHECK(per("tiled_32x8_32x33.json") == 64);
  CHECK(per("fast_f4_64x64_t256.json") == 256);
  CHECK(per("fast_f4_128x64_t256.json") == 512);
  CHECK(per("fast_f4_32x64_t128.json") == 128);
  // The two kernels new to the bench: 4 st + 4 ld instructions a thread block-row, conflict-free:
  // 8-byte words 2 wavefronts each, 16-byte words 4 (32 x 8 threads: 8 warps x 8 instructions).
  CHECK(per("tiled_32x8_double_32x33.json") == 8 * 8 * 2);
  CHECK(per("tiled_float4_32x33.json") == 8 * 8 * 4);
}

TEST_CASE(
    "H200 bench: every described kernel within 15% at N >= 4096 (constants fitted at N=8192)") {
  const std::vector<BenchPrediction> all = predict_h200();
  int checked = 0;
  for (const BenchPrediction& p : all) {
    if (p.n != 4096 && p.n != 8192 && p.n != 16384) continue;
    CAPTURE(p.kernel);
    CAPTURE(p.n);
    CAPTURE(p.predicted.ms);
    CAPTURE(p.measured_ms);
    CHECK(std::fabs(p.error) <= 0.15);
    ++checked;
  }
  CHECK(checked == 45);  // the 15 described kernels of bench.json x 3 sizes
  for (const BenchPrediction& p : all) {
    if (p.n != 16384) continue;
    if (p.kernel == "seed_32x32") {
      CHECK(p.predicted.bound == "shared");
      CHECK(p.predicted.blocks_per_sm == 2);
    }
    if (p.kernel == "fast_f4_64x64_t256") {
      CHECK(p.predicted.bound == "dram");
      CHECK(p.predicted.blocks_per_sm == 6);  // 36 registers (the resource-usage file)
    }
    if (p.kernel == "naive") CHECK(p.predicted.bound == "shared");  // the LSU: partial-line stores
  }
}

TEST_CASE("H200 bench: padded / unpadded speedups within 10%") {
  const std::vector<BenchPrediction> all = predict_h200();
  std::map<std::pair<std::string, int64_t>, const BenchPrediction*> by;
  for (const BenchPrediction& p : all) by[{p.kernel, p.n}] = &p;
  const std::pair<const char*, const char*> pairs[] = {{"seed_32x32", "seed_32x33"},
                                                       {"tiled_32x8_32x32", "tiled_32x8_32x33"}};
  for (const int64_t n : {4096, 8192, 16384}) {
    for (const auto& [slow, fast] : pairs) {
      const BenchPrediction* a = by.at({slow, n});
      const BenchPrediction* b = by.at({fast, n});
      const double measured = a->measured_ms / b->measured_ms;
      const double predicted = a->predicted.ms / b->predicted.ms;
      const std::string pair = std::string(slow) + " / " + fast;
      CAPTURE(pair);
      CAPTURE(n);
      CAPTURE(measured);
      CAPTURE(predicted);
      CHECK(std::fabs(predicted / measured - 1.0) <= 0.10);
    }
  }

  // The table for assets/results/h200/timing_model.md, on request.
  if (const char* path = std::getenv("BANKSCOPE_TIMING_TABLE")) {
    std::ostringstream t;
    t << "| kernel | N | blocks/SM (limit) | bound | predicted ms | measured ms | error |\n"
      << "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n";
    char buf[256];
    for (const int64_t n : {4096, 8192, 16384, 8191, 4100}) {
      for (const BenchPrediction& p : all) {
        if (p.n != n) continue;
        std::snprintf(buf, sizeof buf, "| %s | %lld | %d (%s) | %s | %.4f | %.4f | %+.1f%% |\n",
                      p.kernel.c_str(), (long long)n, p.predicted.blocks_per_sm,
                      p.predicted.occupancy_limiter.c_str(), p.predicted.bound.c_str(),
                      p.predicted.ms, p.measured_ms, 100.0 * p.error);
        t << buf;
      }
    }
    std::ofstream(path) << t.str();
  }
}

TEST_CASE("timing-fit on bench.json at N = 8192 reproduces sim/timing_model.hpp's constants") {
  const BenchRun run = h200_run();
  const ResourceUsage usage = committed_usage();
  ScenarioWavefronts wf(kScenarios);
  auto fit = fit_constants(run, 8192, wf, &usage);
  REQUIRE_MESSAGE(fit.ok(), (fit.ok() ? "" : fit.error().message));
  CHECK(fit->points == 81u * 41u * 81u);
  CHECK(fit->fitted.size() == 15);
  CHECK(fit->constants.latency_ns == doctest::Approx(kLatencyNs));
  CHECK(fit->constants.segment_overhead_bytes == doctest::Approx(kSegmentOverheadBytes));
  CHECK(fit->constants.partial_store_cycles == doctest::Approx(kPartialStoreCycles));
  CHECK(fit->rms_fit == doctest::Approx(0.034).epsilon(0.05));
  for (const BenchPrediction& p : fit->fitted) CHECK(p.n == 8192);
  for (const BenchPrediction& p : fit->other) CHECK(p.n != 8192);
  // Fitting on another size's rows gives other constants: the search sees only the size asked for.
  auto at4096 = fit_constants(run, 4096, wf, &usage);
  REQUIRE(at4096.ok());
  CHECK(at4096->constants.latency_ns != doctest::Approx(kLatencyNs));
}

// ---------------------------------------------------------------------------------------------
// Layering: sim/ knows no kernel by name (issue 16, point 11).

namespace {

// The text of a source file without its // comments (file-format examples in comments are not
// code).
std::string code_of(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::string line, out;
  while (std::getline(f, line)) {
    const size_t c = line.find("//");
    out += (c == std::string::npos ? line : line.substr(0, c)) + "\n";
  }
  return out;
}

bool has_word(const std::string& text, const std::string& word) {
  const auto ident = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !ident(text[at - 1]);
    const bool right = at + word.size() >= text.size() || !ident(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// The unqualified function name of a symbol: "bankscope::bench::fast_f4<64, ...>" -> "fast_f4".
std::string base_name(const std::string& symbol) {
  std::string s = symbol.substr(0, symbol.find('<'));
  const size_t colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

}  // namespace

TEST_CASE("sim/ contains no bench kernel name and no kernel symbol outside comments") {
  std::vector<std::string> words;
  for (const BenchKernel& k : bench_kernels()) {
    words.push_back(k.name);
    if (!k.symbol.empty()) words.push_back(base_name(k.symbol));
  }
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/sim")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp") continue;
    ++files;
    const std::string code = code_of(e.path());
    for (const std::string& w : words) {
      CAPTURE(e.path().filename().string());
      CAPTURE(w);
      CHECK_FALSE(has_word(code, w));
    }
  }
  CHECK(files >= 10);
  CHECK(has_word("x = k_transpose_seed<32>(", "k_transpose_seed"));  // the matcher itself works
  CHECK_FALSE(has_word("naive_total", "naive"));
}
