// test_scenario.cpp: compile() of the scenario language's loops, bodies, params, N-D arrays and
// the extern buffer (scenario.hpp). Each row's expectation is worked by hand in its comment.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/scenario.hpp"

using namespace bankscope;

namespace {

// A one-block, one-warp scenario around the given accesses (and extra top-level fields).
std::string scenario_text(const std::string& accesses, const std::string& extra = "",
                          const std::string& arrays = R"([{"name": "a", "type": "float", "dims": [1024]}])") {
  return R"({"name": "t", "n": 32, "block": [256], "grid": [1], )" + extra + R"( "arrays": )" + arrays +
         R"(, "accesses": )" + accesses + "}";
}

Result<Scenario> compile_text(const std::string& text) {
  auto spec = parse_scenario_json(text, "t.json");
  if (!spec) return spec.error();
  return compile(*spec);
}

std::string loop_entry(const std::string& loop) {
  return R"([{"loop": )" + loop + R"(, "body": [{"op": "ld", "target": "a[lane]"}]}])";
}

}  // namespace

TEST_CASE("a loop runs init; cond; update as C does") {
  struct Row {
    const char* loop;
    std::vector<int64_t> values;
  };
  const Row rows[] = {
      {R"({"var": "s", "init": 1, "cond": "s < 256", "update": "s *= 2"})", {1, 2, 4, 8, 16, 32, 64, 128}},
      // blockDim.x = 256
      {R"({"var": "s", "init": "blockDim.x / 2", "cond": "s > 0", "update": "s >>= 1"})", {128, 64, 32, 16, 8, 4, 2, 1}},
      {R"({"var": "i", "init": 0, "cond": "i < 10", "update": "i += 3"})", {0, 3, 6, 9}},
      {R"({"var": "stride", "init": 64, "cond": "stride > 1", "update": "stride >>= 2"})", {64, 16, 4}},
      // K / BK = 100 / 32 = 3, counting down through 0
      {R"({"var": "k", "init": "K / BK", "cond": "k >= 0", "update": "k--"})", {3, 2, 1, 0}},
      {R"({"var": "s", "init": 1, "cond": "s < 8", "update": "s = s * 2 + 1"})", {1, 3, 7}},
      {R"({"var": "j", "begin": 2, "end": 9, "step": 3})", {2, 5, 8}},
      {R"({"var": "j", "begin": "BK - 30", "end": "BK", "step": "BK / 4"})", {2, 10, 18, 26}},
      {R"({"var": "i", "init": 5, "cond": "i != 0", "update": "--i"})", {5, 4, 3, 2, 1}},
  };
  for (const Row& r : rows) {
    CAPTURE(r.loop);
    auto s = compile_text(scenario_text(loop_entry(r.loop), R"("params": {"K": 100, "BK": 32},)"));
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    CHECK(s->accesses[0].iterations == r.values);
    CHECK(s->accesses[0].instructions_per_warp() == int64_t(r.values.size()));
  }
}

TEST_CASE("a body runs its statements in program order, each iteration whole") {
  // for (i = 0; i < 2; i++) { ld a[i]; for (k = 1; k < 4; k *= 2) st a[k]; }  ld a[0];
  const std::string acc = R"([{"loop": {"var": "i", "init": 0, "cond": "i < 2", "update": "i++"},
      "body": [{"op": "ld", "target": "a[i]"},
               {"loop": {"var": "k", "init": 1, "cond": "k < 4", "update": "k *= 2"}, "body": [{"op": "st", "target": "a[k + i]"}]}]},
      {"op": "ld", "target": "a[0]"}])";
  auto s = compile_text(scenario_text(acc));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  const std::vector<std::pair<int32_t, int32_t>> program = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {1, 2}, {1, 3}, {2, 0}};
  CHECK(s->program == program);
  CHECK(s->accesses[1].iterations == std::vector<int64_t>{0, 1, 0, 2, 1, 1, 1, 2});  // (i, k) pairs
  auto w = warp_instructions(*s, Dim3{0, 0, 0}, 0);
  REQUIRE(w.ok());
  REQUIRE(w->size() == 7);
  CHECK((*w)[0].text == "ld a[i]  (i=0)");
  CHECK((*w)[2].text == "st a[k + i]  (i=0, k=2)");
  CHECK((*w)[4].text == "st a[k + i]  (i=1, k=1)");
  CHECK((*w)[2].access.addr[0] == 8);   // a[2]
  CHECK((*w)[5].access.addr[0] == 12);  // a[3]
}

TEST_CASE("a body's defines are evaluated per iteration and scoped to it") {
  // index = 2 * s * threadIdx.x; lane 3 at s = 4 reads a[24], byte 96.
  const std::string acc = R"([{"loop": {"var": "s", "init": 1, "cond": "s < 8", "update": "s *= 2"},
      "defines": {"index": "2 * s * threadIdx.x"}, "body": [{"op": "ld", "target": "a[index]", "if": "index < 1024"}]}])";
  auto s = compile_text(scenario_text(acc));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  auto w = warp_instructions(*s, Dim3{0, 0, 0}, 0);
  REQUIRE(w.ok());
  REQUIRE(w->size() == 3);
  CHECK((*w)[0].access.addr[3] == 24);  // s = 1: a[6]
  CHECK((*w)[2].access.addr[3] == 96);  // s = 4: a[24]
}

TEST_CASE("bad loops, params, arrays and defines are one-line errors naming the field") {
  struct Row {
    std::string text;
    const char* error;
  };
  const std::string p = R"("params": {"K": 8},)";
  const Row rows[] = {
      {scenario_text(loop_entry(R"({"var": "s", "init": 1, "cond": "s < 32", "update": "s *= 1"})")),
       "t.json: accesses[0].loop.update: 's *= 1' leaves s at 1: the loop never ends"},
      {scenario_text(loop_entry(R"({"var": "s", "init": 4, "cond": "s < 32", "update": "s -= 1"})")),
       "t.json: accesses[0].loop.update: more than 1048576 iterations ('s -= 1' does not reach 's < 32'): the loop never ends"},
      {scenario_text(loop_entry(R"({"var": "s", "init": 9, "cond": "s < K", "update": "s++"})"), p),
       "t.json: accesses[0].loop.cond: 's < K' is false at the start (s = 9): the loop never runs"},
      {scenario_text(loop_entry(R"({"var": "s", "init": 1, "cond": "s != 0", "update": "s <<= 1"})")),
       "t.json: accesses[0].loop.update: 's <<= 1' at s = 1073741824: "},
      {scenario_text(loop_entry(R"({"var": "s", "init": 0, "cond": "s < 4", "update": "s += 1LL << 40"})")),
       "t.json: accesses[0].loop.update: 's += 1LL << 40' at s = 0 gives 1099511627776, which overflows the int s"},
      {scenario_text(loop_entry(R"({"var": "s", "init": "warp", "cond": "s < 4", "update": "s++"})")),
       "t.json: accesses[0].loop.init: 'warp' differs from thread to thread"},
      {scenario_text(loop_entry(R"({"var": "s", "init": 0, "cond": "s < 4", "update": "s == 1"})")),
       "t.json: accesses[0].loop.update: 's == 1' is not an assignment"},
      {scenario_text(loop_entry(R"({"var": "s", "init": 0, "cond": "s < 4", "update": "s++", "begin": 0})")),
       "t.json: accesses[0].loop: give either"},
      {scenario_text(loop_entry(R"({"var": "K", "init": 0, "cond": "K < 4", "update": "K++"})"), p),
       "t.json: accesses[0].loop.var: 'K' is already a param"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane]"}])", R"("defines": {"x": "y + 1", "y": "x + 1"},)"),
       "t.json: defines.x: column 1: unknown variable 'y'"},
      {scenario_text(loop_entry(R"({"var": "k", "init": 0, "cond": "k < 2", "update": "k++"})"), R"("defines": {"x": "k * 2"},)"),
       "t.json: defines.x: column 1: unknown variable 'k' in 'k * 2'; 'k' is a loop variable: put this define in the \"defines\" of a loop entry"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane]"}])", R"("params": {"n": 3},)"),
       "t.json: params.n: 'n' is already defined"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane]"}])", R"("extern": {"bytes": 64},)",
                     R"([{"name": "a", "type": "float", "dims": [8], "offset": 32}, {"name": "b", "type": "float", "dims": [5], "offset": 16}])"),
       "t.json: arrays[1].offset: 'b' (bytes 16..35) overlaps 'a' (bytes 32..63) in the extern buffer"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane]"}])", R"("extern": {"bytes": 64},)",
                     R"([{"name": "a", "type": "float", "dims": [8], "offset": 0}, {"name": "b", "type": "double", "dims": [2], "offset": 36}])"),
       "t.json: arrays[1].offset: array 'b': byte offset 36 is not a multiple of its 8-byte element (double)"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane]"}])", "", R"([{"name": "a", "type": "float", "dims": [2, 2, 2, 2, 2]}])"),
       "t.json: arrays[0].dims: expected 1 to 4 sizes"},
      {scenario_text(R"([{"op": "ld", "target": "a[lane][0]"}])", "", R"([{"name": "a", "type": "float", "dims": [4, 4, 4]}])"),
       "t.json: accesses[0].target: 'a' has 3 dimension(s) but 2 indices are given"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    auto s = compile_text(r.text);
    REQUIRE_FALSE(s.ok());
    CAPTURE(s.error().message);
    CHECK(s.error().message.rfind(r.error, 0) == 0);
    CHECK(s.error().message.find('\n') == std::string::npos);
  }
}

TEST_CASE("statements that share a body must agree on its loop (a spec built by hand)") {
  auto spec = parse_scenario_json(scenario_text(R"([{"loop": {"var": "s", "init": 0, "cond": "s < 2", "update": "s++"},
      "body": [{"op": "ld", "target": "a[lane]"}, {"op": "st", "target": "a[lane]"}]}])"), "t.json");
  REQUIRE(spec.ok());
  REQUIRE(spec->accesses.size() == 2);
  CHECK(compile(*spec).ok());
  spec->accesses[1].loops[0].cond = "s < 3";
  auto c = compile(*spec);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "accesses[0].body[1].loops.s: shares body 0 with accesses[0].body[0] but its loop differs");
}

TEST_CASE("the extern buffer follows the static arrays at a 16-byte boundary") {
  // float s[10] = 40 bytes, rounded to 48; e at extern byte 0 -> 48, f at extern byte 68 -> 116.
  const std::string arrays = R"([{"name": "s", "type": "float", "dims": [10]},
      {"name": "e", "type": "int", "dims": [16], "offset": 0}, {"name": "f", "type": "short", "dims": [3, 4], "offset": 68}])";
  auto s = compile_text(scenario_text(R"([{"op": "ld", "target": "f[lane % 3][lane % 4]"}])", R"("extern": {"bytes": 96},)", arrays));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  CHECK(s->arrays[0].base == 0);
  CHECK(s->arrays[1].base == 48);
  CHECK(s->arrays[2].base == 116);
  CHECK(s->shared_bytes() == 140);  // f ends at 116 + 24
  auto w = warp_instructions(*s, Dim3{0, 0, 0}, 0);
  REQUIRE(w.ok());
  CHECK((*w)[0].access.addr[5] == 116 + (2 * 4 + 1) * 2);  // lane 5: f[2][1]
}

TEST_CASE("a scenario without n gets the documented default, flagged") {
  auto spec = parse_scenario_json(R"({"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[0][lane]"}]})", "t.json");
  REQUIRE(spec.ok());
  CHECK(spec->n == 2048);
  CHECK(spec->n_defaulted);
  auto with_n = parse_scenario_json(R"({"n": 64, "block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[0][lane]"}]})", "t.json");
  REQUIRE(with_n.ok());
  CHECK_FALSE(with_n->n_defaulted);
  // Through the C++ API n = 0 means "not given": a derived grid then asks for it.
  ScenarioSpec s = seed_transpose_spec(33);
  s.n = 0;
  auto c = compile(s);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.rfind("n: missing: add \"n\"", 0) == 0);
  s.grid = {2, 2, 1};
  c = compile(s);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "accesses[0].if: uses n, but the scenario gives no \"n\" (add \"n\": N)");
}

TEST_CASE("the body form is written back as bodies and reads back the same") {
  const std::string acc = R"([{"loop": {"var": "s", "init": 1, "cond": "s < 64", "update": "s *= 2"}, "defines": {"x": "s * lane"},
      "body": [{"op": "ld", "target": "a[x % 1024]"}, {"op": "st", "target": "a[lane]", "loops": [{"var": "j", "begin": 0, "end": 4, "step": 1}]}]}])";
  auto spec = parse_scenario_json(scenario_text(acc, R"("params": {"K": 3}, "extern": {"bytes": 4096},)",
                                                R"([{"name": "a", "type": "float", "dims": [1024]}, {"name": "v", "type": "int4", "dims": [2, 4, 8], "offset": 0}])"), "t.json");
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().message));
  const std::string text = scenario_to_json(*spec).dump();
  auto again = parse_scenario_json(text, "again.json");
  REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
  CHECK(scenario_to_json(*again).dump() == text);
  CHECK(text.find(R"("body":)") != std::string::npos);
  CHECK(text.find(R"("update":"s *= 2")") != std::string::npos);
  CHECK(text.find(R"("offset":0)") != std::string::npos);
  auto a = compile(*spec), b = compile(*again);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->program == b->program);
}

TEST_CASE("a grid given as expressions of n, blockDim and params follows n; bad ones name the entry") {
  // fast_sec's launch: ceil(n / 64) x ceil((n + 7) / 64), one block row more than the tiles when
  // n % 64 is 0 or above 57.
  const std::string body = R"("block": [256], "params": {"T": 64}, "arrays": [{"dims": [72, 64]}],
      "accesses": [{"op": "st", "target": "tile[threadIdx.x / 64][threadIdx.x % 64]"}]})";
  auto spec = parse_scenario_json(R"({"n": 8191, "grid": ["(n + T - 1) / T", "(n + 7 + T - 1) / T"], )" + body, "g.json");
  REQUIRE(spec.ok());
  REQUIRE(spec->grid_expr.size() == 2);
  auto s = compile(*spec);
  REQUIRE(s.ok());
  CHECK(s->grid.x == 128);  // ceil(8191 / 64)
  CHECK(s->grid.y == 129);  // ceil(8198 / 64): the extra block row
  CHECK(s->grid.z == 1);
  spec->n = 8000;  // --n: the launch follows
  s = compile(*spec);
  REQUIRE(s.ok());
  CHECK(s->grid.x == 125);
  CHECK(s->grid.y == 126);  // ceil(8007 / 64)
  // Per launch: 256 threads = 8 warps a block, one STS each.
  auto totals = launch_totals(*s);
  REQUIRE(totals.ok());
  CHECK(totals->st.instructions == 125u * 126u * 8u);
  // A number beside an expression is kept as its text; written back as expressions.
  auto mixed = parse_scenario_json(R"({"n": 100, "grid": [3, "n / 50"], )" + body, "g.json");
  REQUIRE(mixed.ok());
  CHECK(mixed->grid_expr == std::vector<std::string>{"3", "n / 50"});
  auto back = parse_scenario_json(scenario_to_json(*mixed).dump(), "g2.json");
  REQUIRE(back.ok());
  CHECK(back->grid_expr == mixed->grid_expr);
  // Errors name the entry (parse_scenario_json compiles what it reads; the C++ API at compile()).
  const auto error_of = [&](const std::string& head) -> std::string {
    auto sp = parse_scenario_json(head + body, "g.json");
    if (!sp) return sp.error().message;
    auto cs = compile(*sp);
    return cs ? std::string("ok") : cs.error().message;
  };
  CHECK(error_of(R"({"n": 100, "grid": ["threadIdx.x + 1"], )").find(
            "grid[0]: 'threadIdx.x + 1' may use n, blockDim and params only") != std::string::npos);
  CHECK(error_of(R"({"n": 100, "grid": ["1", "n - 100"], )").find("grid[1] = 'n - 100' is 0; it must be in 1..65535") !=
        std::string::npos);
  CHECK(error_of(R"({"n": 100, "grid": ["m / 2"], )").find("grid[0]: ") != std::string::npos);
  CHECK(error_of(R"({"n": 100, "grid": ["1", "2", "3", "4"], )").find("grid") != std::string::npos);
  ScenarioSpec nn = *spec;
  nn.n = 0;
  auto c = compile(nn);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "grid[0]: uses n, but the scenario gives no \"n\" (add \"n\": N)");
}
