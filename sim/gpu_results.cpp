// gpu_results.cpp: bankscope-gpu's results JSON <-> GpuResults (format in gpu_results.hpp).
//
// Reading is forgiving about what is optional (a missing or null number stays unset) and strict
// about types: a field of the wrong type is an error naming the file, the row and the field.
#include "gpu_results.hpp"

#include "json_io.hpp"
#include "scenario.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bankscope {

namespace {

using nlohmann::json;

// 2 adds the layout identity (xor, swizzle, block; ResultsKey) and the instruction-level
// instruction and bank-conflict counters; 1 is still read (its rows match no prediction).
constexpr int kFormatVersion = 2;

json opt_num(const std::optional<uint64_t>& v) { return v ? json(*v) : json(nullptr); }
json opt_num(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json counters_to_json(const CounterSet& c, bool with_sass) {
  json j = {{"instructions", opt_num(c.instructions)},
            {"wavefronts", opt_num(c.wavefronts)},
            {"bank_conflicts", opt_num(c.bank_conflicts)}};
  if (!with_sass && c.instructions_sass) j["instructions_sass"] = *c.instructions_sass;  // predicted
  if (with_sass) {
    j["instructions_sass"] = opt_num(c.instructions_sass);
    j["wavefronts_sass"] = opt_num(c.wavefronts_sass);
    j["bank_conflicts_sass"] = opt_num(c.bank_conflicts_sass);
  }
  return j;
}

// Reads an optional field; errors name `where.key`.
struct Reader {
  const json& obj;
  std::string where;

  Error type_error(const char* key, const char* want) const {
    return Error{where + "." + key + ": expected " + want};
  }
  bool has(const char* key) const { return obj.contains(key) && !obj.at(key).is_null(); }

  std::optional<Error> u64(const char* key, std::optional<uint64_t>& out) const {
    if (!has(key)) return std::nullopt;
    const json& v = obj.at(key);
    if (v.is_number_unsigned()) {
      out = v.get<uint64_t>();
    } else if (v.is_number_integer() && v.get<int64_t>() >= 0) {
      out = static_cast<uint64_t>(v.get<int64_t>());
    } else if (v.is_number_float() && v.get<double>() >= 0.0) {
      out = static_cast<uint64_t>(v.get<double>() + 0.5);  // ncu prints counts as floats sometimes
    } else {
      return type_error(key, "a non-negative integer");
    }
    return std::nullopt;
  }
  std::optional<Error> f64(const char* key, std::optional<double>& out) const {
    if (!has(key)) return std::nullopt;
    if (!obj.at(key).is_number()) return type_error(key, "a number");
    out = obj.at(key).get<double>();
    return std::nullopt;
  }
  template <class I>
  std::optional<Error> integer(const char* key, I& out) const {
    if (!has(key)) return std::nullopt;
    if (!obj.at(key).is_number_integer()) return type_error(key, "an integer");
    out = static_cast<I>(obj.at(key).get<int64_t>());
    return std::nullopt;
  }
  std::optional<Error> str(const char* key, std::string& out) const {
    if (!has(key)) return std::nullopt;
    if (!obj.at(key).is_string()) return type_error(key, "a string");
    out = obj.at(key).get<std::string>();
    return std::nullopt;
  }
  std::optional<Error> boolean(const char* key, bool& out) const {
    if (!has(key)) return std::nullopt;
    if (!obj.at(key).is_boolean()) return type_error(key, "true or false");
    out = obj.at(key).get<bool>();
    return std::nullopt;
  }
};

#define BANKSCOPE_TRY(expr)               \
  do {                                    \
    if (auto err_ = (expr)) return *err_; \
  } while (0)

std::optional<Error> read_counters(const json& parent, const char* key, const std::string& where,
                                   CounterSet& out) {
  if (!parent.contains(key) || parent.at(key).is_null()) return std::nullopt;
  if (!parent.at(key).is_object()) return Error{where + "." + key + ": expected an object"};
  const Reader r{parent.at(key), where + "." + key};
  BANKSCOPE_TRY(r.u64("instructions", out.instructions));
  BANKSCOPE_TRY(r.u64("wavefronts", out.wavefronts));
  BANKSCOPE_TRY(r.u64("bank_conflicts", out.bank_conflicts));
  BANKSCOPE_TRY(r.u64("wavefronts_sass", out.wavefronts_sass));
  BANKSCOPE_TRY(r.u64("instructions_sass", out.instructions_sass));
  BANKSCOPE_TRY(r.u64("bank_conflicts_sass", out.bank_conflicts_sass));
  return std::nullopt;
}

std::optional<Error> read_kernel(const json& k, const std::string& where, int version, KernelResult& out) {
  if (!k.is_object()) return Error{where + ": expected an object"};
  const Reader r{k, where};
  BANKSCOPE_TRY(r.str("kernel", out.kernel));
  if (out.kernel.empty()) return Error{where + ".kernel: missing"};
  BANKSCOPE_TRY(r.str("scenario", out.scenario));
  BANKSCOPE_TRY(r.integer("n", out.n));
  BANKSCOPE_TRY(r.integer("row_stride", out.row_stride));
  BANKSCOPE_TRY(r.str("bound", out.bound));
  BANKSCOPE_TRY(r.boolean("correct", out.correct));
  BANKSCOPE_TRY(r.str("verdict", out.verdict));
  BANKSCOPE_TRY(r.str("gpu_kernel", out.gpu_kernel));
  BANKSCOPE_TRY(r.str("type", out.type));
  BANKSCOPE_TRY(r.f64("copy_gbps", out.copy_gbps));
  BANKSCOPE_TRY(r.str("note", out.note));
  if (version >= 2) {
    // The layout identity: all three fields or none (a row without one, e.g. carried over from
    // a version-1 file, matches no prediction); a partial one would match a wrong layout.
    const int present = int(r.has("xor")) + int(r.has("swizzle")) + int(r.has("block"));
    for (const char* key : {"xor", "swizzle", "block"}) {
      if (present > 0 && !r.has(key)) {
        return Error{where + "." + key + ": missing (results format 2 names the whole layout)"};
      }
    }
    if (present > 0) {
      BANKSCOPE_TRY(r.integer("xor", out.xor_mask));
      const json& sw = k.at("swizzle");
      const json& bl = k.at("block");
      auto ints3 = [](const json& a) {
        if (!a.is_array() || a.size() != 3) return false;
        for (const json& v : a)
          if (!v.is_number_integer()) return false;
        return true;
      };
      if (!ints3(sw)) return Error{where + ".swizzle: expected [B, M, S]"};
      if (!ints3(bl)) return Error{where + ".block: expected [x, y, z]"};
      out.swizzle_bits = sw[0].get<int>();
      out.swizzle_base = sw[1].get<int>();
      out.swizzle_shift = sw[2].get<int>();
      out.block_x = bl[0].get<int64_t>();
      out.block_y = bl[1].get<int64_t>();
      out.block_z = bl[2].get<int64_t>();
      out.has_layout_key = true;
    }
  }
  if (k.contains("predicted") && !k.at("predicted").is_null()) {
    const json& p = k.at("predicted");
    const std::string pw = where + ".predicted";
    if (!p.is_object()) return Error{pw + ": expected an object"};
    BANKSCOPE_TRY(read_counters(p, "ld", pw, out.predicted_ld));
    BANKSCOPE_TRY(read_counters(p, "st", pw, out.predicted_st));
    const Reader pr{p, pw};
    BANKSCOPE_TRY(pr.f64("time_ms", out.predicted_ms));
    BANKSCOPE_TRY(pr.f64("gbps", out.predicted_gbps));
    BANKSCOPE_TRY(pr.f64("shared_ms", out.predicted_shared_ms));
    BANKSCOPE_TRY(pr.f64("dram_ms", out.predicted_dram_ms));
    if (out.bound.empty()) BANKSCOPE_TRY(pr.str("bound", out.bound));
  }
  if (k.contains("measured") && !k.at("measured").is_null()) {
    const json& m = k.at("measured");
    const std::string mw = where + ".measured";
    if (!m.is_object()) return Error{mw + ": expected an object"};
    BANKSCOPE_TRY(read_counters(m, "ld", mw, out.measured_ld));
    BANKSCOPE_TRY(read_counters(m, "st", mw, out.measured_st));
    const Reader mr{m, mw};
    BANKSCOPE_TRY(mr.f64("time_ms", out.measured_ms));
    BANKSCOPE_TRY(mr.f64("gbps", out.measured_gbps));
    BANKSCOPE_TRY(mr.str("counters_source", out.counters_source));
    BANKSCOPE_TRY(mr.str("sass_source", out.sass_source));
    BANKSCOPE_TRY(mr.integer("runs", out.runs));
  }
  return std::nullopt;
}

}  // namespace

const KernelResult* GpuResults::find(const std::string& scenario_basename, int64_t n) const {
  for (const KernelResult& k : kernels) {
    if (k.n == n && (k.scenario == scenario_basename || k.kernel == scenario_basename)) return &k;
  }
  return nullptr;
}

namespace {
Result<GpuResults> parse_gpu_results_unchecked(const std::string& json_text, const std::string& source);
}  // namespace

// A field of the wrong type (a hand-edited file) throws inside nlohmann: report it, do not crash.
Result<GpuResults> parse_gpu_results(const std::string& json_text, const std::string& source) {
  try {
    return parse_gpu_results_unchecked(json_text, source);
  } catch (const json::exception& e) {
    return Error{source + ": " + e.what()};
  }
}

namespace {
Result<GpuResults> parse_gpu_results_unchecked(const std::string& json_text, const std::string& source) {
  if (json_depth(json_text) > kMaxJsonDepth) {
    return Error{source + ": invalid JSON: nested more than " + std::to_string(kMaxJsonDepth) + " levels"};
  }
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {
    // e.what() is one line: "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    // (out_of_range for a number like 1e999 lands here too)
    return Error{source + ": " + e.what()};
  }
  if (!root.is_object() || !root.contains("bankscope_results")) {
    return Error{source + ": not a bankscope results file (no \"bankscope_results\" key)"};
  }
  const int64_t version =
      root.at("bankscope_results").is_number_integer() ? root.at("bankscope_results").get<int64_t>() : 0;
  if (version != 1 && version != kFormatVersion) {
    return Error{source + ": bankscope_results: unsupported format version (this build reads 1 and 2)"};
  }
  GpuResults out;
  if (root.contains("device") && !root.at("device").is_null()) {
    const json& d = root.at("device");
    if (!d.is_object()) return Error{source + ": device: expected an object"};
    const Reader r{d, source + ": device"};
    BANKSCOPE_TRY(r.str("name", out.device.name));
    BANKSCOPE_TRY(r.str("sm", out.device.sm));
    BANKSCOPE_TRY(r.str("driver", out.device.driver));
    BANKSCOPE_TRY(r.str("cuda_runtime", out.device.cuda_runtime));
    BANKSCOPE_TRY(r.str("cuda_driver", out.device.cuda_driver));
    BANKSCOPE_TRY(r.str("date", out.device.date));
    BANKSCOPE_TRY(r.str("counters_note", out.device.counters_note));
    BANKSCOPE_TRY(r.integer("sms", out.device.sms));
    BANKSCOPE_TRY(r.integer("sm_clock_mhz", out.device.sm_clock_mhz));
    BANKSCOPE_TRY(r.integer("mem_clock_mhz", out.device.mem_clock_mhz));
    BANKSCOPE_TRY(r.f64("copy_gbps", out.device.copy_gbps));
    BANKSCOPE_TRY(r.integer("sm_clock_now_mhz", out.device.sm_clock_now_mhz));
    BANKSCOPE_TRY(r.integer("mem_clock_now_mhz", out.device.mem_clock_now_mhz));
  }
  if (root.contains("kernels")) {
    const json& ks = root.at("kernels");
    if (!ks.is_array()) return Error{source + ": kernels: expected an array"};
    for (size_t i = 0; i < ks.size(); ++i) {
      KernelResult k;
      BANKSCOPE_TRY(read_kernel(ks[i], source + ": kernels[" + std::to_string(i) + "]", int(version), k));
      out.kernels.push_back(std::move(k));
    }
  }
  return out;
}
}  // namespace

Result<GpuResults> load_gpu_results(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_gpu_results(ss.str(), path);
}

std::string gpu_results_to_json(const GpuResults& r) {
  json dev = {{"name", r.device.name},
              {"sm", r.device.sm},
              {"sms", r.device.sms},
              {"sm_clock_mhz", r.device.sm_clock_mhz},
              {"mem_clock_mhz", r.device.mem_clock_mhz},
              {"sm_clock_now_mhz", r.device.sm_clock_now_mhz},
              {"mem_clock_now_mhz", r.device.mem_clock_now_mhz},
              {"driver", r.device.driver},
              {"cuda_runtime", r.device.cuda_runtime},
              {"cuda_driver", r.device.cuda_driver},
              {"date", r.device.date},
              {"counters_note", r.device.counters_note},
              {"copy_gbps", opt_num(r.device.copy_gbps)}};
  json kernels = json::array();
  for (const KernelResult& k : r.kernels) {
    json predicted = {{"ld", counters_to_json(k.predicted_ld, false)},
                      {"st", counters_to_json(k.predicted_st, false)},
                      {"time_ms", opt_num(k.predicted_ms)},
                      {"gbps", opt_num(k.predicted_gbps)},
                      {"shared_ms", opt_num(k.predicted_shared_ms)},
                      {"dram_ms", opt_num(k.predicted_dram_ms)},
                      {"bound", k.bound}};
    json measured = {{"ld", counters_to_json(k.measured_ld, true)},
                     {"st", counters_to_json(k.measured_st, true)},
                     {"time_ms", opt_num(k.measured_ms)},
                     {"gbps", opt_num(k.measured_gbps)},
                     {"runs", k.runs},
                     {"counters_source", k.counters_source},
                     {"sass_source", k.sass_source}};
    kernels.push_back({{"kernel", k.kernel},
                       {"gpu_kernel", k.gpu_kernel},
                       {"scenario", k.scenario},
                       {"type", k.type},
                       {"n", k.n},
                       {"row_stride", k.row_stride},
                       {"bound", k.bound},
                       {"predicted", predicted},
                       {"measured", measured},
                       {"copy_gbps", opt_num(k.copy_gbps)},
                       {"correct", k.correct},
                       {"verdict", k.verdict},
                       {"note", k.note}});
    if (k.has_layout_key) {  // else the row matches no prediction, written or read
      json& row = kernels.back();
      row["xor"] = k.xor_mask;
      row["swizzle"] = {k.swizzle_bits, k.swizzle_base, k.swizzle_shift};
      row["block"] = {k.block_x, k.block_y, k.block_z};
    }
  }
  json root = {{"bankscope_results", kFormatVersion}, {"device", dev}, {"kernels", kernels}};
  return root.dump(2) + "\n";
}

}  // namespace bankscope

namespace bankscope {

ResultsKey key_of(const KernelResult& k) {
  ResultsKey key;
  key.scenario = k.scenario;
  key.n = k.n;
  key.row_stride = k.row_stride;
  key.xor_mask = k.xor_mask;
  key.swizzle_bits = k.swizzle_bits;
  key.swizzle_base = k.swizzle_base;
  key.swizzle_shift = k.swizzle_shift;
  key.type = k.type;
  key.block_x = k.block_x;
  key.block_y = k.block_y;
  key.block_z = k.block_z;
  return key;
}

ResultsKey key_of(const std::string& scenario_basename, const Scenario& s) {
  ResultsKey key;
  key.scenario = scenario_basename;
  key.n = s.spec.n;
  if (!s.arrays.empty()) {
    const SharedArray& a = s.arrays[0];
    key.row_stride = a.layout.row_stride;
    key.xor_mask = a.layout.xor_mask;
    key.swizzle_bits = a.layout.swizzle.bits;
    key.swizzle_base = a.layout.swizzle.base;
    key.swizzle_shift = a.layout.swizzle.shift;
    key.type = element_name(a.type);
  }
  key.block_x = s.spec.block.x;
  key.block_y = s.spec.block.y;
  key.block_z = s.spec.block.z;
  return key;
}

const KernelResult* GpuResults::find(const ResultsKey& key) const {
  for (const KernelResult& k : kernels) {
    if (k.has_layout_key && key_of(k) == key) return &k;
  }
  return nullptr;
}

std::string ResultsKey::describe() const {
  std::string t = scenario + ", n=" + std::to_string(n) + ", " + type + " row stride " +
                  std::to_string(row_stride);
  if (xor_mask != 0) t += ", xor " + std::to_string(xor_mask);
  if (swizzle_bits != 0) {
    t += ", Swizzle<" + std::to_string(swizzle_bits) + "," + std::to_string(swizzle_base) + "," +
         std::to_string(swizzle_shift) + ">";
  }
  t += ", block " + std::to_string(block_x) + "x" + std::to_string(block_y) + "x" +
       std::to_string(block_z);
  return t;
}

}  // namespace bankscope
