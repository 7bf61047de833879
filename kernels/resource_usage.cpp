// resource_usage.cpp: see resource_usage.hpp.
#include "resource_usage.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>

#include "sim/json_io.hpp"

#ifndef BANKSCOPE_RESOURCE_USAGE_FILE
#define BANKSCOPE_RESOURCE_USAGE_FILE ""
#endif

namespace bankscope {

namespace {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

// The number after "KEY:" in a resource line, or -1.
int field(const std::string& line, const std::string& key) {
  const size_t at = line.find(key + ":");
  if (at == std::string::npos) return -1;
  return std::atoi(line.c_str() + at + key.size() + 1);
}

}  // namespace

std::string symbol_without_signature(const std::string& demangled) {
  std::string s = demangled;
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  // The parameter list is the last top-level "(...)": template arguments come before it.
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0) return s.substr(0, i);
  }
  return s;
}

Result<ResourceUsage> parse_resource_usage(const std::string& text, const std::string& source) {
  ResourceUsage u;
  u.source = source;
  std::istringstream in(text);
  std::string line, pending;
  while (std::getline(in, line)) {
    const size_t f = line.find("Function ");
    if (f != std::string::npos) {
      std::string name = line.substr(f + 9);
      while (!name.empty() && (name.back() == ':' || name.back() == '\r' || name.back() == ' '))
        name.pop_back();
      pending = symbol_without_signature(demangle(name));
      continue;
    }
    if (!pending.empty() && line.find("REG:") != std::string::npos) {
      CompiledFacts c;
      c.regs_per_thread = field(line, "REG");
      const int shared = field(line, "SHARED");
      c.static_smem_bytes = shared >= kReservedSharedInDump ? shared - kReservedSharedInDump : 0;
      // The same kernel in two objects (kernels.cu and bench.cu both instantiate a template) has
      // the same code: keep the first.
      u.by_symbol.emplace(pending, c);
      pending.clear();
    }
  }
  if (u.by_symbol.empty())
    return Error{source +
                 ": no \"Function\" entries: not the output of cuobjdump --dump-resource-usage"};
  return u;
}

Result<ResourceUsage> load_resource_usage(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_resource_usage(*text, path);
}

std::optional<CompiledFacts> find_compiled(const ResourceUsage& usage, const BenchKernel& k) {
  if (k.symbol.empty()) return std::nullopt;
  const auto it = usage.by_symbol.find(k.symbol);
  if (it == usage.by_symbol.end()) return std::nullopt;
  return it->second;
}

std::string default_resource_usage_path() {
  return BANKSCOPE_RESOURCE_USAGE_FILE;
}

}  // namespace bankscope
