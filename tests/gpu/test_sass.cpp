// test_sass.cpp: the SASS reader (sim/sass.hpp) and the shipped scenarios' "issue" fields against
// the SASS of the kernels bankscope-gpu launches for them (assets/results/h200/sass_lds_sts.txt,
// regenerated from this very binary when cuobjdump is found). No GPU needed.
#include <doctest/doctest.h>

#include <cxxabi.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "kernels.hpp"
#include "sim/sass.hpp"

using namespace bankscope;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const SassFunction* find_fn(const std::vector<SassFunction>& fns, const std::string& name) {
  for (const SassFunction& f : fns)
    if (f.name == name) return &f;
  return nullptr;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : mangled;
}

// The function whose demangled name is "void bankscope::SYMBOL(...)".
const SassFunction* find_symbol(const std::vector<SassFunction>& fns, const std::string& symbol) {
  for (const SassFunction& f : fns)
    if (demangle(f.name).find("bankscope::" + symbol + "(") != std::string::npos) return &f;
  return nullptr;
}

// Trip count of a body-form loop {"var", "init", "cond", "update"} whose bounds are literals
// ("it < 18", "q++" / "q += 4"); -1 when it is not that simple (the caller then reports it).
int64_t simple_trips(const nlohmann::json& l) {
  const std::string v = l.at("var");
  const nlohmann::json& ji = l.at("init");
  int64_t init = 0;
  if (ji.is_number_integer()) {
    init = ji.get<int64_t>();
  } else if (ji.is_string()) {
    try { init = std::stoll(ji.get<std::string>()); } catch (...) { return -1; }
  } else {
    return -1;
  }
  std::smatch m;
  const std::string cond = l.at("cond");
  if (!std::regex_match(cond, m, std::regex("\\s*" + v + "\\s*<\\s*(\\d+)\\s*"))) return -1;
  const int64_t end = std::stoll(m[1]);
  const std::string up = l.at("update");
  int64_t step = 0;
  if (std::regex_match(up, std::regex("\\s*(" + v + "\\s*\\+\\+|\\+\\+\\s*" + v + ")\\s*"))) {
    step = 1;
  } else if (std::regex_match(up, m, std::regex("\\s*" + v + "\\s*\\+=\\s*(\\d+)\\s*"))) {
    step = std::stoll(m[1]);
  }
  if (step <= 0) return -1;
  return end > init ? (end - init + step - 1) / step : 0;
}

// The scenario's accesses of `op`, one entry per warp instruction of one pass through the loops
// (what the unrolled SASS has one instruction for), as the SASS reader names issue modes. Bodies
// ({"loop", "body"}) expand in program order: iteration by iteration, statement by statement.
void issue_sequence(const nlohmann::json& accesses, const std::string& op, std::vector<std::string>* seq) {
  for (const nlohmann::json& a : accesses) {
    if (a.contains("body")) {
      const int64_t trips = a.contains("loop") ? simple_trips(a["loop"]) : 1;
      if (trips < 0) {
        seq->push_back("(a loop this test cannot count: " + a["loop"].dump() + ")");
        continue;
      }
      for (int64_t t = 0; t < trips; ++t) issue_sequence(a["body"], op, seq);
      continue;
    }
    if (a.value("op", "ld") != op) continue;
    int64_t trips = 1;
    if (a.contains("loops"))
      for (const nlohmann::json& l : a["loops"]) {
        const int64_t b = l.at("begin"), e = l.at("end"), s = l.value("step", int64_t{1});
        trips *= e > b ? (e - b + s - 1) / s : 0;
      }
    std::string issue = a.value("issue", "branch");
    if (issue == "hoisted") issue = "unconditional";  // issued by every lane: no guard in the SASS
    for (int64_t t = 0; t < trips; ++t) seq->push_back(issue);
  }
}

std::vector<std::string> scenario_issue_sequence(const nlohmann::json& scenario,
                                                 const std::string& op) {
  std::vector<std::string> seq;
  issue_sequence(scenario.at("accesses"), op, &seq);
  return seq;
}

// "" when the scenario's accesses, expanded per iteration, equal one code path of `fn`: the k-th
// run of as many shared stores (loads) as the scenario has, for one k shared by loads and stores
// (a kernel with a run-time layout has one unrolled path per layout kind, laid out in the same
// order for both). Else one line saying what differs.
std::string check_issue(const nlohmann::json& scenario, const SassFunction& fn) {
  std::map<std::string, std::vector<std::string>> sass;
  for (const SassSharedInst& s : fn.shared) {
    if (s.base == "STS") sass["st"].push_back(sass_issue_name(s.issue));
    if (s.base == "LDS") sass["ld"].push_back(sass_issue_name(s.issue));
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string o;
    for (const std::string& s : v) o += (o.empty() ? "" : ",") + s;
    return o;
  };
  std::vector<size_t> paths;  // candidate k, narrowed op by op
  bool first = true;
  for (const std::string op : {"st", "ld"}) {
    const std::vector<std::string> want = scenario_issue_sequence(scenario, op);
    const std::vector<std::string>& got = sass[op];
    if (want.empty() || got.size() % want.size() != 0) {
      return op + ": the scenario has " + std::to_string(want.size()) +
             " instructions per pass, the SASS " + std::to_string(got.size()) + " (" + join(got) +
             ")";
    }
    std::vector<size_t> ok;
    for (size_t k = 0; k < got.size() / want.size(); ++k) {
      if (std::equal(want.begin(), want.end(), got.begin() + long(k * want.size())))
        ok.push_back(k);
    }
    if (first) {
      paths = ok;
      first = false;
    } else {
      std::vector<size_t> both;
      for (size_t k : paths)
        if (std::find(ok.begin(), ok.end(), k) != ok.end()) both.push_back(k);
      paths = both;
    }
    if (paths.empty()) {
      return op + ": the scenario says " + join(want) + ", no code path of the SASS issues that (" +
             join(got) + ")";
    }
  }
  return "";
}

std::optional<Elem> elem_from(const std::string& t) {
  if (t == "float") return Elem::kFloat;
  if (t == "double") return Elem::kDouble;
  if (t == "float4") return Elem::kFloat4;
  return std::nullopt;
}

// The kernel validate launches for a scenario file, from its raw JSON (so the check does not
// depend on the scenario parser); "" when the scenario has no gpu_kernel bankscope-gpu runs.
std::string symbol_for(const nlohmann::json& j) {
  if (j.value("gpu_kernel", "").empty()) return "";
  const nlohmann::json& a = j.at("arrays").at(0);
  const std::optional<Elem> elem = elem_from(a.value("type", "float"));
  if (!elem) return "";
  PhysicalLayout layout{a.value("row_stride", a.at("dims").at(1).get<int64_t>())};
  layout.xor_mask = a.value("xor", int64_t{0});
  if (a.contains("swizzle"))
    layout.swizzle = Swizzle{a["swizzle"][0], a["swizzle"][1], a["swizzle"][2]};
  TransposePlan plan;
  if (!plan_transpose(j["gpu_kernel"], *elem, layout, &plan).empty()) return "";
  return plan.symbol;
}

std::string committed_sass_path() {
  return std::string(BANKSCOPE_SOURCE_DIR) + "/assets/results/h200/sass_lds_sts.txt";
}

}  // namespace

TEST_CASE("parse_sass: shared instructions, widths and how each is issued") {
  const std::string text = R"(
	code for sm_90
		Function : _Z3foov
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe40000000800 */
        /*0010*/                   STS [R2], R3 ;
        /*0020*/               @P0 STS.128 [R2+0x10], R4 ;
        /*0030*/              @!P1 BRA 0x60 ;
        /*0040*/                   LDS.U.64 R4, [R2] ;
        /*0050*/               @PT LDSM.16.M88.4 R4, [R2] ;
        /*0060*/                   ATOMS.ADD RZ, [R2], R3 ;
        /*0070*/                   BRA 0x10 ;
        /*0080*/               @P2 EXIT ;
        /*0090*/                   STS.U8 [R2], R3 ;
		Function : _Z3barv
        /*0000*/                   LDS R0, [R1] ;
)";
  Result<std::vector<SassFunction>> r = parse_sass(text);
  REQUIRE(r.ok());
  REQUIRE(r.value().size() == 2);
  // address, opcode, issue, guard, width: each row read off the text above by hand.
  struct Row {
    uint64_t address;
    const char* opcode;
    SassIssue issue;
    const char* guard;
    int width;
  };
  const Row rows[] = {
      {0x10, "STS", SassIssue::kUnconditional, "", 4},       // before any branch
      {0x20, "STS.128", SassIssue::kPredicated, "@P0", 16},  // its own guard
      {0x40, "LDS.U.64", SassIssue::kBranch, "", 8},         // inside (0x30, 0x60) of @!P1 BRA
      {0x50, "LDSM.16.M88.4", SassIssue::kBranch, "", 0},    // @PT is no guard
      {0x60, "ATOMS.ADD", SassIssue::kUnconditional, "",
       4},  // the branch target itself; BRA 0x10 is backward
      {0x90, "STS.U8", SassIssue::kBranch, "", 1},  // after @P2 EXIT
  };
  const SassFunction& f = r.value()[0];
  CHECK(f.name == "_Z3foov");
  REQUIRE(f.shared.size() == std::size(rows));
  for (size_t i = 0; i < std::size(rows); ++i) {
    CAPTURE(i);
    CHECK(f.shared[i].address == rows[i].address);
    CHECK(f.shared[i].opcode == rows[i].opcode);
    CHECK(f.shared[i].issue == rows[i].issue);
    CHECK(f.shared[i].guard == rows[i].guard);
    CHECK(f.shared[i].width == rows[i].width);
  }
  CHECK(r.value()[1].shared.size() == 1);
  CHECK(format_sass_shared({r.value()[1]}) == "function _Z3barv\n  0x0000 LDS unconditional\n");

  // nvdisasm's labels name branch targets.
  const std::string nv =
      ".text._Z3bazv:\n /*0000*/ @P0 BRA `(.L_x_1) ;\n /*0010*/ LDS R0, [R1] ;\n.L_x_1:\n /*0020*/ "
      "STS [R1], R0 ;\n";
  Result<std::vector<SassFunction>> n = parse_sass(nv);
  REQUIRE(n.ok());
  REQUIRE(n.value().at(0).shared.size() == 2);
  CHECK(n.value()[0].shared[0].issue == SassIssue::kBranch);
  CHECK(n.value()[0].shared[1].issue == SassIssue::kUnconditional);

  Result<std::vector<SassFunction>> bad = parse_sass("hello\n");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("no \"Function :\" header") != std::string::npos);
  Result<std::vector<SassFunction>> orphan = parse_sass("        /*0000*/  LDS R0, [R1] ;\n");
  REQUIRE(!orphan.ok());
  CHECK(orphan.error().message == "SASS line 1: instruction before any \"Function :\" header");
}

TEST_CASE("the committed SASS: what nvcc 13.0 -O3 -arch=sm_90 emits for the shared accesses") {
  Result<std::vector<SassFunction>> r = parse_sass(read_file(committed_sass_path()));
  REQUIRE(r.ok());
  // 17 transpose kernels: seed<32|33>, and for float, double, float4: 32x8<T, 32|33, 0>,
  // 32x8<T, 32, 31>, dyn<T, 8|32>.
  CHECK(r.value().size() == 37);  // + issue 15: fast_shift x9, fast_f4v x6, fast_sec x5
  // The seed kernel, read by hand from the file: the guarded STS is predicated (so a warp whose
  // lanes all fail the guard still executes it: the H200's 128 vs 66 at N = 33), the LDS sits
  // behind a branch.
  const SassFunction* seed = find_symbol(r.value(), "k_transpose_seed<32>");
  REQUIRE(seed != nullptr);
  REQUIRE(seed->shared.size() == 2);
  CHECK(seed->shared[0].opcode == "STS");
  CHECK(seed->shared[0].issue == SassIssue::kPredicated);
  CHECK(seed->shared[1].opcode == "LDS");
  CHECK(seed->shared[1].issue == SassIssue::kBranch);
  const SassFunction* f4 = find_symbol(r.value(), "k_transpose_32x8<float4, 33, 0>");
  REQUIRE(f4 != nullptr);
  REQUIRE(f4->shared.size() == 8);
  CHECK(f4->shared[0].opcode == "STS.128");
  CHECK(f4->shared[0].width == 16);
  CHECK(f4->shared[7].opcode == "LDS.128");
}

TEST_CASE("regenerated SASS equals the committed one (when cuobjdump is found)") {
  std::string cuobjdump = BANKSCOPE_CUOBJDUMP;
  if (const char* env = std::getenv("BANKSCOPE_CUOBJDUMP")) cuobjdump = env;
  if (cuobjdump.empty() || std::string(BANKSCOPE_CUDA_ARCHS) != "90") {
    MESSAGE("not regenerated: cuobjdump " << (cuobjdump.empty() ? "not found" : cuobjdump)
                                          << ", CUDA architectures " << BANKSCOPE_CUDA_ARCHS
                                          << " (the committed file is sm_90)");
    return;
  }
  // This test binary links the kernels, compiled by the build's nvcc with the build's flags.
  // (resolved here: in the shell popen starts, /proc/self/exe would be the shell)
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = "'" + cuobjdump + "' -sass '" + self + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t got = 0;
  while ((got = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  CHECK(pclose(p) == 0);
  Result<std::vector<SassFunction>> now = parse_sass(out);
  REQUIRE(now.ok());
  Result<std::vector<SassFunction>> committed = parse_sass(read_file(committed_sass_path()));
  REQUIRE(committed.ok());
  for (const SassFunction& f : committed.value()) {
    CAPTURE(f.name);
    const SassFunction* g = find_fn(now.value(), f.name);
    REQUIRE(g != nullptr);
    CHECK(format_sass_shared({*g}) == format_sass_shared({f}));
  }
}

TEST_CASE("every shipped scenario's issue modes are what the SASS of its kernel issues") {
  Result<std::vector<SassFunction>> sass = parse_sass(read_file(committed_sass_path()));
  REQUIRE(sass.ok());
  int checked = 0;
  // assets/scenarios/fixed/: the layouts `bankscope-cli fix` chose, run by k_transpose_dyn.
  std::vector<std::filesystem::directory_entry> files;
  for (const char* dir : {"/assets/scenarios", "/assets/scenarios/fixed"}) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(BANKSCOPE_SOURCE_DIR) + dir)) files.push_back(e);
  }
  for (const auto& e : files) {
    if (e.path().extension() != ".json") continue;
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    const nlohmann::json j = nlohmann::json::parse(read_file(e.path().string()));
    const std::string symbol = symbol_for(j);
    if (symbol.empty()) continue;  // no kernel validate launches
    CAPTURE(symbol);
    const SassFunction* fn = find_symbol(sass.value(), symbol);
    REQUIRE(fn != nullptr);
    CHECK(check_issue(j, *fn) == "");
    ++checked;
  }
  // seed x2, 32x8 x2, double x2, float4 x2, xor, swizzle, dynamic_stride; issue 15: fast_shift
  // x4, fast_f4 64x128 and 128x128 (bench kernels validate launches by name), fast_sec x4; 4
  // fixed (the layouts `bankscope-cli fix` chose).
  CHECK(checked == 25);
}

TEST_CASE("check_issue fails when a scenario's issue field is wrong") {
  Result<std::vector<SassFunction>> sass = parse_sass(read_file(committed_sass_path()));
  REQUIRE(sass.ok());
  struct Row {
    const char* file;
    size_t access;
    const char* wrong;
    const char* error;
  };
  const Row rows[] = {
      // The STS is predicated: "branch" (the old default, 66 st instructions at N = 33) is wrong.
      {"tiled_32x8_32x33.json", 0, "branch",
       "st: the scenario says branch,branch,branch,branch, no code path"},
      {"seed_transpose_32x32.json", 1, "predicated",
       "ld: the scenario says predicated, no code path"},
      // The run-time-layout kernel's unswizzled path predicates only the first column read.
      {"dynamic_stride.json", 2, "predicated",
       "ld: the scenario says predicated,predicated,predicated,predicated"},
      // All four stores predicated is the unswizzled path; its loads are not all behind branches.
      {"tiled_32x8_swizzle.json", 1, "predicated",
       "ld: the scenario says branch,branch,branch,branch"},
  };
  for (const Row& r : rows) {
    const std::string file = r.file;
    CAPTURE(file);
    nlohmann::json j = nlohmann::json::parse(
        read_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/" + r.file));
    const SassFunction* fn = find_symbol(sass.value(), symbol_for(j));
    REQUIRE(fn != nullptr);
    REQUIRE(check_issue(j, *fn) == "");
    j["accesses"][r.access]["issue"] = r.wrong;
    const std::string err = check_issue(j, *fn);
    CAPTURE(err);
    CHECK(err.find(r.error) == 0);
  }
}
