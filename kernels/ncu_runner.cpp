// ncu_runner.cpp: run Nsight Compute on a child bankscope-gpu and read its CSV (ncu_runner.hpp).
#include "ncu_runner.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

namespace bankscope {

namespace {

// One CSV line -> fields; double quotes group, "" is a literal quote.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_number(std::string s, double* out) {
  std::string t;
  for (char c : s)
    if (c != ',' && c != ' ') t += c;
  if (t.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

bool is_executable(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXUSR) != 0 && S_ISREG(st.st_mode);
}

}  // namespace

Result<std::vector<NcuKernel>> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int col_id = -1, col_name = -1, col_metric = -1, col_value = -1;
  std::vector<NcuKernel> kernels;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> f = split_csv(line);
    if (col_id < 0) {
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "ID") col_id = int(i);
        else if (f[i] == "Kernel Name") col_name = int(i);
        else if (f[i] == "Metric Name") col_metric = int(i);
        else if (f[i] == "Metric Value") col_value = int(i);
      }
      if (col_id < 0 || col_name < 0 || col_metric < 0 || col_value < 0) {
        return Error{"ncu output line " + std::to_string(line_no) +
                     ": CSV header lacks ID, Kernel Name, Metric Name or Metric Value"};
      }
      continue;
    }
    const int need = std::max(std::max(col_id, col_name), std::max(col_metric, col_value));
    if (int(f.size()) <= need) continue;
    double v = 0.0;
    if (!parse_number(f[col_value], &v)) {
      return Error{"ncu output line " + std::to_string(line_no) + ": metric " + f[col_metric] +
                   " has no numeric value (\"" + f[col_value] + "\")"};
    }
    if (kernels.empty() || kernels.back().id != f[col_id]) {
      kernels.push_back(NcuKernel{f[col_id], f[col_name], {}});
    }
    kernels.back().metrics[f[col_metric]] = v;
  }
  if (col_id < 0) return Error{"ncu printed no CSV report (no \"ID\" header line)"};
  return kernels;
}

Result<std::vector<NcuSourceKernel>> parse_ncu_source_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<NcuSourceKernel> kernels;
  int col_addr = -1, col_src = -1, col_exec = -1, col_wf = -1, col_ideal = -1;
  bool have_base = false;
  uint64_t base = 0;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> f = split_csv(line);
    if (f.size() >= 2 && f[0] == "Kernel Name") {
      kernels.push_back(NcuSourceKernel{f[1], {}});
      col_addr = -1;
      have_base = false;
      continue;
    }
    if (!f.empty() && f[0] == "Address") {
      col_addr = col_src = col_exec = col_wf = col_ideal = -1;
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "Address") col_addr = int(i);
        else if (f[i] == "Source") col_src = int(i);
        else if (f[i] == "Instructions Executed") col_exec = int(i);
        else if (f[i] == "L1 Wavefronts Shared") col_wf = int(i);
        else if (f[i] == "L1 Wavefronts Shared Ideal") col_ideal = int(i);
      }
      // A launch whose kernel has no shared-memory instruction gets a header without the shared
      // columns (CUB's device histogram on the H200, 2026-12-01c): its rows read 0 there. Only a
      // header without the address or the SASS text is unreadable.
      if (col_src < 0) {
        return Error{"ncu source view line " + std::to_string(line_no) + ": header lacks Source"};
      }
      continue;
    }
    if (col_addr < 0 || kernels.empty()) continue;
    const int need = std::max(col_addr, col_src);
    if (int(f.size()) <= need || f[col_addr].rfind("0x", 0) != 0) continue;
    const uint64_t addr = std::strtoull(f[col_addr].c_str(), nullptr, 16);
    if (!have_base) {
      base = addr;
      have_base = true;
    }
    NcuSourceInst inst;
    inst.offset = addr - base;
    inst.sass = f[col_src];
    inst.sass.erase(0, inst.sass.find_first_not_of(' '));
    // "-" or "" where a metric does not apply, or no such column: 0.
    auto value = [&](int col, double* out) {
      if (col < 0 || col >= int(f.size()) || !parse_number(f[col], out)) *out = 0;
    };
    value(col_exec, &inst.executed);
    value(col_wf, &inst.wavefronts);
    value(col_ideal, &inst.ideal);
    kernels.back().insts.push_back(std::move(inst));
  }
  return kernels;
}

namespace {

// "void f<(int)2>(const int *, float *)" and "void f<2>(int const*, float*)" -> "f".
std::string base_name(const std::string& name) {
  std::string n = name;
  if (n.rfind("void ", 0) == 0) n.erase(0, 5);
  const size_t end = n.find_first_of("(<");
  return end == std::string::npos ? n : n.substr(0, end);
}

bool same_table(const NcuSourceKernel& x, const NcuSourceKernel& y) {
  if (x.name != y.name || x.insts.size() != y.insts.size()) return false;
  for (size_t j = 0; j < x.insts.size(); ++j) {
    if (x.insts[j].offset != y.insts[j].offset || x.insts[j].wavefronts != y.insts[j].wavefronts ||
        x.insts[j].ideal != y.insts[j].ideal || x.insts[j].executed != y.insts[j].executed)
      return false;
  }
  return true;
}

}  // namespace

std::vector<size_t> align_source_tables(const std::vector<NcuSourceKernel>& tables,
                                        const std::vector<SourceLaunchKey>& launches) {
  const size_t nl = launches.size(), nt = tables.size();
  if (nt < nl) return {};
  const size_t extra = nt - nl;  // tables that repeat the one before them
  // best[l][r]: the highest score of launches l.. when r repeats were taken before launch l.
  constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;
  if ((nl + 1) * (extra + 1) > (size_t{1} << 26)) return {};
  std::vector<int64_t> best((nl + 1) * (extra + 1), kNone);
  auto at = [&](size_t l, size_t r) -> int64_t& { return best[l * (extra + 1) + r]; };
  at(nl, extra) = 0;
  auto score = [&](size_t l, size_t t) {
    const NcuSourceKernel& k = tables[t];
    int64_t s = base_name(k.name) == base_name(launches[l].kernel) ? int64_t{1} << 32 : 0;
    for (const NcuSourceInst& x : k.insts) {
      const auto it = launches[l].executions.find(x.offset);
      if (it != launches[l].executions.end() && static_cast<double>(it->second) == x.executed) ++s;
    }
    return s;
  };
  for (size_t l = nl; l-- > 0;) {
    for (size_t r = 0; r <= extra; ++r) {
      const size_t t = l + r;
      if (t >= nt) continue;
      int64_t v = kNone;
      if (at(l + 1, r) != kNone) v = at(l + 1, r);
      if (r < extra && t + 1 < nt && at(l + 1, r + 1) != kNone && same_table(tables[t], tables[t + 1])) {
        v = std::max(v, at(l + 1, r + 1));
      }
      if (v != kNone) at(l, r) = v + score(l, t);
    }
  }
  if (at(0, 0) == kNone) return {};
  std::vector<size_t> out;
  size_t r = 0;
  for (size_t l = 0; l < nl; ++l) {
    const size_t t = l + r;
    out.push_back(t);
    // Take the repeat when it scores as well: a launch printed twice is the usual case.
    const int64_t rest = at(l, r) - score(l, t);
    if (r < extra && t + 1 < nt && same_table(tables[t], tables[t + 1]) && at(l + 1, r + 1) == rest) ++r;
  }
  return out;
}

Result<std::vector<NcuKernel>> run_ncu(const std::string& ncu, const std::vector<std::string>& metrics,
                                       const std::string& exe, const std::vector<std::string>& args,
                                       std::string* log) {
  std::string joined;
  for (const std::string& m : metrics) joined += (joined.empty() ? "" : ",") + m;
  std::string cmd = shell_quote(ncu) +
                    " --csv --clock-control none --kernel-name-base demangled"
                    " --kernel-name regex:'bankscope::(k_|bench::fast_)' --metrics " + shell_quote(joined) + " " +
                    shell_quote(exe);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return Error{"cannot start ncu: " + cmd};
  std::string out;
  char buf[4096];
  size_t got = 0;
  while ((got = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  const int status = pclose(pipe);
  if (log != nullptr) *log = "$ " + cmd + "\n" + out;
  if (status != 0) {
    // ERR_NVGPUCTRPERM is ncu's own word for "counters not permitted".
    if (out.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      return Error{"ncu: GPU performance counters are not permitted (ERR_NVGPUCTRPERM): run as root "
                   "or set NVreg_RestrictProfilingToAdminUsers=0"};
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return Error{"ncu exited with status " + std::to_string(code) + " (command: " + cmd + ")"};
  }
  return parse_ncu_csv(out);
}

std::string find_ncu() {
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      const size_t end = p.find(':', start);
      const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && is_executable(dir + "/ncu")) return dir + "/ncu";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  if (is_executable("/usr/local/cuda/bin/ncu")) return "/usr/local/cuda/bin/ncu";
  return "";
}

}  // namespace bankscope
