// json_io.cpp: scenario files and JSONL patterns <-> value types, with errors that name the field.
#include "json_io.hpp"
#include "ldgsts.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

namespace bankscope {

using ojson = nlohmann::ordered_json;

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Helpers
// ---------------------------------------------------------------------------------------------

bool valid_utf8(const std::string& s, size_t* bad_offset) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
      extra = 1;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
    } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      *bad_offset = i;
      return false;
    }
    for (int k = 1; k <= extra; ++k) {
      if (i + static_cast<size_t>(k) >= n ||
          (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) {
        *bad_offset = i;
        return false;
      }
    }
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

// "line L, column C" of a byte offset.
std::string line_col(const std::string& text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace

int json_depth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

namespace {

const char* type_name(const ojson& j) {
  switch (j.type()) {
    case ojson::value_t::null: return "null";
    case ojson::value_t::boolean: return "a boolean";
    case ojson::value_t::string: return "a string";
    case ojson::value_t::array: return "an array";
    case ojson::value_t::object: return "an object";
    case ojson::value_t::number_float: return "a fractional number";
    default: return "a number";
  }
}

Result<int64_t> get_int(const ojson& j, const std::string& where, int64_t lo, int64_t hi) {
  if (!j.is_number_integer()) return Error{where + ": expected an integer, got " + type_name(j)};
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) {
    return Error{where + ": " + j.dump() + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi)};
  }
  const int64_t v = j.get<int64_t>();
  if (v < lo || v > hi) {
    return Error{where + ": " + std::to_string(v) + " is out of range " + std::to_string(lo) + ".." +
                 std::to_string(hi)};
  }
  return v;
}

Result<std::string> get_string(const ojson& j, const std::string& where) {
  if (!j.is_string()) return Error{where + ": expected a string, got " + type_name(j)};
  return j.get<std::string>();
}

Result<bool> check_keys(const ojson& obj, const std::string& where, std::initializer_list<const char*> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return Error{(where.empty() ? "" : where + ": ") + "unknown field '" + it.key() + "' (expected one of: " + list + ")"};
    }
  }
  return true;
}

Result<Dim3> get_dim3(const ojson& j, const std::string& where, int64_t lo, int64_t hi) {
  if (!j.is_array() || j.empty() || j.size() > 3) {
    return Error{where + ": expected an array of 1 to 3 integers, like [32, 8, 1]"};
  }
  int64_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < j.size(); ++i) {
    auto x = get_int(j[i], where + "[" + std::to_string(i) + "]", lo, hi);
    if (!x) return x.error();
    v[i] = *x;
  }
  return Dim3{v[0], v[1], v[2]};
}

#define BANKSCOPE_TRY(var, expr)          \
  auto var##_r = (expr);                  \
  if (!var##_r) return var##_r.error();   \
  auto var = std::move(*var##_r)

Result<ArraySpec> parse_array(const ojson& j, const std::string& where) {
  if (!j.is_object()) return Error{where + ": expected an object"};
  auto keys = check_keys(j, where, {"name", "type", "dims", "row_stride", "xor", "swizzle", "tma_swizzle", "offset", "comment"});
  if (!keys) return keys.error();
  ArraySpec a;
  if (j.contains("name")) {
    BANKSCOPE_TRY(name, get_string(j["name"], where + ".name"));
    a.name = name;
  }
  if (j.contains("type")) {
    BANKSCOPE_TRY(type, get_string(j["type"], where + ".type"));
    if (!parse_element_type(type)) {
      return Error{where + ".type: unknown element type '" + type +
                   "' (expected char, short, half, bfloat16, float, int, unsigned, half2, double, "
                   "long long, float2, float4 or int4)"};
    }
    a.type = type;
  }
  if (!j.contains("dims")) return Error{where + ": missing 'dims' (e.g. \"dims\": [32, 32])"};
  const ojson& d = j["dims"];
  if (!d.is_array() || d.empty() || d.size() > size_t(kMaxArrayRank)) {
    return Error{where + ".dims: expected 1 to 4 sizes, [cols] .. [d0, d1, d2, cols]"};
  }
  a.dims.clear();
  for (size_t i = 0; i < d.size(); ++i) {
    BANKSCOPE_TRY(v, get_int(d[i], where + ".dims[" + std::to_string(i) + "]", 1, 1 << 20));
    a.dims.push_back(v);
  }
  if (j.contains("row_stride")) {
    BANKSCOPE_TRY(v, get_int(j["row_stride"], where + ".row_stride", 1, 1 << 20));
    a.row_stride = v;
  }
  if (j.contains("offset")) {
    BANKSCOPE_TRY(v, get_int(j["offset"], where + ".offset", 0, kMaxSharedBytesPerBlockSm90));
    a.offset = v;
  }
  if (j.contains("xor")) {
    BANKSCOPE_TRY(v, get_int(j["xor"], where + ".xor", 0, 1 << 20));
    a.xor_mask = v;
  }
  if (j.contains("swizzle")) {
    const ojson& s = j["swizzle"];
    if (!s.is_array() || s.size() != 3) {
      return Error{where + ".swizzle: expected [B, M, S] as in cute::Swizzle<B, M, S>"};
    }
    int v[3];
    for (size_t i = 0; i < 3; ++i) {
      BANKSCOPE_TRY(x, get_int(s[i], where + ".swizzle[" + std::to_string(i) + "]", 0, 16));
      v[i] = static_cast<int>(x);
    }
    a.swizzle_bits = v[0];
    a.swizzle_base = v[1];
    a.swizzle_shift = v[2];
  }
  if (j.contains("tma_swizzle")) {
    BANKSCOPE_TRY(text, get_string(j["tma_swizzle"], where + ".tma_swizzle"));
    auto span = parse_tma_swizzle(text);
    if (!span) return with_context(where + ".tma_swizzle", span.error());
    a.tma_swizzle = *span;
  }
  return a;
}

// A number or an expression (string) as expression text.
Result<std::string> get_expr(const ojson& j, const std::string& where) {
  if (j.is_string()) return j.get<std::string>();
  BANKSCOPE_TRY(v, get_int(j, where, -(int64_t{1} << 31), (int64_t{1} << 31) - 1));
  return std::to_string(v);
}

// {"var", "begin", "end", "step"} (numbers: the old form, kept as numbers; expressions: turned
// into the new form) or {"var", "init", "cond", "update"}.
Result<LoopSpec> parse_loop(const ojson& j, const std::string& lw) {
  if (!j.is_object()) return Error{lw + ": expected an object"};
  auto lk = check_keys(j, lw, {"var", "begin", "end", "step", "init", "cond", "update", "comment"});
  if (!lk) return lk.error();
  LoopSpec l;
  l.path = lw;
  if (!j.contains("var")) return Error{lw + ": needs 'var'"};
  BANKSCOPE_TRY(var, get_string(j["var"], lw + ".var"));
  l.var = var;
  const bool old_keys = j.contains("begin") || j.contains("end") || j.contains("step");
  const bool new_keys = j.contains("init") || j.contains("cond") || j.contains("update");
  if (old_keys && new_keys) {
    return Error{lw + ": give either \"begin\", \"end\", \"step\" or \"init\", \"cond\", \"update\", not both"};
  }
  if (new_keys) {
    for (const char* k : {"init", "cond", "update"}) {
      if (!j.contains(k)) return Error{lw + ": needs '" + k + "' (for (int " + var + " = init; cond; update))"};
    }
    BANKSCOPE_TRY(init, get_expr(j["init"], lw + ".init"));
    BANKSCOPE_TRY(cond, get_string(j["cond"], lw + ".cond"));
    BANKSCOPE_TRY(update, get_string(j["update"], lw + ".update"));
    l.init = init;
    l.cond = cond;
    l.update = update;
    return l;
  }
  if (!j.contains("end")) return Error{lw + ": needs 'var' and 'end'"};
  const bool numbers = j["end"].is_number() && (!j.contains("begin") || j["begin"].is_number()) &&
                       (!j.contains("step") || j["step"].is_number());
  if (numbers) {
    if (j.contains("begin")) {
      BANKSCOPE_TRY(b, get_int(j["begin"], lw + ".begin", -(1 << 20), 1 << 20));
      l.begin = b;
    }
    BANKSCOPE_TRY(e, get_int(j["end"], lw + ".end", -(1 << 20), 1 << 20));
    l.end = e;
    if (j.contains("step")) {
      BANKSCOPE_TRY(st, get_int(j["step"], lw + ".step", 1, 1 << 20));
      l.step = st;
    }
    return l;
  }
  std::string begin = "0", step = "1";
  if (j.contains("begin")) {
    BANKSCOPE_TRY(b, get_expr(j["begin"], lw + ".begin"));
    begin = b;
  }
  BANKSCOPE_TRY(e, get_expr(j["end"], lw + ".end"));
  if (j.contains("step")) {
    BANKSCOPE_TRY(st, get_expr(j["step"], lw + ".step"));
    step = st;
  }
  l.init = begin;
  l.cond = var + " < (" + e + ")";
  l.update = var + " += " + step;
  return l;
}

Result<ojson> loop_to_json(const LoopSpec& l) {
  if (l.old_form()) return ojson{{"var", l.var}, {"begin", l.begin}, {"end", l.end}, {"step", l.step}};
  return ojson{{"var", l.var}, {"init", l.init}, {"cond", l.cond}, {"update", l.update}};
}

Result<AccessSpec> parse_access(const ojson& j, const std::string& where) {
  if (!j.is_object()) return Error{where + ": expected an object"};
  auto keys = check_keys(j, where,
                         {"op", "target", "if", "loops", "width", "label", "issue", "line",
                          "comment", "num", "trans", "atom"});
  if (!keys) return keys.error();
  AccessSpec a;
  a.path = where;
  if (!j.contains("op"))
    return Error{where + ": missing 'op' (\"ld\", \"st\", \"ldmatrix\", \"stmatrix\" or \"atom\")"};
  BANKSCOPE_TRY(op, get_string(j["op"], where + ".op"));
  if (op != "ld" && op != "st" && op != "ldmatrix" && op != "stmatrix" && op != "atom") {
    return Error{where + ".op: '" + op +
                 "' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\" or \"atom\""};
  }
  a.op = op;
  // The issue-11 kinds' own fields; each is refused on a kind it does not belong to, so a typo
  // cannot silently change nothing.
  const bool matrix = op == "ldmatrix" || op == "stmatrix";
  if (matrix) {
    if (j.contains("width")) {
      return Error{where + ".width: " + op +
                   " rows are always 16 bytes (8 b16 elements); give no width"};
    }
    if (!j.contains("num"))
      return Error{where + ": missing 'num' (1, 2 or 4 matrices: .x1, .x2, .x4)"};
    BANKSCOPE_TRY(n, get_int(j["num"], where + ".num", 1, 4));
    if (n == 3) return Error{where + ".num: 3 must be 1, 2 or 4 (.x1, .x2, .x4)"};
    a.num = static_cast<int>(n);
    if (j.contains("trans")) {
      if (!j["trans"].is_boolean()) {
        return Error{where + ".trans: expected true or false, got " +
                     std::string(type_name(j["trans"]))};
      }
      a.trans = j["trans"].get<bool>();
    }
  } else {
    for (const char* k : {"num", "trans"}) {
      if (j.contains(k))
        return Error{where + "." + k + ": only for \"ldmatrix\" and \"stmatrix\", not \"" + op +
                     "\""};
    }
  }
  if (op == "atom") {
    if (!j.contains("atom"))
      return Error{where + ": missing 'atom' (" + kAtomNames + ")"};
    BANKSCOPE_TRY(at, get_string(j["atom"], where + ".atom"));
    AtomOp parsed;
    if (!atom_from_name(at, &parsed)) return Error{where + ".atom: '" + at + "' must be " + kAtomNames};
    a.atom = at;
  } else if (j.contains("atom")) {
    return Error{where + ".atom: only for \"op\": \"atom\", not \"" + op + "\""};
  }
  if (!j.contains("target")) return Error{where + ": missing 'target' (e.g. \"tile[threadIdx.y][threadIdx.x]\")"};
  BANKSCOPE_TRY(target, get_string(j["target"], where + ".target"));
  a.target = target;
  if (j.contains("if")) {
    BANKSCOPE_TRY(g, get_string(j["if"], where + ".if"));
    a.guard = g;
  }
  if (j.contains("label")) {
    BANKSCOPE_TRY(l, get_string(j["label"], where + ".label"));
    a.label = l;
  }
  if (j.contains("issue")) {
    BANKSCOPE_TRY(is, get_string(j["issue"], where + ".issue"));
    if (is != "branch" && is != "predicated" && is != "hoisted") {
      return Error{where + ".issue: '" + is + "' must be \"branch\", \"predicated\" or \"hoisted\""};
    }
    a.issue = is;
  }
  if (j.contains("width")) {
    BANKSCOPE_TRY(w, get_int(j["width"], where + ".width", 1, 16));
    a.width = static_cast<int>(w);
  }
  if (j.contains("line")) {
    BANKSCOPE_TRY(ln, get_int(j["line"], where + ".line", 1, 1 << 24));
    a.line = static_cast<int>(ln);
  }
  if (j.contains("loops")) {
    const ojson& ls = j["loops"];
    if (!ls.is_array()) return Error{where + ".loops: expected an array of {\"var\", \"begin\", \"end\", \"step\"}"};
    for (size_t i = 0; i < ls.size(); ++i) {
      BANKSCOPE_TRY(l, parse_loop(ls[i], where + ".loops[" + std::to_string(i) + "]"));
      a.loops.push_back(l);
    }
  }
  return a;
}

// An entry of "accesses" (or of a "body"): an access, or {"loop", "defines", "body"}. Bodies are
// flattened into statements whose leading loops carry the body's id (LoopSpec::body), so that the
// model runs them interleaved, and whose `path` names the entry for errors.
Result<bool> parse_entries(const ojson& arr, const std::string& where, const std::vector<LoopSpec>& outer,
                           int* next_body, std::vector<AccessSpec>* out) {
  if (!arr.is_array()) return Error{where + ": expected an array of objects"};
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string ew = where + "[" + std::to_string(i) + "]";
    const ojson& e = arr[i];
    if (e.is_object() && (e.contains("loop") || e.contains("body"))) {
      auto keys = check_keys(e, ew, {"loop", "body", "defines", "comment"});
      if (!keys) return keys.error();
      if (!e.contains("loop") || !e.contains("body")) return Error{ew + ": a loop entry needs 'loop' and 'body'"};
      BANKSCOPE_TRY(l, parse_loop(e["loop"], ew + ".loop"));
      l.body = (*next_body)++;
      if (e.contains("defines")) {
        const ojson& d = e["defines"];
        if (!d.is_object()) return Error{ew + ".defines: expected an object of name: expression"};
        for (auto it = d.begin(); it != d.end(); ++it) {
          BANKSCOPE_TRY(v, get_string(it.value(), ew + ".defines." + it.key()));
          l.defines.emplace_back(it.key(), v);
        }
      }
      if (!e["body"].is_array() || e["body"].empty()) return Error{ew + ".body: expected a non-empty array of entries"};
      std::vector<LoopSpec> inner = outer;
      inner.push_back(l);
      BANKSCOPE_TRY(ok, parse_entries(e["body"], ew + ".body", inner, next_body, out));
      (void)ok;
      continue;
    }
    BANKSCOPE_TRY(a, parse_access(e, ew));
    a.loops.insert(a.loops.begin(), outer.begin(), outer.end());
    out->push_back(a);
  }
  return true;
}

// The inverse: statements [lo, hi) from loop depth `depth` as entries.
ojson entries_to_json(const std::vector<AccessSpec>& acc, size_t lo, size_t hi, size_t depth) {
  ojson out = ojson::array();
  for (size_t i = lo; i < hi;) {
    const AccessSpec& a = acc[i];
    if (depth < a.loops.size() && a.loops[depth].body >= 0) {
      const LoopSpec& l = a.loops[depth];
      size_t j = i + 1;
      while (j < hi && acc[j].loops.size() > depth && acc[j].loops[depth].body == l.body) ++j;
      ojson e;
      e["loop"] = *loop_to_json(l);
      if (!l.defines.empty()) {
        ojson d = ojson::object();
        for (const auto& [k, v] : l.defines) d[k] = v;
        e["defines"] = d;
      }
      e["body"] = entries_to_json(acc, i, j, depth + 1);
      out.push_back(e);
      i = j;
      continue;
    }
    ojson ja;
    ja["op"] = a.op;
    if (a.num != 0) ja["num"] = a.num;
    if (a.num != 0) ja["trans"] = a.trans;
    if (!a.atom.empty()) ja["atom"] = a.atom;
    ja["target"] = a.target;
    if (!a.guard.empty()) ja["if"] = a.guard;
    if (a.loops.size() > depth) {
      ja["loops"] = ojson::array();
      for (size_t k = depth; k < a.loops.size(); ++k) ja["loops"].push_back(*loop_to_json(a.loops[k]));
    }
    if (a.width != 0) ja["width"] = a.width;
    if (!a.label.empty()) ja["label"] = a.label;
    if (!a.issue.empty() && a.issue != "branch") ja["issue"] = a.issue;
    if (a.line != 0) ja["line"] = a.line;
    out.push_back(ja);
    ++i;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Files
// ---------------------------------------------------------------------------------------------

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open (" + std::strerror(errno) + ")"};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{path + ": read failed"};
  std::string text = ss.str();
  size_t bad = 0;
  if (!valid_utf8(text, &bad)) {
    return Error{path + ": " + line_col(text, bad) + ": the file is not valid UTF-8"};
  }
  return text;
}

Result<bool> save_text_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Error{path + ": cannot save (" + std::strerror(errno) + "); the old file is untouched"};
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  const int saved_errno = errno;
  std::fclose(f);
  if (!wrote || !flushed) {
    std::remove(tmp.c_str());
    return Error{path + ": cannot save (" + std::strerror(saved_errno) + "); the old file is untouched"};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return Error{path + ": cannot save (" + std::strerror(e) + "); the old file is untouched"};
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Scenarios
// ---------------------------------------------------------------------------------------------

Result<ScenarioSpec> parse_scenario_json(const std::string& text, const std::string& source) {
  const std::string src = source.empty() ? "<scenario>" : source;
  size_t bad = 0;
  if (!valid_utf8(text, &bad)) return Error{src + ": " + line_col(text, bad) + ": not valid UTF-8"};
  if (json_depth(text) > kMaxJsonDepth) {
    return Error{src + ": invalid JSON: nested more than " + std::to_string(kMaxJsonDepth) + " levels"};
  }
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const ojson::parse_error& e) {
    std::string what = e.what();
    const size_t p = what.find("parse error");
    if (p != std::string::npos) {
      const size_t colon = what.find(": ", p);
      if (colon != std::string::npos) what = what.substr(colon + 2);
    }
    return Error{src + ": " + line_col(text, e.byte == 0 ? 0 : e.byte - 1) + ": invalid JSON: " + what};
  } catch (const ojson::exception& e) {  // e.g. out_of_range for a number like 1e999
    return Error{src + ": invalid JSON: " + e.what()};
  }
  auto fail = [&](const Error& e) { return with_context(src, e); };
  if (!j.is_object()) return fail(Error{"the top level must be an object"});
  auto keys = check_keys(j, "", {"name", "description", "gpu_kernel", "n", "block", "grid", "tile", "params",
                                 "extern", "arrays", "defines", "accesses", "banks", "comment"});
  if (!keys) return fail(keys.error());
  ScenarioSpec s;
  s.arrays.clear();
  if (j.contains("name")) {
    auto v = get_string(j["name"], "name");
    if (!v) return fail(v.error());
    s.name = *v;
  }
  if (j.contains("description")) {
    auto v = get_string(j["description"], "description");
    if (!v) return fail(v.error());
    s.description = *v;
  }
  if (j.contains("gpu_kernel")) {
    auto v = get_string(j["gpu_kernel"], "gpu_kernel");
    if (!v) return fail(v.error());
    s.gpu_kernel = *v;
  }
  // No silent default: a file without "n" gets n = 2048 (what older files relied on) and the
  // spec says so, for every output to show (ScenarioSpec::n_defaulted).
  s.n_defaulted = !j.contains("n");
  if (j.contains("n")) {
    auto v = get_int(j["n"], "n", 1, int64_t{1} << 31);
    if (!v) return fail(v.error());
    s.n = *v;
  }
  if (j.contains("params")) {
    const ojson& p = j["params"];
    if (!p.is_object()) return fail(Error{"params: expected an object of name: integer"});
    for (auto it = p.begin(); it != p.end(); ++it) {
      auto v = get_int(it.value(), "params." + it.key(), INT32_MIN, INT32_MAX);
      if (!v) return fail(v.error());
      s.params.emplace_back(it.key(), *v);
    }
  }
  if (j.contains("extern")) {
    const ojson& e = j["extern"];
    if (!e.is_object()) return fail(Error{"extern: expected {\"bytes\": N}"});
    auto ek = check_keys(e, "extern", {"bytes", "comment"});
    if (!ek) return fail(ek.error());
    if (!e.contains("bytes")) return fail(Error{"extern: missing 'bytes' (the extern __shared__ buffer's size)"});
    auto v = get_int(e["bytes"], "extern.bytes", 1, kMaxSharedBytesPerBlockSm90);
    if (!v) return fail(v.error());
    s.extern_bytes = *v;
  }
  if (!j.contains("block")) return fail(Error{"missing 'block' (threads per block, e.g. [32, 8])"});
  auto block = get_dim3(j["block"], "block", 1, 1024);
  if (!block) return fail(block.error());
  s.block = *block;
  if (j.contains("grid")) {
    // Sizes, or expressions of n, blockDim and params (strings); one string makes them all
    // expressions (compile() evaluates them).
    const ojson& jg = j["grid"];
    bool exprs = false;
    if (jg.is_array()) {
      for (const ojson& e : jg) exprs = exprs || e.is_string();
    }
    if (exprs) {
      if (jg.empty() || jg.size() > 3) return fail(Error{"grid: expected an array of 1 to 3 sizes or expressions"});
      for (size_t i = 0; i < jg.size(); ++i) {
        if (jg[i].is_string()) {
          s.grid_expr.push_back(jg[i].get<std::string>());
        } else {
          auto x = get_int(jg[i], "grid[" + std::to_string(i) + "]", 1, 2147483647);
          if (!x) return fail(x.error());
          s.grid_expr.push_back(std::to_string(*x));
        }
      }
    } else {
      auto g = get_dim3(jg, "grid", 1, 2147483647);
      if (!g) return fail(g.error());
      s.grid = *g;
    }
  }
  if (j.contains("tile")) {
    auto t = get_dim3(j["tile"], "tile", 1, 1 << 20);
    if (!t) return fail(t.error());
    s.tile = *t;
  }
  if (!j.contains("arrays")) return fail(Error{"missing 'arrays' (the __shared__ declarations)"});
  if (!j["arrays"].is_array()) return fail(Error{"arrays: expected an array of objects"});
  for (size_t i = 0; i < j["arrays"].size(); ++i) {
    auto a = parse_array(j["arrays"][i], "arrays[" + std::to_string(i) + "]");
    if (!a) return fail(a.error());
    s.arrays.push_back(*a);
  }
  if (j.contains("defines")) {
    const ojson& d = j["defines"];
    if (!d.is_object()) return fail(Error{"defines: expected an object of name: expression"});
    for (auto it = d.begin(); it != d.end(); ++it) {
      auto v = get_string(it.value(), "defines." + it.key());
      if (!v) return fail(v.error());
      s.defines.emplace_back(it.key(), *v);
    }
  }
  if (!j.contains("accesses")) return fail(Error{"missing 'accesses'"});
  if (!j["accesses"].is_array()) return fail(Error{"accesses: expected an array of objects"});
  int next_body = 0;
  auto entries = parse_entries(j["accesses"], "accesses", {}, &next_body, &s.accesses);
  if (!entries) return fail(entries.error());
  if (j.contains("banks")) {
    const ojson& b = j["banks"];
    if (!b.is_object()) return fail(Error{"banks: expected {\"count\": 32, \"bytes\": 4}"});
    auto bk = check_keys(b, "banks", {"count", "bytes"});
    if (!bk) return fail(bk.error());
    if (b.contains("count")) {
      auto v = get_int(b["count"], "banks.count", 1, 64);
      if (!v) return fail(v.error());
      s.banks.banks = static_cast<int>(*v);
    }
    if (b.contains("bytes")) {
      auto v = get_int(b["bytes"], "banks.bytes", 4, 8);
      if (!v) return fail(v.error());
      s.banks.bank_bytes = static_cast<int>(*v);
    }
  }
  // Semantic checks (expressions, sizes) with the same file prefix.
  auto compiled = compile(s);
  if (!compiled) return fail(compiled.error());
  return s;
}

Result<ScenarioSpec> load_scenario_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_scenario_json(*text, path);
}

ojson scenario_to_json(const ScenarioSpec& s) {
  ojson j;
  j["name"] = s.name;
  if (!s.description.empty()) j["description"] = s.description;
  if (!s.gpu_kernel.empty()) j["gpu_kernel"] = s.gpu_kernel;
  if (s.n != 0 && !s.n_defaulted) j["n"] = s.n;
  if (!s.params.empty()) {
    ojson p = ojson::object();
    for (const auto& [k, v] : s.params) p[k] = v;
    j["params"] = p;
  }
  if (s.extern_bytes >= 0) j["extern"] = {{"bytes", s.extern_bytes}};
  j["block"] = {s.block.x, s.block.y, s.block.z};
  if (!s.grid_expr.empty()) {
    j["grid"] = ojson::array();
    for (const std::string& e : s.grid_expr) j["grid"].push_back(e);
  } else if (!(s.grid.x == 0 && s.grid.y == 0 && s.grid.z == 0)) {
    j["grid"] = {s.grid.x, s.grid.y, s.grid.z};
  }
  j["tile"] = {s.tile.x, s.tile.y};
  j["arrays"] = ojson::array();
  for (const ArraySpec& a : s.arrays) {
    ojson ja;
    ja["name"] = a.name;
    ja["type"] = a.type;
    ja["dims"] = a.dims;
    if (a.row_stride != 0) ja["row_stride"] = a.row_stride;
    if (a.xor_mask != 0) ja["xor"] = a.xor_mask;
    if (a.swizzle_bits != 0) ja["swizzle"] = {a.swizzle_bits, a.swizzle_base, a.swizzle_shift};
    if (a.tma_swizzle != 0) ja["tma_swizzle"] = tma_swizzle_name(a.tma_swizzle);
    if (a.offset >= 0) ja["offset"] = a.offset;
    j["arrays"].push_back(ja);
  }
  if (!s.defines.empty()) {
    ojson d = ojson::object();
    for (const auto& [k, v] : s.defines) d[k] = v;
    j["defines"] = d;
  }
  j["accesses"] = entries_to_json(s.accesses, 0, s.accesses.size(), 0);
  if (!s.banks.is_default()) j["banks"] = {{"count", s.banks.banks}, {"bytes", s.banks.bank_bytes}};
  return j;
}

Result<bool> save_scenario_file(const std::string& path, const ScenarioSpec& spec) {
  auto c = compile(spec);
  if (!c) return with_context(path + ": not saved", c.error());
  return save_text_file_atomic(path, scenario_to_json(spec).dump(2) + "\n");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] JSONL patterns
// ---------------------------------------------------------------------------------------------

Result<Pattern> parse_pattern_object(const ojson& j) {
  if (!j.is_object()) return Error{std::string("expected a JSON object, got ") + type_name(j)};
  Pattern p;
  p.object = j;
  WarpAccess& a = p.access;
  if (!j.contains("op")) {
    return Error{"missing 'op' (\"ld\", \"st\", \"ldmatrix\", \"stmatrix\", \"atom\" or \"ldgsts\")"};
  }
  auto op = get_string(j["op"], "op");
  if (!op) return op.error();
  if (*op == "ld") {
    a.op = Op::kLoad;
  } else if (*op == "st") {
    a.op = Op::kStore;
  } else if (*op == "ldmatrix") {
    a.op = Op::kLdmatrix;
  } else if (*op == "stmatrix") {
    a.op = Op::kStmatrix;
  } else if (*op == "atom") {
    a.op = Op::kAtomic;
  } else if (*op == "ldgsts") {
    a.op = Op::kLdgsts;
  } else {
    return Error{"op: '" + printable(*op) + "' must be \"ld\", \"st\", \"ldmatrix\", \"stmatrix\", \"atom\" or \"ldgsts\""};
  }
  if (is_matrix(a.op)) {
    // One 16-byte row per lane; "width" may be given but must say so.
    a.width = 16;
    if (j.contains("width")) {
      auto w = get_int(j["width"], "width", 16, 16);
      if (!w) return Error{w.error().message + " (" + *op + " rows are 16 bytes)"};
    }
    if (!j.contains("num")) return Error{"missing 'num' (1, 2 or 4 matrices: .x1, .x2, .x4)"};
    auto n = get_int(j["num"], "num", 1, 4);
    if (!n) return n.error();
    if (*n == 3) return Error{"num: 3 must be 1, 2 or 4 (.x1, .x2, .x4)"};
    a.matrices = static_cast<int>(*n);
    if (j.contains("trans")) {
      if (!j["trans"].is_boolean()) return Error{std::string("trans: expected true or false, got ") + type_name(j["trans"])};
      a.trans = j["trans"].get<bool>();
    }
  } else {
    if (!j.contains("width")) {
      return Error{a.op == Op::kAtomic   ? "missing 'width' (4 or 8)"
                   : a.op == Op::kLdgsts ? "missing 'width' (4, 8 or 16)"
                                         : "missing 'width' (1, 2, 4, 8 or 16)"};
    }
    auto w = get_int(j["width"], "width", 1, 16);
    if (!w) return w.error();
    a.width = static_cast<int>(*w);
  }
  if (a.op == Op::kAtomic) {
    if (!j.contains("atom")) return Error{std::string("missing 'atom' (") + kAtomNames + ")"};
    auto at = get_string(j["atom"], "atom");
    if (!at) return at.error();
    if (!atom_from_name(*at, &a.atom)) return Error{"atom: '" + printable(*at) + "' must be " + kAtomNames};
  }
  if (a.op == Op::kLdgsts && j.contains("cache")) {
    auto c = get_string(j["cache"], "cache");
    if (!c) return c.error();
    if (*c == "cg") a.bypass_l1 = true;
    else if (*c != "ca") return Error{"cache: '" + printable(*c) + "' must be \"ca\" or \"cg\""};
  }
  a.mask = 0xffffffffu;
  if (j.contains("mask")) {
    const ojson& m = j["mask"];
    uint64_t v = 0;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
      const size_t start = hex ? 2 : 0;
      if (s.size() == start || s.size() - start > (hex ? 16u : 20u)) {
        return Error{"mask: '" + printable(s) + "' is not a 32-bit mask"};
      }
      for (size_t i = start; i < s.size(); ++i) {
        const char c = s[i];
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return Error{"mask: '" + printable(s) + "' is not a number"};
        v = v * (hex ? 16 : 10) + static_cast<uint64_t>(d);
        if (v > 0xffffffffull) return Error{"mask: \"" + s + "\" is wider than 32 bits"};
      }
    } else if (m.is_number_unsigned() || (m.is_number_integer() && m.get<int64_t>() >= 0)) {
      v = m.get<uint64_t>();
    } else {
      return Error{std::string("mask: expected a hex string or a non-negative integer, got ") + type_name(m)};
    }
    if (v > 0xffffffffull) return Error{"mask: " + m.dump() + " is wider than 32 bits"};
    a.mask = static_cast<uint32_t>(v);
  }
  if (!j.contains("offsets")) return Error{"missing 'offsets' (32 byte offsets, lane 0 first)"};
  const ojson& o = j["offsets"];
  if (!o.is_array() || o.size() != kWarpSize) {
    return Error{"offsets: expected an array of exactly 32 byte offsets, got " +
                 (o.is_array() ? std::to_string(o.size()) + " entries" : std::string(type_name(o)))};
  }
  for (int lane = 0; lane < kWarpSize; ++lane) {
    auto v = get_int(o[static_cast<size_t>(lane)], "offsets[" + std::to_string(lane) + "]", 0,
                     kMaxSharedBytesPerBlockSm90 - 1);
    if (!v) return v.error();
    a.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(*v);
  }
  auto ok = validate(a, BankConfig{});
  if (!ok) return ok.error();
  for (int lane = 0; lane < kWarpSize; ++lane) p.src[static_cast<size_t>(lane)] = uint32_t(lane) * uint32_t(a.width);
  if (j.contains("src")) {
    if (a.op != Op::kLdgsts) return Error{"src: only an ldgsts (cp.async) pattern has global source offsets"};
    const ojson& s = j["src"];
    if (!s.is_array() || s.size() != kWarpSize) {
      return Error{"src: expected an array of exactly 32 global byte offsets, got " +
                   (s.is_array() ? std::to_string(s.size()) + " entries" : std::string(type_name(s)))};
    }
    for (int lane = 0; lane < kWarpSize; ++lane) {
      auto v = get_int(s[static_cast<size_t>(lane)], "src[" + std::to_string(lane) + "]", 0, kMaxLdgstsSourceBytes - 1);
      if (!v) return v.error();
      // Documented (PTX ISA, cp.async): the source must be aligned to the copy size; only lanes
      // that copy are checked (an inactive lane's source is never read).
      if (((a.mask >> lane) & 1u) && *v % a.width != 0) {
        return Error{"src[" + std::to_string(lane) + "]: global byte offset " + std::to_string(*v) + " is not " +
                     std::to_string(a.width) + "-byte aligned (the GPU faults with \"misaligned address\")"};
      }
      p.src[static_cast<size_t>(lane)] = static_cast<uint32_t>(*v);
    }
    p.src_given = true;
  }
  if (j.contains("l2_prefetch")) {
    if (a.op != Op::kLdgsts) return Error{"l2_prefetch: only an ldgsts (cp.async) pattern has an L2 prefetch hint"};
    auto v = get_int(j["l2_prefetch"], "l2_prefetch", 0, 256);
    if (!v) return v.error();
    if (*v != 0 && *v != 64 && *v != 128 && *v != 256) {
      return Error{"l2_prefetch: " + std::to_string(*v) + " must be 0, 64, 128 or 256 (bytes, PTX .L2::<n>B)"};
    }
    p.l2_prefetch = static_cast<int>(*v);
  }
  return p;
}

Result<Pattern> parse_pattern_line(const std::string& line) {
  size_t bad = 0;
  if (!valid_utf8(line, &bad)) return Error{"not valid UTF-8 at byte " + std::to_string(bad + 1)};
  if (json_depth(line) > kMaxJsonDepth) {
    return Error{"invalid JSON: nested more than " + std::to_string(kMaxJsonDepth) + " levels"};
  }
  ojson j;
  try {
    j = ojson::parse(line);
  } catch (const ojson::parse_error& e) {
    return Error{"invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what()};
  } catch (const ojson::exception& e) {  // e.g. out_of_range for a number like 1e999
    return Error{std::string("invalid JSON: ") + e.what()};
  }
  return parse_pattern_object(j);
}

ojson predict_pattern(const Pattern& p, const BankConfig& cfg, bool sass) {
  ojson out = p.object;
  // R9: cp.async's cost depends on the per-lane global sources ("src"), which the access lacks.
  const bool ldgsts = p.access.op == Op::kLdgsts && cfg.is_default();
  const AccessCost c = ldgsts ? ldgsts_cost(p.access, p.src) : cost(p.access, cfg);
  out["wavefronts"] = c.wavefronts;
  out["bank_conflicts"] = c.bank_conflicts();
  if (sass) {
    const AccessCost s = ldgsts ? c : cost_sass(p.access, cfg);
    out["sass_wavefronts"] = s.wavefronts;
    out["sass_ideal"] = s.ideal_wavefronts;
  }
  return out;
}

ojson pattern_to_json(const WarpAccess& a) {
  ojson j;
  if (is_matrix(a.op)) {
    j["op"] = op_name(a.op);
    j["num"] = a.matrices;
    j["trans"] = a.trans;
  } else {
    j["width"] = a.width;
    j["op"] = op_name(a.op);
  }
  if (a.op == Op::kAtomic) j["atom"] = atom_name(a.atom);
  if (a.op == Op::kLdgsts) j["cache"] = a.bypass_l1 ? "cg" : "ca";
  char mask[16];
  std::snprintf(mask, sizeof mask, "0x%08x", a.mask);
  j["mask"] = mask;
  j["offsets"] = ojson::array();
  for (uint32_t v : a.addr) j["offsets"].push_back(v);
  return j;
}

}  // namespace bankscope
