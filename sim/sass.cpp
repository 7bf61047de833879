// sass.cpp: SASS text -> shared-memory instructions per function, with how each is issued
// (sass.hpp). Two passes per function: read every instruction (address, guard, opcode, operands),
// then mark the regions conditional forward branches and predicated exits let a warp skip.
#include "sass.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

namespace bankscope {

const char* sass_issue_name(SassIssue i) {
  switch (i) {
    case SassIssue::kUnconditional:
      return "unconditional";
    case SassIssue::kPredicated:
      return "predicated";
    case SassIssue::kBranch:
      return "branch";
  }
  return "?";
}

bool is_shared_memory_opcode(const std::string& base) {
  return base == "LDS" || base == "STS" || base == "LDSM" || base == "STSM" || base == "ATOMS" ||
         base == "LDGSTS";
}

namespace {

struct Inst {
  uint64_t address = 0;
  std::string guard;  // "" for none or @PT
  std::string opcode, base, operands;
  int line = 0;
  std::string src_file;
  int src_line = 0;
};

struct RawFunction {
  std::string name;
  std::vector<Inst> insts;
  std::map<std::string, uint64_t> labels;   // nvdisasm ".L_x_3:" -> next address
  std::vector<std::string> pending_labels;  // labels waiting for their instruction
  std::string src_file;                     // the current `//## File` comment's
  int src_line = 0;
};

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool parse_hex(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return false;
    v = v * 16 + uint64_t(d);
  }
  *out = v;
  return true;
}

// "        /*05a0*/  @P0 STS.128 [R19], R4 ;  /* 0x... */" -> instruction; false for other lines
// (the encoding-only lines "/* 0x000fe4... */" have no hex address directly after "/*").
bool parse_instruction(const std::string& line, Inst* inst) {
  const std::string t = trim(line);
  if (t.size() < 5 || t.compare(0, 2, "/*") != 0) return false;
  const size_t close = t.find("*/");
  if (close == std::string::npos || !parse_hex(t.substr(2, close - 2), &inst->address))
    return false;
  std::string rest = trim(t.substr(close + 2));
  const size_t semi = rest.find(';');
  if (semi == std::string::npos) return false;
  rest = trim(rest.substr(0, semi));
  if (!rest.empty() && rest[0] == '@') {
    const size_t sp = rest.find_first_of(" \t");
    if (sp == std::string::npos) return false;
    const std::string g = rest.substr(0, sp);
    inst->guard = (g == "@PT" || g == "@UPT") ? "" : g;
    rest = trim(rest.substr(sp));
  }
  const size_t sp = rest.find_first_of(" \t");
  inst->opcode = rest.substr(0, sp);
  inst->operands = sp == std::string::npos ? "" : trim(rest.substr(sp));
  inst->base = inst->opcode.substr(0, inst->opcode.find('.'));
  return !inst->opcode.empty();
}

// Bytes per lane from the width suffix of LDS/STS/ATOMS ("LDS.U.128" -> 16, "STS.U8" -> 1).
int width_of(const std::string& base, const std::string& opcode) {
  if (base != "LDS" && base != "STS" && base != "ATOMS") return 0;
  int w = 4;
  std::stringstream ss(opcode);
  std::string part;
  std::getline(ss, part, '.');  // the base
  while (std::getline(ss, part, '.')) {
    if (part == "128")
      w = 16;
    else if (part == "64")
      w = 8;
    else if (part == "U8" || part == "S8")
      w = 1;
    else if (part == "U16" || part == "S16")
      w = 2;
  }
  return w;
}

// A BRA's target: the last "0x..." in its operands, or a "`(.L_x_3)" label; false if neither.
bool branch_target(const Inst& b, const std::map<std::string, uint64_t>& labels, uint64_t* target) {
  const size_t lab = b.operands.find("`(");
  if (lab != std::string::npos) {
    const size_t end = b.operands.find(')', lab);
    auto it = labels.find(
        b.operands.substr(lab + 2, end == std::string::npos ? std::string::npos : end - lab - 2));
    if (it == labels.end()) return false;
    *target = it->second;
    return true;
  }
  const size_t hex = b.operands.rfind("0x");
  if (hex == std::string::npos) return false;
  size_t end = hex + 2;
  while (end < b.operands.size() && std::isxdigit(static_cast<unsigned char>(b.operands[end])))
    ++end;
  return parse_hex(b.operands.substr(hex + 2, end - hex - 2), target);
}

// nvdisasm -g: `//## File "/tmp/k.cu", line 18` (an inlined call adds ` inlined at "...", line 7`:
// the first file and line are where the code comes from). False for any other line.
bool parse_line_info(const std::string& t, std::string* file, int* line) {
  if (t.compare(0, 10, "//## File ") != 0) return false;
  const size_t q1 = t.find('"');
  const size_t q2 = q1 == std::string::npos ? q1 : t.find('"', q1 + 1);
  if (q2 == std::string::npos) return false;
  const size_t ln = t.find(", line ", q2);
  if (ln == std::string::npos) return false;
  int v = 0;
  size_t i = ln + 7;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && v < 100000000; ++i)
    v = v * 10 + (t[i] - '0');
  if (i == ln + 7) return false;
  *file = t.substr(q1 + 1, q2 - q1 - 1);
  *line = v;
  return true;
}

SassFunction classify(const RawFunction& f) {
  // Skippable regions [from, to): after a conditional forward branch up to its target; after a
  // predicated EXIT to the end. A BRA is conditional when guarded or when it tests a predicate
  // operand ("BRA.U !UP0, 0x..." / "BRA.DIV UR4, 0x...": a comma before the target).
  std::vector<std::pair<uint64_t, uint64_t>> regions, loops;
  for (const Inst& i : f.insts) {
    if (i.base == "BRA") {
      const bool conditional = !i.guard.empty() || i.operands.find(',') != std::string::npos;
      uint64_t target = 0;
      const bool known = branch_target(i, f.labels, &target);
      if (conditional && known && target > i.address) {
        regions.push_back({i.address + 1, target});
      }
      if (known && target <= i.address) loops.push_back({target, i.address + 1});
    } else if (i.base == "EXIT" && !i.guard.empty()) {
      regions.push_back({i.address + 1, UINT64_MAX});
    }
  }
  SassFunction out;
  out.name = f.name;
  for (const Inst& i : f.insts) {
    if (!is_shared_memory_opcode(i.base)) continue;
    SassSharedInst s;
    s.address = i.address;
    s.opcode = i.opcode;
    s.base = i.base;
    s.guard = i.guard;
    s.width = width_of(i.base, i.opcode);
    s.line = i.line;
    s.src_file = i.src_file;
    s.src_line = i.src_line;
    for (const auto& r : loops) s.in_loop |= i.address >= r.first && i.address < r.second;
    for (const auto& r : regions)
      s.in_branch_region |= i.address >= r.first && i.address < r.second;
    s.issue = !i.guard.empty()     ? SassIssue::kPredicated
              : s.in_branch_region ? SassIssue::kBranch
                                   : SassIssue::kUnconditional;
    out.shared.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<std::vector<SassFunction>> parse_sass(const std::string& text) {
  std::vector<RawFunction> raw;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim(line);
    std::string file;
    int src_line = 0;
    if (parse_line_info(t, &file, &src_line)) {
      if (!raw.empty()) {
        raw.back().src_file = file;
        raw.back().src_line = src_line;
      }
      continue;
    }
    const size_t fn = t.find("Function : ");
    if (fn == 0) {  // cuobjdump: "Function : _ZN9bankscope..."
      raw.push_back(RawFunction{trim(t.substr(11)), {}, {}, {}, {}, 0});
      continue;
    }
    if (t.size() > 7 && t.compare(0, 6, ".text.") == 0 && t.back() == ':') {  // nvdisasm section
      raw.push_back(RawFunction{t.substr(6, t.size() - 7), {}, {}, {}, {}, 0});
      continue;
    }
    if (!raw.empty() && t.size() > 1 && t[0] == '.' && t.back() == ':' &&
        t.find(' ') == std::string::npos) {
      raw.back().pending_labels.push_back(t.substr(0, t.size() - 1));  // nvdisasm ".L_x_3:"
      continue;
    }
    Inst inst;
    if (!parse_instruction(line, &inst)) continue;
    if (raw.empty()) {
      return Error{"SASS line " + std::to_string(line_no) +
                   ": instruction before any \"Function :\" header"};
    }
    inst.line = line_no;
    inst.src_file = raw.back().src_file;
    inst.src_line = raw.back().src_line;
    for (const std::string& l : raw.back().pending_labels) raw.back().labels[l] = inst.address;
    raw.back().pending_labels.clear();
    raw.back().insts.push_back(std::move(inst));
  }
  if (raw.empty())
    return Error{"SASS text: no \"Function :\" header (is this cuobjdump -sass output?)"};
  std::vector<SassFunction> out;
  for (const RawFunction& f : raw) out.push_back(classify(f));
  return out;
}

std::string format_sass_shared(const std::vector<SassFunction>& functions) {
  std::string o;
  for (const SassFunction& f : functions) {
    o += "function " + f.name + "\n";
    for (const SassSharedInst& s : f.shared) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "  0x%04llx ", static_cast<unsigned long long>(s.address));
      o += buf + s.opcode + " " + sass_issue_name(s.issue) +
           (s.guard.empty() ? "" : " " + s.guard) + "\n";
    }
  }
  return o;
}

}  // namespace bankscope
