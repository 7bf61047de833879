// controls.cpp: the sidebar. Every edit goes into UiState (ConfigState::touch()), and the model
// recomputes before the panes draw, so the picture follows in the same frame.
//
//   [SECTION] mode and scenario files   [SECTION] layout   [SECTION] access   [SECTION] display
//   [SECTION] legend
#include <algorithm>
#include <cstdio>
#include "panels/panels.hpp"
// After imgui.h (panels.hpp): Debian's imgui_stdlib.h does not include it itself.
#include <imgui_stdlib.h>
#include "sim/layout.hpp"

namespace bankscope {

namespace {

void set_message(UiState& state, const std::string& text, bool error) {
  state.message = text;
  state.message_is_error = error;
}

bool input_int64(const char* label, int64_t* v, int64_t lo, int64_t hi) {
  int x = static_cast<int>(*v);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputInt(label, &x, 1, 8, ImGuiInputTextFlags_EnterReturnsTrue) ||
      (ImGui::IsItemDeactivatedAfterEdit())) {
    x = std::clamp<int>(x, static_cast<int>(lo), static_cast<int>(hi));
    if (x != *v) {
      *v = x;
      return true;
    }
  }
  return false;
}

// [SECTION] display (and the status line), for scenarios and traces alike
void draw_display_controls(UiState& state) {
  if (ImGui::CollapsingHeader("Display")) {
    ImGui::Checkbox("large font (l)", &state.large_font);
    ImGui::Checkbox("high contrast (h)", &state.high_contrast);
    if (ImGui::Button("fullscreen (F11)")) state.request_fullscreen_toggle = true;
    ImGui::SameLine();
    if (ImGui::Button("screenshot (s)")) state.request_screenshot = "bankscope_screenshot.png";
    if (ImGui::Button("Export SVG (v)")) state.request_svg = "bankscope_export.svg";
    ImGui::SameLine();
    ImGui::Checkbox("presentation (p)", &state.presentation);
  }
  if (!state.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text,
                          ImGui::ColorConvertU32ToFloat4(state.message_is_error ? palette::kConflict
                                                                                : palette::kDone));
    ImGui::TextWrapped("%s%s", state.message_is_error ? "error: " : "", state.message.c_str());
    ImGui::PopStyleColor();
  }
}

// [SECTION] trace what-if: an open trace's sidebar. The array is named as `bankscope-cli report
// --array` names it; the layout controls are the scenario view's (stride, padding, xor, swizzle),
// and every edit goes through set_trace_what_if_layout, which refuses a layout the array cannot
// take and says why.
void draw_trace_controls(const AppModel& model, UiState& state) {
  TraceWhatIf& w = state.trace.what_if;
  const TraceView& tv = model.trace();
  ImGui::Checkbox("compare A traced | B what-if (c)", &state.compare);
  if (ImGui::CollapsingHeader("What-if layout", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("a shared array of the kernel: NAME@BYTE:TYPE[ROWS][COLS]");
    ImGui::PopTextWrapPos();
    ImGui::SetNextItemWidth(-1);
    const bool entered = ImGui::InputText("##whatif_array", &state.trace_array_input,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("apply array") || entered) {
      Result<bool> r = set_trace_array(state, state.trace_array_input);
      set_message(state, r ? "what-if array " + state.trace_array_input : r.error().message, !r);
    }
    if (w.active()) {
      ImGui::SameLine();
      if (ImGui::Button("off")) clear_trace_what_if(state);
    }
    if (w.active()) {
      const SharedArray& a = *w.array;
      PhysicalLayout l = w.layout;
      bool changed = false;
      if (a.shape.rows > 1) {
        int stride = l.row_stride;
        ImGui::SetNextItemWidth(-1);
        if (ImGui::SliderInt("##whatif_stride", &stride, a.shape.cols,
                             std::max(a.shape.cols * 2, a.shape.cols + 8),
                             "row stride %d (arrows)")) {
          l.row_stride = stride, changed = true;
        }
        int64_t typed = l.row_stride;
        if (input_int64("stride", &typed, 1, 1 << 20)) l.row_stride = int(typed), changed = true;
        int64_t pad = l.row_stride - a.shape.cols;
        if (input_int64("padding", &pad, 0, 4096))
          l.row_stride = a.shape.cols + int(pad), changed = true;
      } else {
        ImGui::TextDisabled("1-D array: no row stride");
      }
      int64_t x = l.xor_mask;
      if (input_int64("xor mask", &x, 0, 4095)) l.xor_mask = int(x), changed = true;
      int sw[3] = {l.swizzle.bits, l.swizzle.base, l.swizzle.shift};
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
      if (ImGui::InputInt3("Swizzle<B,M,S>", sw)) {
        l.swizzle =
            Swizzle{std::clamp(sw[0], 0, 16), std::clamp(sw[1], 0, 16), std::clamp(sw[2], 0, 16)};
        changed = true;
      }
      if (changed) {
        Result<bool> r = set_trace_what_if_layout(state, l);
        if (!r) set_message(state, r.error().message, true);
      }
      ImGui::PushTextWrapPos(0.0f);
      ImGui::Text("--layout %s", tv.what_if_label.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  if (ImGui::CollapsingHeader("Animation", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_animation_controls(model, state);
  }
}

}  // namespace

void draw_controls(const AppModel& model, UiState& state) {
  if (state.trace.active()) {
    draw_trace_controls(model, state);
    draw_display_controls(state);
    return;
  }
  // [SECTION] mode and scenario files
  ImGui::Checkbox("compare A | B  (c)", &state.compare);
  if (state.compare) {
    ImGui::TextUnformatted("edit:");
    ImGui::SameLine();
    ImGui::RadioButton("A", &state.edit, 0);
    ImGui::SameLine();
    ImGui::RadioButton("B", &state.edit, 1);
  }
  ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
  const PaneModel& pane = model.pane(state.edit);

  if (ImGui::CollapsingHeader("Scenario", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (ImGui::Button("seed pair 32 | 33")) load_seed_pair(state), state.compare = true;
    // The lesson's presets are listed; the other shipped scenarios (real kernels, bench tiles)
    // fold under one line, closed by default, so the sidebar keeps its height as they grow.
    auto preset_row = [&](size_t i) {
      char label[96];
      std::snprintf(label, sizeof label, "%s%zu %s", i < 9 ? "" : "  ", i + 1, state.presets[i].name.c_str());
      if (i >= 9) std::snprintf(label, sizeof label, "   %s", state.presets[i].name.c_str());
      if (ImGui::Selectable(label, cfg.source == state.presets[i].path)) {
        Result<bool> r = load_preset(state, static_cast<int>(i));
        set_message(state, r ? "loaded " + state.presets[i].path : r.error().message, !r);
      }
    };
    size_t others = 0;
    for (size_t i = 0; i < state.presets.size(); ++i) {
      if (state.presets[i].lesson) preset_row(i);
      else ++others;
    }
    if (others > 0) {
      char more[64];
      std::snprintf(more, sizeof more, "more scenarios (%zu)", others);
      if (ImGui::TreeNode(more)) {
        for (size_t i = 0; i < state.presets.size(); ++i)
          if (!state.presets[i].lesson) preset_row(i);
        ImGui::TreePop();
      }
    }
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##path", &state.path_input);
    if (ImGui::Button("load")) {
      Result<bool> r = load_scenario_into(state, state.edit, state.path_input);
      set_message(state, r ? "loaded " + state.path_input : r.error().message, !r);
    }
    ImGui::SameLine();
    if (ImGui::Button("save")) {
      Result<bool> r = save_config(state, state.edit, state.path_input);
      set_message(state, r ? "saved " + state.path_input : r.error().message, !r);
    }
    ImGui::SameLine();
    if (ImGui::Button("load GPU results")) {
      Result<GpuResults> r = load_gpu_results(state.path_input);
      if (r) {
        state.results = std::move(r).value();
        state.results_path = state.path_input;
        set_message(state, "loaded results " + state.path_input, false);
      } else {
        set_message(state, r.error().message, true);
      }
    }
  }

  // [SECTION] layout
  if (ImGui::CollapsingHeader("Layout", ImGuiTreeNodeFlags_DefaultOpen) && !cfg.spec.arrays.empty()) {
    cfg.array = std::clamp(cfg.array, 0, static_cast<int>(cfg.spec.arrays.size()) - 1);
    ArraySpec& arr = cfg.spec.arrays[static_cast<size_t>(cfg.array)];
    if (cfg.spec.arrays.size() > 1) {
      ImGui::SetNextItemWidth(-1);
      if (ImGui::BeginCombo("##array", arr.name.c_str())) {
        for (size_t i = 0; i < cfg.spec.arrays.size(); ++i) {
          if (ImGui::Selectable(cfg.spec.arrays[i].name.c_str(), int(i) == cfg.array)) cfg.array = int(i);
        }
        ImGui::EndCombo();
      }
    }
    if (arr.dims.size() >= 2) {
      int stride = static_cast<int>(row_stride(cfg));
      ImGui::SetNextItemWidth(-1);
      if (ImGui::SliderInt("##stride", &stride, 1, 128, "row stride %d (arrows)"))
        set_row_stride(cfg, stride);
      draw_sweep_chart(cfg, pane, state, state.edit);
      int64_t typed = row_stride(cfg);
      if (input_int64("stride", &typed, 1, 1 << 20)) set_row_stride(cfg, typed);
      int64_t pad = row_stride(cfg) - logical_cols(cfg);
      if (input_int64("padding", &pad, 0, 4096)) set_row_stride(cfg, logical_cols(cfg) + pad);
    } else {
      ImGui::TextDisabled("1-D array: no row stride");  // the slider would mean nothing
    }
    if (input_int64("xor mask", &arr.xor_mask, 0, 4095)) cfg.touch();
    int sw[3] = {arr.swizzle_bits, arr.swizzle_base, arr.swizzle_shift};
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::InputInt3("Swizzle<B,M,S>", sw)) {
      arr.swizzle_bits = std::clamp(sw[0], 0, 16);
      arr.swizzle_base = std::clamp(sw[1], 0, 16);
      arr.swizzle_shift = std::clamp(sw[2], 0, 16);
      cfg.touch();
    }
    // Written by TMA (CU_TENSOR_MAP_SWIZZLE_*): the mode is the whole layout (rule R10); a stride,
    // XOR or swizzle beside it is shown as the model's one-line error.
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::BeginCombo("TMA swizzle", tma_swizzle_name(arr.tma_swizzle).c_str())) {
      for (int span : {0, 32, 64, 128}) {
        if (ImGui::Selectable(tma_swizzle_name(span).c_str(), arr.tma_swizzle == span)) {
          arr.tma_swizzle = span;
          cfg.touch();
        }
      }
      ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::BeginCombo("element", arr.type.c_str())) {
      for (ElementType t : kAllElementTypes) {
        char label[32];
        std::snprintf(label, sizeof label, "%s (%d B)", element_name(t), element_size(t));
        if (ImGui::Selectable(label, arr.type == element_name(t))) {
          arr.type = element_name(t);
          cfg.touch();
        }
      }
      ImGui::EndCombo();
    }
  }

  // [SECTION] access
  if (ImGui::CollapsingHeader("Access", ImGuiTreeNodeFlags_DefaultOpen)) {
    int64_t bx = cfg.spec.block.x, by = cfg.spec.block.y;
    if (input_int64("block.x", &bx, 1, 1024) | input_int64("block.y", &by, 1, 1024)) {
      cfg.spec.block.x = bx;
      cfg.spec.block.y = by;
      cfg.warp = 0;
      cfg.instruction = kInstrPinCostliest;
      cfg.touch();
    }
    int64_t warp = cfg.warp;
    const int warps = pane.have ? pane.scenario.warps_per_block() : 1;
    if (input_int64("warp", &warp, 0, std::max(0, warps - 1))) cfg.warp = int(warp), cfg.touch();
    if (pane.have) {
      // The statement shown is an explicit choice: an instruction, or "worst" (labelled, with the
      // instruction it currently resolves to). In compare mode B follows A unless unpaired.
      const bool follows_a = state.compare && state.edit == 1 && state.pair_statements;
      if (state.compare && ImGui::Checkbox("B shows A's statement", &state.pair_statements) &&
          state.pair_statements) {
        state.configs[1].touch();  // AppModel::update pairs B again when a pane changes
      }
      const std::string now = instruction_text(pane, pane.selected);
      const std::string current = pane.worst ? "worst (now " + now + ")" : now;
      ImGui::TextUnformatted("statement:");
      ImGui::SetNextItemWidth(-1);
      ImGui::BeginDisabled(follows_a);
      if (ImGui::BeginCombo("##instr", current.c_str())) {
        if (ImGui::Selectable("worst (the costliest, as the layout changes)", pane.worst)) {
          cfg.instruction = kInstrWorst;
          cfg.touch();
        }
        for (size_t i = 0; i < pane.instructions.size(); ++i) {
          const std::string text = instruction_text(pane, int(i));
          if (ImGui::Selectable(text.c_str(), !pane.worst && int(i) == pane.selected)) {
            cfg.instruction = int(i);
            cfg.touch();
          }
        }
        ImGui::EndCombo();
      }
      ImGui::EndDisabled();
      const int stmt = pane.instructions[static_cast<size_t>(pane.selected)].stmt;
      std::string& op = cfg.spec.accesses[static_cast<size_t>(stmt)].op;
      if (op != "ld" && op != "st") {
        // ldmatrix, stmatrix, atom: their own fields make them; the ld/st switch does not apply.
        const std::string& text = pane.instructions[static_cast<size_t>(pane.selected)].text;
        ImGui::Text("op: %s", text.substr(0, text.find(' ')).c_str());
      } else {
        int is_store = op == "st";
        ImGui::TextUnformatted("op:");
        ImGui::SameLine();
        bool changed = ImGui::RadioButton("ld", &is_store, 0);
        ImGui::SameLine();
        changed |= ImGui::RadioButton("st", &is_store, 1);
        if (changed) {
          op = is_store ? "st" : "ld";
          cfg.touch();
        }
      }
    }
    int64_t n = cfg.spec.n;
    if (input_int64("N (launch)", &n, 1, 1 << 20)) cfg.spec.n = n, cfg.touch();
    // Active-lane mask: 32 toggles, 8 per row.
    ImGui::Text("active lanes 0x%08x", cfg.lane_mask);
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(2, 2));
    const float box = ImGui::GetFontSize() * 1.5f;
    for (int l = 0; l < kWarpSize; ++l) {
      if (l % 8 != 0) ImGui::SameLine();
      const bool on = (cfg.lane_mask >> l) & 1u;
      ImGui::PushStyleColor(ImGuiCol_Button, on ? ImColor(palette::kWaiting).Value : ImVec4(0.2f, 0.2f, 0.2f, 1));
      char label[8];
      std::snprintf(label, sizeof label, "%d", l);
      if (ImGui::Button(label, ImVec2(box, 0))) {
        cfg.lane_mask ^= 1u << l;
        cfg.touch();
      }
      ImGui::PopStyleColor();
    }
    ImGui::PopStyleVar();
    if (ImGui::Button("all")) cfg.lane_mask = 0xffffffffu, cfg.touch();
    ImGui::SameLine();
    if (ImGui::Button("none")) cfg.lane_mask = 0, cfg.touch();
    ImGui::SameLine();
    if (ImGui::Button("even")) cfg.lane_mask = 0x55555555u, cfg.touch();
    ImGui::SameLine();
    if (ImGui::Button("low 16")) cfg.lane_mask = 0x0000ffffu, cfg.touch();
  }

  if (ImGui::CollapsingHeader("Animation", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_animation_controls(model, state);
  }

  draw_display_controls(state);
}

// [SECTION] legend: one row under the panes, so a screenshot carries its own key.
namespace {

enum class Mark { kNone, kHatch, kStrike, kDouble };

// Lays out (and with `state`, draws) the legend's items in rows of at most `width`; returns the
// height. Drawn items that only some accesses need record their rects ("legend.retry").
float draw_legend_items(float width, const LegendMarks& marks, UiState* state) {
  const bool draw = state != nullptr;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = ImGui::GetFontSize();
  const float gap = s * 1.5f, row_h = ImGui::GetFrameHeightWithSpacing();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  float x = 0, y = 0;
  // Each item: a swatch (or the bank ramp) then its text; `ramp` draws the 32 bank colours.
  auto item = [&](ImU32 col, Mark mark, ImU32 mark_col, bool ramp, const char* text, const char* brief = nullptr,
                  const char* rect_name = nullptr) {
    const float sw = ramp ? s * 6 : s * 1.4f;
    // An item wider than a whole row says it briefly.
    if (brief && sw + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text).x > width - s * 0.5f) text = brief;
    const float w = sw + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text).x;
    if (x > 0 && x + w > width - s * 0.5f) x = 0, y += row_h;  // margin: the clip rect's rounding
    if (draw) {
      const ImVec2 p(start.x + x, start.y + y), q(p.x + sw, p.y + s);
      if (ramp) {
        for (int b = 0; b < 32; ++b) {
          dl->AddRectFilled(ImVec2(p.x + sw * float(b) / 32, p.y), ImVec2(p.x + sw * float(b + 1) / 32, q.y),
                            bank_color(b, 32));
        }
      } else {
        dl->AddRectFilled(p, q, col);
      }
      if (mark == Mark::kHatch) {
        hatch_rect(dl, p, q, mark_col, 5.0f, 1.5f);
        dl->AddRect(p, q, mark_col, 0, 0, 2.0f);
      } else if (mark == Mark::kStrike) {  // as the bank view strikes a never-swapped word
        dl->AddLine(p, q, mark_col, 1.5f);
      } else if (mark == Mark::kDouble) {  // as the bank view outlines an atomic's shared word
        dl->AddRect(p, q, mark_col, 0, 0, 2.0f);
        dl->AddRect(ImVec2(p.x + 3, p.y + 3), ImVec2(q.x - 3, q.y - 3), mark_col, 0, 0, 1.0f);
      }
      if (rect_name != nullptr) record_rect(*state, rect_name, p, q);
      dl->AddText(ImVec2(q.x + ImGui::GetStyle().ItemSpacing.x, p.y), ImGui::GetColorU32(ImGuiCol_Text), text);
    }
    x += w + gap;
  };
  item(palette::kServe, Mark::kNone, 0, false, "serving now");
  item(palette::kWaiting, Mark::kNone, 0, false, "waiting");
  item(palette::kDone, Mark::kNone, 0, false, "served");
  item(palette::kWaiting, Mark::kHatch, palette::kConflict, false, "conflict: n words, 1 bank");
  if (marks.serialized) {
    item(palette::kWaiting, Mark::kDouble, palette::kSerialize, false, "atomic: lanes on one word, one per wavefront",
         "atomic: one lane per wavefront", "legend.serialized");
  }
  if (marks.retry) {
    item(palette::kRetry, Mark::kStrike, palette::kEmptyWord, false, "CAS spin: fails, retries next execution",
         "fails, retries", "legend.retry");
  }
  if (marks.tiles) {
    item(palette::kPadding, Mark::kHatch, IM_COL32(0x40, 0x40, 0x40, 0xFF), false, "padding");
    item(0, Mark::kNone, 0, true, "tile colour = bank 0..31; outline = this warp's lanes", "tile colour = bank");
  }
  const float h = y + row_h;
  if (draw) ImGui::Dummy(ImVec2(width, h - ImGui::GetStyle().ItemSpacing.y));
  return h;
}

}  // namespace

// The legend flows: an item that would run past the right edge starts a new line.
float legend_height(float width, const LegendMarks& marks) { return draw_legend_items(width, marks, nullptr); }

void draw_legend(UiState& state, const LegendMarks& marks) {
  draw_legend_items(ImGui::GetContentRegionAvail().x, marks, &state);
}

}  // namespace bankscope
