// fuzz_jsonl.cpp: libFuzzer target for the JSONL pattern reader (sim/json_io.hpp) and the bank
// model behind it (sim/bank_model.hpp).
//
// The input is one JSONL line. A line either fails with a one-line message or gives a validated
// WarpAccess; for that access the cheap cost() (cost() itself and each of its paths, cost_on()) and
// the detailed simulate() must agree (the CLI's
// JSONL mode prints the one, the visualizer draws the other), on the default geometry and on a
// teaching geometry derived from the input. A string mask is also re-read here: the reader must
// accept it exactly when it is a number below 2^32 ("a mask wider than 32 bits" is an error).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "fuzz_check.hpp"
#include "sim/bank_model.hpp"
#include "sim/json_io.hpp"

using namespace bankscope;

namespace {

constexpr size_t kMaxInput = size_t{1} << 20;  // libFuzzer -max_len keeps generated inputs short; regressions may be long

std::string show(const WarpAccess& a) { return pattern_to_json(a).dump(); }

void check_model(const WarpAccess& a, const BankConfig& cfg) {
  const std::string where = show(a) + " on " + std::to_string(cfg.banks) + " banks x " +
                            std::to_string(cfg.bank_bytes) + " bytes";
  const AccessCost c = cost(a, cfg);
  const AccessReport r = simulate(a, cfg);
  FUZZ_CHECK(c.wavefronts == r.cost.wavefronts && c.ideal_wavefronts == r.cost.ideal_wavefronts &&
                 c.n_way == r.cost.n_way,
             "cost() " + std::to_string(c.wavefronts) + "/" + std::to_string(c.ideal_wavefronts) + "/" +
                 std::to_string(c.n_way) + " != simulate().cost " + std::to_string(r.cost.wavefronts) + "/" +
                 std::to_string(r.cost.ideal_wavefronts) + "/" + std::to_string(r.cost.n_way) + " for " + where);
  // Every implementation of cost() this CPU has (avx512, avx2, portable), not only the one picked.
  for (CostPath p : kCostPaths) {
    if (!cost_path_supported(p)) continue;
    const AccessCost q = cost_on(p, a, cfg);
    FUZZ_CHECK(q.wavefronts == r.cost.wavefronts && q.ideal_wavefronts == r.cost.ideal_wavefronts &&
                   q.n_way == r.cost.n_way,
               std::string("cost_on(") + cost_path_name(p) + ") " + std::to_string(q.wavefronts) + "/" +
                   std::to_string(q.ideal_wavefronts) + "/" + std::to_string(q.n_way) + " != simulate().cost " +
                   std::to_string(r.cost.wavefronts) + "/" + std::to_string(r.cost.ideal_wavefronts) + "/" +
                   std::to_string(r.cost.n_way) + " for " + where);
  }
  FUZZ_CHECK(c.bank_conflicts() >= 0, "negative bank conflicts for " + where);
  FUZZ_CHECK(c.n_way <= c.wavefronts, "n_way above wavefronts for " + where);
  FUZZ_CHECK(r.wavefronts.size() == static_cast<size_t>(r.cost.wavefronts),
             "simulate() lists " + std::to_string(r.wavefronts.size()) + " wavefronts, cost says " +
                 std::to_string(r.cost.wavefronts) + " for " + where);
  // Every active lane gets its data in exactly one listed wavefront; inactive lanes in none.
  uint32_t served = 0;
  for (const WavefrontDetail& w : r.wavefronts) {
    FUZZ_CHECK((served & w.lanes) == 0, "a lane completes in two wavefronts for " + where);
    served |= w.lanes;
  }
  FUZZ_CHECK(served == used_lanes(a), "lanes served != used lanes of the mask for " + where);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const LaneDetail& d = r.lanes[static_cast<size_t>(lane)];
    if (!d.active) continue;
    FUZZ_CHECK(d.wavefront >= 0 && d.wavefront < r.cost.wavefronts,
               "lane " + std::to_string(lane) + " wavefront out of range for " + where);
  }
}

// Reference reading of a string mask: digits only (hex after 0x), value below 2^32, no overflow.
bool mask_string_fits(const std::string& s) {
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const size_t start = hex ? 2 : 0;
  if (s.size() == start) return false;
  unsigned __int128 v = 0;
  for (size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = v * (hex ? 16 : 10) + static_cast<unsigned>(d);
    if (v > 0xffffffffu) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const std::string line(reinterpret_cast<const char*>(data), size);
  auto p = parse_pattern_line(line);

  // The mask oracle, whenever the line is an object with a string mask and everything else fine.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("mask") && j["mask"].is_string()) {
    const std::string m = j["mask"].get<std::string>();
    if (p.ok()) {
      FUZZ_CHECK(mask_string_fits(m), "mask '" + m + "' (wider than 32 bits or not a number) was accepted as " +
                                          std::to_string(p->access.mask));
    } else if (mask_string_fits(m)) {
      // Rejected for some other reason: the message must not blame the mask.
      FUZZ_CHECK(p.error().message.rfind("mask:", 0) != 0,
                 "valid mask '" + m + "' rejected: " + p.error().message);
    }
  }

  if (!p) {
    FUZZ_NOTE(fuzz::one_line(p.error().message), "error is not one line: '" + p.error().message + "'");
    FUZZ_CHECK(!p.error().message.empty(), "empty error message");
    return 0;
  }
  const WarpAccess& a = p->access;
  FUZZ_CHECK(validate(a, BankConfig{}).ok(), "parse_pattern_line returned an access validate() rejects");
  check_model(a, BankConfig{});
  // A teaching geometry derived from the input, so the general path of the model is fuzzed too.
  const size_t h = std::hash<std::string>{}(line);
  auto cfg = make_bank_config(1 + static_cast<int>(h % 64), (h >> 8) & 1 ? 8 : 4);
  FUZZ_CHECK(cfg.ok(), "make_bank_config rejected a valid geometry");
  check_model(a, *cfg);

  // What the CLI prints, and the canonical form read back to the same access.
  const auto predicted = predict_pattern(*p);
  FUZZ_CHECK(predicted.contains("wavefronts") && predicted.contains("bank_conflicts"), "predict_pattern lacks fields");
  auto back = parse_pattern_line(pattern_to_json(a).dump());
  FUZZ_CHECK(back.ok(), "pattern_to_json output does not parse back: " + show(a));
  FUZZ_CHECK(back->access.op == a.op && back->access.width == a.width && back->access.mask == a.mask &&
                 back->access.addr == a.addr && back->access.matrices == a.matrices &&
                 back->access.trans == a.trans && back->access.atom == a.atom &&
                 back->access.bypass_l1 == a.bypass_l1,
             "pattern_to_json round trip changed the access: " + show(a));
  return 0;
}
