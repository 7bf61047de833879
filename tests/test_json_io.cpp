// test_json_io.cpp: scenario files and JSONL patterns: loading, errors that name the field, saving.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "sim/json_io.hpp"

using namespace bankscope;
namespace fs = std::filesystem;

namespace {

const std::string kAssets = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/";

std::string minimal(const std::string& extra_access_fields = "", const std::string& extra_top = "") {
  return R"({"name": "m", "block": [32, 1], "arrays": [{"name": "tile", "type": "float", "dims": [32, 32]}],)" +
         extra_top + R"( "accesses": [{"op": "ld", "target": "tile[threadIdx.x][0]")" + extra_access_fields + "}]}";
}

}  // namespace

TEST_CASE("every shipped scenario loads and compiles") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kAssets)) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    auto spec = load_scenario_file(entry.path().string());
    REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().message));
    CHECK(compile(*spec).ok());
    ++count;
  }
  CHECK(count >= 10);
}

TEST_CASE("scenario errors name the file, the field and the reason") {
  struct Row { std::string text; std::string error; };
  const Row rows[] = {
      {minimal("", R"( "blok": [1],)"), "t.json: unknown field 'blok' (expected one of: name, description, gpu_kernel, n, block, grid, tile, params, extern, arrays, defines, accesses, banks, comment)"},
      {minimal(R"(, )"), "t.json: line 1, column 158: invalid JSON: syntax error while parsing object key"},
      {minimal("", R"( "n": 0,)"), "t.json: n: 0 is out of range 1..2147483648"},
      {minimal("", R"( "grid": [1, 70000],)"), "t.json: grid: sizes must be in 1..2^31-1 (x) and 1..65535 (y, z)"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32], "row_stride": 0}], "accesses": []})", "t.json: arrays[0].row_stride: 0 is out of range 1..1048576"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32], "type": "quad"}], "accesses": []})", "t.json: arrays[0].type: unknown element type 'quad' (expected char, short, half, bfloat16, float, int, unsigned, half2, double, long long, float2, float4 or int4)"},
      {R"({"block": [32], "arrays": [{"dims": [256, 256]}], "accesses": [{"op": "ld", "target": "tile[0][0]"}]})", "t.json: arrays[0]: array 'tile' needs 262144 bytes of shared memory; a block can have at most 232448 (227 KiB on sm_90)"},
      {minimal(R"(, "if": "threadIdx.x <")"), "t.json: accesses[0].if: column 14: expression ends early in 'threadIdx.x <'"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.q][0]"}]})", "t.json: accesses[0].target: column 1: unknown variable 'threadIdx.q' in 'threadIdx.q'"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[0]"}]})", "t.json: accesses[0].target: 'tile' has 2 dimension(s) but 1 indices are given"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "xx", "target": "tile[0][0]"}]})", "t.json: accesses[0].op: 'xx' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\" or \"atom\""},
      {R"({"block": [32, 64], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[0][0]"}]})", "t.json: block: 2048 threads; a CUDA block has at most 1024 (and z <= 64)"},
      {minimal(R"(, "issue": "sometimes")"), "t.json: accesses[0].issue: 'sometimes' must be \"branch\", \"predicated\" or \"hoisted\""},
      {minimal(R"(, "issue": 1)"), "t.json: accesses[0].issue: "},
      {minimal(R"(, "line": 0)"), "t.json: accesses[0].line: 0 is out of range 1..16777216"},
      {minimal(R"(, "line": "42")"), "t.json: accesses[0].line: "},
      // C scoping: statement 1 cannot see statement 0's loop variable (issue 16, point 1).
      {R"({"block": [32], "grid": [40], "arrays": [{"dims": [32, 32]}], "accesses": [)"
       R"({"op": "st", "target": "tile[0][threadIdx.x]", "loops": [{"var": "j", "end": 25}]},)"
       R"({"op": "ld", "target": "tile[threadIdx.x][0]", "if": "blockIdx.x < j"}]})",
       "t.json: accesses[1].if: 'j' is a loop variable of accesses[0]; a loop variable exists only inside its loop"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32], "tma_swizzle": "96B"}], "accesses": []})",
       "t.json: arrays[0].tma_swizzle: '96B' is not a TMA swizzle mode (32B, 64B, 128B or none: CU_TENSOR_MAP_SWIZZLE_<mode>)"},
      {R"({"block": [32], "arrays": [{"dims": [32, 32], "tma_swizzle": 128}], "accesses": []})",
       "t.json: arrays[0].tma_swizzle: "},
      {R"({"block": [32], "arrays": [{"dims": [32, 64], "tma_swizzle": "128B"}], "accesses": [{"op": "ld", "target": "tile[0][0]"}]})",
       "t.json: arrays[0]: tma_swizzle: rows of 256 bytes are wider than the 128-byte span of CU_TENSOR_MAP_SWIZZLE_128B"},
      {"[1, 2]", "t.json: the top level must be an object"},
      {"{\"name\": \"\xff\"}", "t.json: line 1, column 11: not valid UTF-8"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto s = parse_scenario_json(r.text, "t.json");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.rfind(r.error, 0) == 0);
    CHECK(s.error().message.find('\n') == std::string::npos);
  }
}

TEST_CASE("a scenario survives a save / load round trip") {
  auto spec = load_scenario_file(kAssets + "tiled_32x8_32x33.json");
  REQUIRE(spec.ok());
  const fs::path dir = fs::temp_directory_path() / ("bankscope_roundtrip_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "s.json").string();
  REQUIRE(save_scenario_file(path, *spec).ok());
  auto back = load_scenario_file(path);
  REQUIRE(back.ok());
  CHECK(scenario_to_json(*back) == scenario_to_json(*spec));
  CHECK(back->defines.size() == 4);
  CHECK(back->defines[2].first == "outX");  // order is kept: defines may use earlier ones
  fs::remove_all(dir);
}

TEST_CASE("tma_swizzle is read, compiled to its Swizzle and written back as its name") {
  auto spec = parse_scenario_json(R"({"block": [32], "grid": [1], "arrays": [{"type": "half", "dims": [64, 64], "tma_swizzle": "128B"}],
    "accesses": [{"op": "ld", "target": "tile[threadIdx.x][0]"}]})", "t.json");
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().message));
  CHECK(spec->arrays[0].tma_swizzle == 128);
  auto s = compile(*spec);
  REQUIRE(s.ok());
  // Row 5, col 0 of a half tile: chunk 0 ^ 5 -> byte 5 * 128 + 5 * 16.
  CHECK(s->arrays[0].byte_address(5, 0) == 5 * 128 + 5 * 16);
  const auto j = scenario_to_json(*spec);
  CHECK(j["arrays"][0]["tma_swizzle"] == "128B");
  CHECK_FALSE(j["arrays"][0].contains("swizzle"));
}

TEST_CASE("an access's issue mode is read, and written back when it is not the default") {
  auto p = parse_scenario_json(minimal(R"(, "issue": "predicated")"), "t.json");
  REQUIRE(p.ok());
  CHECK(p->accesses[0].issue == "predicated");
  CHECK(scenario_to_json(*p)["accesses"][0]["issue"] == "predicated");
  auto b = parse_scenario_json(minimal(R"(, "issue": "branch")"), "t.json");
  REQUIRE(b.ok());
  CHECK_FALSE(scenario_to_json(*b)["accesses"][0].contains("issue"));  // the default is not written
  auto h = parse_scenario_json(minimal(R"(, "issue": "hoisted")"), "t.json");
  REQUIRE(h.ok());
  auto back = parse_scenario_json(scenario_to_json(*h).dump(), "t.json");
  REQUIRE(back.ok());
  CHECK(back->accesses[0].issue == "hoisted");
}

TEST_CASE("an access's source line is read and written back; absent means 0 and is not written") {
  auto p = parse_scenario_json(minimal(R"(, "line": 42)"), "t.json");
  REQUIRE(p.ok());
  CHECK(p->accesses[0].line == 42);
  CHECK(scenario_to_json(*p)["accesses"][0]["line"] == 42);
  auto q = parse_scenario_json(minimal(""), "t.json");
  REQUIRE(q.ok());
  CHECK(q->accesses[0].line == 0);
  CHECK_FALSE(scenario_to_json(*q)["accesses"][0].contains("line"));
}

TEST_CASE("a failed save leaves the old file intact") {
  const fs::path dir = fs::temp_directory_path() / ("bankscope_atomic_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "keep.json").string();
  { std::ofstream(path) << "old contents"; }
  // Make the write fail part-way: a file-size limit smaller than the new contents.
  struct rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 64;
  setrlimit(RLIMIT_FSIZE, &small);
  auto r = save_text_file_atomic(path, std::string(4096, 'x'));
  setrlimit(RLIMIT_FSIZE, &old_limit);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("the old file is untouched") != std::string::npos);
  auto text = read_text_file(path);
  REQUIRE(text.ok());
  CHECK(*text == "old contents");
  int leftovers = 0;
  for (const auto& e : fs::directory_iterator(dir)) leftovers += e.path().filename() != "keep.json";
  CHECK(leftovers == 0);
  // Saving into a directory that does not exist fails with the path named.
  auto r2 = save_text_file_atomic((dir / "missing" / "x.json").string(), "{}");
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message.find("missing/x.json: cannot save (No such file or directory)") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("JSONL patterns: parse, predict, echo") {
  std::string offs;
  for (int i = 0; i < 32; ++i) offs += (i ? "," : "") + std::to_string(i * 8);
  auto p = parse_pattern_line(R"({"id": "a", "width": 8, "op": "ld", "mask": "0x0000ffff", "offsets": [)" + offs + "]}");
  REQUIRE(p.ok());
  CHECK(p->access.mask == 0xffffu);
  const auto out = predict_pattern(*p);
  CHECK(out["id"] == "a");
  CHECK(out["wavefronts"] == 1);
  CHECK(out["bank_conflicts"] == 0);
  CHECK(out.begin().key() == "id");  // input keys first, in input order
  auto q = parse_pattern_line(R"({"width": 4, "op": "st", "mask": 4294967295, "offsets": [)" + offs + "]}");
  REQUIRE(q.ok());
  CHECK(q->access.op == Op::kStore);
  CHECK(predict_pattern(*q)["wavefronts"] == 2);  // stride 2 words
}

TEST_CASE("JSONL pattern errors") {
  std::string offs32, offs31;
  for (int i = 0; i < 32; ++i) offs32 += (i ? "," : "") + std::to_string(i * 4);
  for (int i = 0; i < 31; ++i) offs31 += (i ? "," : "") + std::to_string(i * 4);
  struct Row { std::string line; std::string error; };
  const Row rows[] = {
      {"[1,2]", "expected a JSON object, got an array"},
      {R"({"width": 4, "op": "ld", "mask": "0x1ffffffff", "offsets": [)" + offs32 + "]}", "mask: \"0x1ffffffff\" is wider than 32 bits"},
      {R"({"width": 4, "op": "ld", "mask": 8589934592, "offsets": [)" + offs32 + "]}", "mask: 8589934592 is wider than 32 bits"},
      {R"({"width": 4, "op": "ld", "offsets": [)" + offs31 + "]}", "offsets: expected an array of exactly 32 byte offsets, got 31 entries"},
      {R"({"width": 3, "op": "ld", "offsets": [)" + offs32 + "]}", "width: 3 bytes is not an access width (1, 2, 4, 8 or 16)"},
      {R"({"width": 8, "op": "ld", "offsets": [)" + offs32 + "]}", "lane 1: byte offset 4 is not 8-byte aligned (the GPU faults with \"misaligned address\")"},
      {R"({"width": 4, "op": "mov", "offsets": [)" + offs32 + "]}", "op: 'mov' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\", \"atom\" or \"ldgsts\""},
      // A control character in the user's text is quoted, not echoed: an error stays one line.
      {R"({"width": 4, "op": "a\nb", "offsets": [)" + offs32 + "]}", "op: 'a\\x0ab' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\", \"atom\" or \"ldgsts\""},
      {R"({"width": 4, "op": "atom", "atom": "\t", "offsets": [)" + offs32 + "]}", "atom: '\\x09' must be "},
      {R"({"width": 4, "op": "ld", "offsets": [-4)" + offs31.substr(1) + ",4]}", "offsets[0]: -4 is out of range 0..232447"},
      {R"({"width": 4, "op": "ld")", "invalid JSON at byte "},
  };
  for (const Row& r : rows) {
    CAPTURE(r.line);
    auto p = parse_pattern_line(r.line);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.rfind(r.error, 0) == 0);
  }
}

TEST_CASE("saving into a read-only directory fails cleanly and keeps the old file") {
  // Root ignores directory permissions, so the save runs in a child that drops to an unprivileged
  // user (nobody, 65534) when started as root.
  const fs::path dir = fs::temp_directory_path() / ("bankscope_readonly_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "keep.json").string();
  { std::ofstream(path) << "old contents"; }
  REQUIRE(::chmod(dir.c_str(), 0555) == 0);
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    auto r = save_text_file_atomic(path, "new contents");
    const bool named = !r.ok() && r.error().message == path + ": cannot save (Permission denied); the old file is untouched";
    ::_exit(r.ok() ? 1 : (named ? 0 : 2));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: the save succeeded; 2: wrong message; 3: could not drop root
  auto text = read_text_file(path);
  REQUIRE(text.ok());
  CHECK(*text == "old contents");
  ::chmod(dir.c_str(), 0755);
  fs::remove_all(dir);
}

TEST_CASE("input that used to crash: deep nesting, huge numbers, masks past 2^64 (found by fuzzing)") {
  std::string offs;
  for (int i = 0; i < 32; ++i) offs += (i ? "," : "") + std::to_string(i * 4);
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  struct Row { std::string line; std::string error; };
  const Row rows[] = {
      {R"({"width": 4, "op": "ld", "note": )" + deep + R"(, "offsets": [)" + offs + "]}",
       "invalid JSON: nested more than 64 levels"},
      {R"({"width": 4, "op": "ld", "offsets": [1e999]})", "invalid JSON: [json.exception.out_of_range.406]"},
      {R"({"width": 4, "op": "ld", "mask": "18446744073709551616", "offsets": [)" + offs + "]}",
       "mask: \"18446744073709551616\" is wider than 32 bits"},
      {R"({"width": 4, "op": "ld", "mask": "18446744073709551617", "offsets": [)" + offs + "]}",
       "mask: \"18446744073709551617\" is wider than 32 bits"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.error);
    auto p = parse_pattern_line(r.line);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.rfind(r.error, 0) == 0);
  }
  auto s = parse_scenario_json(R"({"n": 1e999})", "t.json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.rfind("t.json: invalid JSON: [json.exception.out_of_range.406]", 0) == 0);
  auto d = parse_scenario_json("{\"name\": " + deep + "}", "t.json");
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "t.json: invalid JSON: nested more than 64 levels");
  CHECK(json_depth(R"({"a": "[[[[", "b": [[1]]})") == 3);  // brackets inside strings do not count
}
