// json_io.hpp: the edge where JSON meets the model. Scenario files and the JSONL pattern format.
// Only this part of sim/ knows about nlohmann::json; the model itself takes value types.
//
// Scenario file: see README.md "Scenario format". JSONL pattern line:
//   {"width": 8, "op": "ld", "mask": "0xffffffff", "offsets": [32 byte offsets, lane 0 first]}
// ldgsts lines may add "src": [32 global byte offsets] (the cp.async sources; default lane * width)
// and "l2_prefetch": 64|128|256 (the .L2::<n>B hint; default none).
// (mask may be an integer; extra keys are kept and echoed).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bank_model.hpp"
#include "scenario.hpp"
#include "status.hpp"

namespace bankscope {

// `source` names the file in error messages ("assets/scenarios/x.json: block: ...").
Result<ScenarioSpec> parse_scenario_json(const std::string& text, const std::string& source);
Result<ScenarioSpec> load_scenario_file(const std::string& path);
nlohmann::ordered_json scenario_to_json(const ScenarioSpec& spec);
// Writes to a temporary file beside `path`, then renames it over `path`: a failed save leaves the
// old file intact. Returns an error naming the path and the reason.
Result<bool> save_text_file_atomic(const std::string& path, const std::string& text);
Result<bool> save_scenario_file(const std::string& path, const ScenarioSpec& spec);

// Deepest nesting of [ and { outside strings. nlohmann's parser (and copying its values) recurses
// once per level, so input nested deeper than kMaxJsonDepth is refused before parsing.
inline constexpr int kMaxJsonDepth = 64;
int json_depth(const std::string& text);

// Reads a whole file; errors name the path ("cannot open", "is not valid UTF-8").
Result<std::string> read_text_file(const std::string& path);

// One JSONL pattern. The parsed object is kept so output lines echo every input key.
struct Pattern {
  nlohmann::ordered_json object;
  WarpAccess access;
  // ldgsts only: lane -> global byte offset of the lane's cp.async source, from the optional "src"
  // key (issue 11: the source side may change the shared-side cost). Without "src" it is the
  // source the harness always used, lane * width (contiguous), so older lines keep their meaning.
  // The shared-side rules (R9) do not read it; the harness (bankscope-gpu patterns) does.
  bool src_given = false;
  std::array<uint32_t, kWarpSize> src{};
  // ldgsts only: "l2_prefetch": 64, 128 or 256 selects cp.async's .L2::<n>B prefetch-size hint
  // (cuBLAS's LDGSTS.E.LTC128B); 0 (absent) = no hint, as before.
  int l2_prefetch = 0;
};
// The largest global source buffer an ldgsts pattern may address ("src" < this), 64 MiB: room for a
// column of a large column-major matrix (31 lanes x lda 8192 x 4 bytes = 1 MiB) with margin.
inline constexpr uint32_t kMaxLdgstsSourceBytes = 64u * 1024u * 1024u;
Result<Pattern> parse_pattern_line(const std::string& line);
Result<Pattern> parse_pattern_object(const nlohmann::ordered_json& object);
// The pattern object with the model's "wavefronts" and "bank_conflicts" added (the hardware l1tex__
// counters of a one-warp launch); with `sass`, also "sass_wavefronts" and "sass_ideal": what Nsight
// Compute's instruction-level counters and source view count (cost_sass(), R11).
nlohmann::ordered_json predict_pattern(const Pattern& p, const BankConfig& cfg = {}, bool sass = false);
nlohmann::ordered_json pattern_to_json(const WarpAccess& a);

}  // namespace bankscope
