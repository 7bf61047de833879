// sass_cmd.cpp: `bankscope-cli sass` and `bankscope-cli check --cu` (sass_cmd.hpp).
//
//   FILE.cu --nvcc -cubin -lineinfo -O3 -arch--> cubin --nvdisasm -g--> SASS text with
//   `//## File "...", line N` comments --parse_sass (sim/sass.hpp)--> shared instructions per line
//
// The compiled kernel is the ground truth for widths and instruction counts (HOUSE_STYLE 15):
// nvcc 13.0 turns four consecutive scalar shared loads into one LDS.128 (measured here on
// tests/data/sgemm_tile.cu), which a scenario transcribed from the source does not know.
// The tools are found by find_tool.hpp ($BANKSCOPE_NVCC / $BANKSCOPE_NVDISASM first).
#include "sass_cmd.hpp"

#include <cxxabi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "find_tool.hpp"
#include "sim/json_io.hpp"
#include "sim/sass.hpp"
#include "sim/scenario.hpp"

namespace fs = std::filesystem;

namespace bankscope::cli {

namespace {

constexpr int kExitBadInput = 1;

int fail(const std::string& msg) {
  std::cerr << "bankscope-cli: " << msg << "\n";
  return kExitBadInput;
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A temporary directory removed when it goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "bankscope-sass-XXXXXX").string();
    if (::mkdtemp(t.data()) != nullptr) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

bool kernel_matches(const std::string& want, const std::string& mangled) {
  if (want == mangled) return true;
  const std::string d = demangle(mangled);
  return want == d || want == d.substr(0, d.find('('));
}

struct Compiled {
  std::string nvcc_line;  // the command, as the header shows it
  std::vector<SassFunction> functions;
};

// FILE.cu -> the shared instructions of every function, or one line saying what failed.
Result<Compiled> compile_and_read(const SassArgs& a) {
  std::error_code ec;
  if (!fs::is_regular_file(a.cu, ec)) return Error{a.cu + ": cannot open"};
  const std::string nvcc = find_tool("nvcc", "BANKSCOPE_NVCC");
  if (nvcc.empty()) {
    return Error{"nvcc not found (looked at $BANKSCOPE_NVCC, PATH, /usr/local/cuda/bin, .venv); "
                 "`sass` and `check --cu` need the CUDA toolkit's nvcc"};
  }
  const std::string nvdisasm = find_tool("nvdisasm", "BANKSCOPE_NVDISASM");
  if (nvdisasm.empty()) {
    return Error{"nvdisasm not found (looked at $BANKSCOPE_NVDISASM, PATH, /usr/local/cuda/bin, "
                 ".venv); scripts/setup.sh installs it into .venv"};
  }
  TempDir tmp;
  if (tmp.path.empty()) return Error{"cannot create a temporary directory"};
  const fs::path cubin = tmp.path / "k.cubin", err = tmp.path / "nvcc.err", sass = tmp.path / "k.sass";
  Compiled out;
  out.nvcc_line = "nvcc -cubin -lineinfo -O3 -arch=" + a.arch;
  std::string cmd = shell_quote(nvcc) + " -cubin -lineinfo -O3 -arch=" + shell_quote(a.arch);
  for (const std::string& x : a.nvcc_args) {
    cmd += " " + shell_quote(x);
    out.nvcc_line += " " + x;
  }
  cmd += " -o " + shell_quote(cubin.string()) + " " + shell_quote(a.cu) + " >" + shell_quote(err.string()) + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    // nvcc's first error line ("k.cu(7): error: identifier "x" is undefined"), else its first line.
    std::stringstream ss(read_all(err));
    std::string line, first, first_error;
    while (std::getline(ss, line)) {
      if (first.empty() && !line.empty()) first = line;
      if (first_error.empty() && line.find("error") != std::string::npos) first_error = line;
    }
    return Error{a.cu + ": nvcc failed: " + (first_error.empty() ? first : first_error)};
  }
  cmd = shell_quote(nvdisasm) + " -g " + shell_quote(cubin.string()) + " >" + shell_quote(sass.string()) + " 2>" +
        shell_quote(err.string());
  if (std::system(cmd.c_str()) != 0) {
    std::string e = read_all(err);
    return Error{a.cu + ": nvdisasm failed: " + e.substr(0, e.find('\n'))};
  }
  auto fns = parse_sass(read_all(sass));
  if (!fns) return Error{a.cu + ": " + fns.error().message};
  out.functions = std::move(*fns);
  return out;
}

// The functions --kernel selects (all when empty), or an error listing the kernels there are.
Result<std::vector<const SassFunction*>> select(const std::vector<SassFunction>& fns, const SassArgs& a) {
  std::vector<const SassFunction*> out;
  for (const SassFunction& f : fns)
    if (a.kernel.empty() || kernel_matches(a.kernel, f.name)) out.push_back(&f);
  if (out.empty()) {
    std::string names;
    for (const SassFunction& f : fns) names += (names.empty() ? "" : ", ") + demangle(f.name);
    return Error{a.cu + ": no kernel '" + a.kernel + "' (it has: " + (names.empty() ? "none" : names) + ")"};
  }
  return out;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) || a == b;
}

std::vector<std::string> source_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream f(path);
  std::string l;
  while (std::getline(f, l)) lines.push_back(l);
  return lines;
}

std::string strip(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a);
}

// One group of identical instructions on one source line: "LDS.128 x8  16 B  unconditional".
struct Group {
  std::string opcode;
  int width = 0;
  std::string issue;  // sass_issue_name, with the guard when predicated
  bool in_loop = false;
  int count = 0;
};

std::string describe(const Group& g) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-14s x%-3d %2d B  %s%s", g.opcode.c_str(), g.count, g.width, g.issue.c_str(),
                g.in_loop ? ", in a SASS loop" : "");
  return buf;
}

// source line -> groups, in order of first appearance within the line.
std::map<int, std::vector<Group>> by_line(const SassFunction& f) {
  std::map<int, std::vector<Group>> out;
  for (const SassSharedInst& s : f.shared) {
    const std::string issue =
        std::string(sass_issue_name(s.issue)) + (s.guard.empty() ? "" : " " + s.guard);
    auto& gs = out[s.src_line];
    auto it = std::find_if(gs.begin(), gs.end(), [&](const Group& g) {
      return g.opcode == s.opcode && g.issue == issue && g.in_loop == s.in_loop;
    });
    if (it == gs.end()) {
      gs.push_back(Group{s.opcode, s.width, issue, s.in_loop, 1});
    } else {
      ++it->count;
    }
  }
  return out;
}

// What `check` matches a SASS instruction to: the scenario op ("ld", "st", "ldmatrix",
// "stmatrix"; "" = not checked) and a key that must agree: bytes per lane for LDS/STS, and for
// LDSM/STSM the matrix form, num + 8 * trans ("LDSM.16.M88.4" -> 4, "LDSM.16.MT88.2" -> 10).
std::string check_op(const std::string& base) {
  if (base == "LDS") return "ld";
  if (base == "STS") return "st";
  if (base == "LDSM") return "ldmatrix";
  if (base == "STSM") return "stmatrix";
  // ATOMS is not matched: nvcc 13 attributes atomicAdd's ATOMS to the CUDA header that inlines it
  // (sm_20_atomic_functions.hpp), not to the kernel's line (measured here), so an atom access
  // with a line is reported as "nvcc emits no ATOMS on line N".
  return "";
}
bool is_matrix_op(const std::string& op) { return op == "ldmatrix" || op == "stmatrix"; }
int matrix_key(int num, bool trans) { return num + (trans ? 8 : 0); }
int sass_key(const SassSharedInst& s) {
  if (s.base != "LDSM" && s.base != "STSM") return s.width;
  const size_t dot = s.opcode.rfind('.');
  const int num = dot == std::string::npos ? 0 : std::atoi(s.opcode.c_str() + dot + 1);
  return matrix_key(num, s.opcode.find(".MT88") != std::string::npos);
}
const char* sass_kind(const std::string& op) {
  return op == "ld" ? "LDS" : op == "st" ? "STS" : op == "ldmatrix" ? "LDSM" : op == "stmatrix" ? "STSM" : "ATOMS";
}
// "16 bytes", or "ldmatrix.x4.trans" for a matrix key.
std::string key_text(const std::string& op, int key) {
  if (!is_matrix_op(op)) return std::to_string(key) + " bytes";
  return op + ".x" + std::to_string(key & 7) + (key & 8 ? ".trans" : "");
}

}  // namespace

CLI::App* add_sass_command(CLI::App& app, SassArgs& a) {
  auto* c = app.add_subcommand("sass", "compile a .cu with nvcc and list its shared-memory instructions per source line");
  c->add_option("file", a.cu, "CUDA source file")->required();
  c->add_option("--kernel", a.kernel, "only this kernel (name as in the source, demangled, or mangled)");
  c->add_option("--arch", a.arch, "nvcc -arch (default sm_90)");
  c->add_option("nvcc_args", a.nvcc_args, "extra nvcc arguments, after --");
  return c;
}

CLI::App* add_check_command(CLI::App& app, SassArgs& a) {
  auto* c = app.add_subcommand(
      "check", "compare a scenario's accesses that carry a \"line\" with what nvcc emits on that line");
  c->add_option("scenario", a.scenario, "scenario JSON file")->required();
  c->add_option("--cu", a.cu, "the kernel's CUDA source")->required();
  c->add_option("--kernel", a.kernel, "the kernel (needed when the file has several with shared accesses)");
  c->add_option("--arch", a.arch, "nvcc -arch (default sm_90)");
  return c;
}

int run_sass(const SassArgs& a) {
  auto c = compile_and_read(a);
  if (!c) return fail(c.error().message);
  auto fns = select(c->functions, a);
  if (!fns) return fail(fns.error().message);
  const std::vector<std::string> src = source_lines(a.cu);
  std::cout << a.cu << ": " << c->nvcc_line << ", nvdisasm -g\n";
  for (const SassFunction* f : *fns) {
    std::cout << "\nkernel " << demangle(f->name) << "\n";
    if (f->shared.empty()) {
      std::cout << "  no shared-memory instructions\n";
      continue;
    }
    for (const auto& [line, groups] : by_line(*f)) {
      bool first = true;
      for (const Group& g : groups) {
        char head[32];
        if (first && line > 0) {
          std::snprintf(head, sizeof head, "  line %-4d ", line);
        } else {
          std::snprintf(head, sizeof head, "%s", first ? "  line ?    " : "            ");
        }
        std::cout << head << describe(g);
        if (first && line > 0 && line <= int(src.size())) std::cout << "  | " << strip(src[size_t(line) - 1]);
        std::cout << "\n";
        first = false;
      }
    }
    std::cout << "  " << f->shared.size() << " shared-memory instructions in the SASS (static count)\n";
  }
  return 0;
}

int run_check(const SassArgs& a) {
  auto spec = load_scenario_file(a.scenario);
  if (!spec) return fail(spec.error().message);
  auto sc = compile(*spec);
  if (!sc) return fail(a.scenario + ": " + sc.error().message);
  auto c = compile_and_read(a);
  if (!c) return fail(c.error().message);
  auto sel = select(c->functions, a);
  if (!sel) return fail(sel.error().message);
  const SassFunction* fn = nullptr;
  if (sel->size() == 1) {
    fn = sel->front();
  } else {
    std::string names;
    for (const SassFunction* f : *sel) {
      if (f->shared.empty()) continue;
      if (fn != nullptr) return fail(a.cu + ": several kernels have shared accesses; choose one with --kernel");
      fn = f;
    }
    if (fn == nullptr) return fail(a.cu + ": no kernel has shared-memory instructions");
  }

  // (source line, op) -> what nvcc emits there: width -> remaining static count, and the issue modes.
  struct Site {
    std::map<int, int> remaining;   // width -> count not yet matched to an access
    std::map<int, std::string> opcode;  // width -> an opcode of that width ("LDS.128")
    bool in_loop = false, predicated = false, branch = false;
    std::string guard;
  };
  std::map<std::pair<int, std::string>, Site> sites;  // width: sass_key()
  for (const SassSharedInst& s : fn->shared) {
    const std::string op = check_op(s.base);
    if (op.empty()) continue;
    if (!s.src_file.empty() && !same_file(s.src_file, a.cu)) continue;  // inlined from a header
    Site& site = sites[{s.src_line, op}];
    ++site.remaining[sass_key(s)];
    site.opcode.emplace(sass_key(s), s.opcode);
    site.in_loop |= s.in_loop;
    site.predicated |= s.issue == SassIssue::kPredicated;
    site.branch |= s.issue == SassIssue::kBranch;
    if (site.guard.empty()) site.guard = s.guard;
  }

  std::vector<std::string> problems;
  int checked = 0, unlined = 0;
  std::vector<size_t> pending;  // accesses whose (width, count) found no exact match
  auto site_of = [&](const AccessSpec& x) -> Site* {
    auto it = sites.find({x.line, x.op});
    return it == sites.end() ? nullptr : &it->second;
  };
  // Pass 1: accesses whose width and count nvcc emits exactly (in a SASS loop, a whole number
  // of iterations of its static count).
  for (size_t i = 0; i < spec->accesses.size(); ++i) {
    const AccessSpec& x = spec->accesses[i];
    if (x.line == 0) {
      ++unlined;
      continue;
    }
    ++checked;
    Site* site = site_of(x);
    const CompiledAccess& ca = sc->accesses[i];
    const int64_t n = ca.instructions_per_warp();
    const int key = is_matrix_op(x.op) ? matrix_key(ca.matrices, ca.trans) : ca.width;
    bool ok = false;
    if (site != nullptr) {
      auto it = site->remaining.find(key);
      if (it != site->remaining.end() && it->second > 0) {
        if (!site->in_loop && it->second >= n) {
          it->second -= int(n);
          ok = true;
        } else if (site->in_loop && n % it->second == 0) {
          it->second = 0;
          ok = true;
        }
      }
    }
    if (!ok) pending.push_back(i);

    // How nvcc issues a guarded access; an unguarded one is issued by every warp that gets there.
    if (site != nullptr && !x.guard.empty()) {
      const std::string want = x.issue.empty() ? "branch" : x.issue;
      const std::string got = site->predicated ? "predicated" : site->branch ? "branch" : "hoisted";
      if (want != got) {
        const char* how = got == "predicated" ? "predicates" : got == "branch" ? "branches around" : "hoists";
        problems.push_back(ca.where + " (line " + std::to_string(x.line) + "): scenario says issue \"" + want +
                           "\", nvcc " + how + " its " + sass_kind(x.op) +
                           (site->guard.empty() ? "" : " (" + site->guard + ")") + ": set \"issue\": \"" + got + "\"");
      }
    }
  }
  // Pass 2: what the unmatched accesses should say instead.
  for (size_t i : pending) {
    const AccessSpec& x = spec->accesses[i];
    const CompiledAccess& ca = sc->accesses[i];
    const int64_t n = ca.instructions_per_warp();
    const bool matrix = is_matrix_op(x.op);
    const int key = matrix ? matrix_key(ca.matrices, ca.trans) : ca.width;
    const std::string head = ca.where + " (line " + std::to_string(x.line) + "): scenario " +
                             (matrix || x.op == "atom" ? "issues " : x.op == "ld" ? "reads " : "writes ") + key_text(x.op, key) +
                             " x " + std::to_string(n) + " per warp";
    Site* site = site_of(x);
    const char* kind = sass_kind(x.op);
    if (site == nullptr) {
      problems.push_back(head + ", nvcc emits no " + kind + " on line " + std::to_string(x.line));
      continue;
    }
    // The remaining instructions of another width: the compiler merged (or split) the accesses.
    std::string emitted, fix;
    for (auto& [w, cnt] : site->remaining) {
      if (cnt == 0) continue;
      emitted += (emitted.empty() ? "" : ", ") + site->opcode[w] + " x " + std::to_string(cnt);
      if (matrix) {  // another matrix form on this line: the same count, another num or .trans
        const bool count_match = site->in_loop ? n % cnt == 0 : n == cnt;
        if (fix.empty() && count_match && w != key) {
          fix = std::string(": set \"num\": ") + std::to_string(w & 7) + ", \"trans\": " + (w & 8 ? "true" : "false");
          cnt = 0;
        }
        continue;
      }
      const bool bytes_match = site->in_loop ? (n * ca.width) % (int64_t(cnt) * w) == 0
                                             : n * ca.width == int64_t(cnt) * w;
      if (fix.empty() && bytes_match && w != ca.width) {
        fix = ": set width " + std::to_string(w);
        if (w > ca.width && w % ca.width == 0 && !ca.loops.empty() && x.loops.back().old_form()) {
          fix += " and step " + std::to_string(x.loops.back().step * (w / ca.width));
        }
        cnt = 0;
      }
    }
    if (emitted.empty()) emitted = "no more " + std::string(kind) + " than the other accesses on this line";
    problems.push_back(head + ", nvcc emits " + emitted + (site->in_loop ? " (in a SASS loop)" : "") + fix);
  }
  // Instructions on a scenario's line that no access accounts for.
  for (auto& [key, site] : sites) {
    bool mentioned = false;
    for (const AccessSpec& x : spec->accesses) mentioned |= x.line == key.first && x.op == key.second;
    if (!mentioned) continue;
    for (const auto& [w, cnt] : site.remaining) {
      if (cnt > 0 && !site.in_loop) {
        problems.push_back("line " + std::to_string(key.first) + ": nvcc emits " + std::to_string(cnt) + " more " +
                           site.opcode[w] + " than the scenario's accesses on this line");
      }
    }
  }

  std::cout << a.scenario << " against " << a.cu << " (kernel " << demangle(fn->name) << ", " << c->nvcc_line
            << "): " << checked << " access" << (checked == 1 ? "" : "es") << " with a line";
  if (unlined > 0) std::cout << ", " << unlined << " without (not checked)";
  std::cout << "\n";
  for (const std::string& p : problems) std::cout << p << "\n";
  if (checked == 0) return fail(a.scenario + ": no access has a \"line\"; nothing to check");
  std::cout << (problems.empty() ? "every access agrees with nvcc\n"
                                 : std::to_string(problems.size()) + " disagreement(s) with nvcc\n");
  return problems.empty() ? 0 : kExitBadInput;
}

}  // namespace bankscope::cli
