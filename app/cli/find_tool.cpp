// find_tool.cpp: see find_tool.hpp.
#include "find_tool.hpp"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace bankscope {

namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// .venv/lib/python3.X/site-packages/nvidia/cuNN/bin/NAME (the PyPI nvidia-cuda-* wheels).
std::string find_in_venv(const fs::path& venv, const std::string& name) {
  std::error_code ec;
  if (!fs::is_directory(venv / "lib", ec)) return "";
  for (const auto& py : fs::directory_iterator(venv / "lib", ec)) {
    const fs::path nv = py.path() / "site-packages" / "nvidia";
    if (!fs::is_directory(nv, ec)) continue;
    for (const auto& pkg : fs::directory_iterator(nv, ec)) {
      if (executable(pkg.path() / "bin" / name)) return (pkg.path() / "bin" / name).string();
    }
  }
  return "";
}

}  // namespace

std::string find_tool(const std::string& name, const char* env) {
  if (const char* e = std::getenv(env); e != nullptr && *e != '\0') return executable(e) ? e : "";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty() && executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
    }
  }
  if (executable(fs::path("/usr/local/cuda/bin") / name)) return "/usr/local/cuda/bin/" + name;
  if (auto v = find_in_venv(".venv", name); !v.empty()) return v;
#ifdef BANKSCOPE_SOURCE_DIR
  if (auto v = find_in_venv(fs::path(BANKSCOPE_SOURCE_DIR) / ".venv", name); !v.empty()) return v;
#endif
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string self_dir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return fs::current_path().string();
  buf[n] = '\0';
  return fs::path(buf).parent_path().string();
}

}  // namespace bankscope
