// main.cpp: the visualizer `bankscope`: init, loop, shutdown (ImGui's example_glfw_opengl3 shape).
// Batch modes (--screenshot, --script, --bench-frames) run the same loop and exit by themselves.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "app_model.hpp"
#include "export_svg.hpp"
#include "layout_check.hpp"
#include "options.hpp"
#include "panels/panels.hpp"
#include "sim/json_io.hpp"
#include "ui.hpp"
#include "window.hpp"

using namespace bankscope;

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "bankscope: %s\n", message.c_str());
  return 1;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Fonts: DejaVu Sans from fonts-dejavu when present (readable at a distance), else ImGui's own.
// `scale` follows the window size at start (1 up to 1920x1080, 2 at 3840x2160): at 4K a 16 px font
// is as small as 8 px on a 1080p projector.
void load_fonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  const char* kFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  const char* kBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
  if (!std::filesystem::exists(kFont) || !std::filesystem::exists(kBold)) {
    ImFont* f = io.Fonts->AddFontDefault();
    set_fonts(f, f, f, f);
    return;
  }
  ImFont* body = io.Fonts->AddFontFromFileTTF(kFont, std::round(16.0f * scale));
  ImFont* head = io.Fonts->AddFontFromFileTTF(kBold, std::round(26.0f * scale));
  ImFont* large = io.Fonts->AddFontFromFileTTF(kFont, std::round(24.0f * scale));
  ImFont* large_head = io.Fonts->AddFontFromFileTTF(kBold, std::round(38.0f * scale));
  set_fonts(body, head, large, large_head);
}

void write_rects(const UiState& state, const std::string& path) {
  std::ofstream out(path);
  for (const auto& [name, r] : state.rects) {
    out << name << ' ' << r.x0 << ' ' << r.y0 << ' ' << r.x1 << ' ' << r.y1 << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  // ---- init ----------------------------------------------------------------------------------
  Result<AppOptions> parsed = parse_options(argc, argv);
  if (!parsed) return fail(parsed.error().message);
  const AppOptions& opt = *parsed;
  if (opt.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  UiState state;
  AppModel model;
  const std::string assets =
      std::filesystem::exists("assets/scenarios") ? "assets" : std::string(BANKSCOPE_ASSETS_DIR);
  state.presets = find_presets(assets + "/scenarios");
  load_seed_pair(state);
  if (!opt.scenario.empty()) {
    Result<bool> r = load_scenario_into(state, 0, opt.scenario);
    if (!r) return fail(r.error().message);
    state.compare = false;
  }
  if (!opt.scenario_b.empty()) {
    Result<bool> r = load_scenario_into(state, 1, opt.scenario_b);
    if (!r) return fail(r.error().message);
    state.compare = true;
  }
  if (!opt.trace.empty()) {
    Result<bool> r = open_trace(state, opt.trace);
    if (!r) return fail(r.error().message);
    if (!opt.array.empty()) {
      r = set_trace_array(state, opt.array);
      if (r && !opt.layout.empty()) r = set_trace_layout(state, opt.layout);
      if (!r) return fail(r.error().message);
    }
  }
  if (opt.compare) state.compare = *opt.compare;
  if (opt.stride) {
    // On a trace, --stride is the what-if's row stride (it needs --array).
    Result<bool> r = true;
    if (state.trace.active()) {
      PhysicalLayout l = state.trace.what_if.layout;
      l.row_stride = static_cast<int>(*opt.stride);
      r = set_trace_what_if_layout(state, l);
    } else {
      set_row_stride(state.configs[0], *opt.stride);
    }
    if (!r) return fail("--stride: " + r.error().message);
  }
  state.large_font = opt.large;
  state.high_contrast = opt.contrast;
  state.presentation = opt.presentation;
  if (!opt.results.empty()) {
    Result<GpuResults> r = load_gpu_results(opt.results);
    if (!r) return fail(r.error().message);
    state.results = std::move(r).value();
    state.results_path = opt.results;
  }
  std::vector<ScriptStep> script;
  if (!opt.script.empty()) {
    Result<std::string> text = read_text_file(opt.script);
    if (!text) return fail(text.error().message);
    Result<std::vector<ScriptStep>> steps = parse_script(*text, opt.script);
    if (!steps) return fail(steps.error().message);
    script = std::move(steps).value();
  }
  model.update(state);
  // A batch run shows the what-if's costs, not "computing" (a large trace costs them on a worker).
  while (opt.batch() && model.what_if_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    model.update(state);
  }
  if (state.trace.active() && !model.trace().pane.ok && opt.batch()) {
    return fail(opt.trace + ": " + model.trace().pane.error);
  }
  for (int i = 0; i < 2; ++i) {
    // A bad --stride (or scenario) is a command-line error in batch mode: say it and stop.
    if (!model.pane(i).ok && (state.compare || i == state.edit) && opt.batch()) {
      return fail(std::string(i == 0 ? "A" : "B") + ": " + model.pane(i).error);
    }
  }

  if (!opt.svg.empty()) {  // vector export: no window, no GL
    Result<std::string> svg = export_svg(model, state);
    if (!svg) return fail(svg.error().message);
    Result<bool> saved = save_text_file_atomic(opt.svg, *svg);
    if (!saved) return fail(saved.error().message);
    std::printf("bankscope: wrote %s\n", opt.svg.c_str());
    return 0;
  }

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
  const float ui_scale = std::clamp(std::min(float(opt.width) / 1920.0f, float(opt.height) / 1080.0f), 1.0f, 2.0f);
  load_fonts(ui_scale);
  ImGui::GetStyle().ScaleAllSizes(ui_scale);  // paddings and spacing grow with the fonts
  Result<std::unique_ptr<Window>> created =
      Window::create(WindowConfig{opt.width, opt.height, "bankscope", !opt.batch()});
  if (!created) {
    ImGui::DestroyContext();
    return fail(created.error().message);
  }
  Window& window = **created;
  if (opt.layout_check) prepare_layout_check();

  // ---- loop ----------------------------------------------------------------------------------
  const bool bench = opt.bench_frames > 0;
  if (bench) state.anim.playing = true, state.anim.speed = 30;
  std::vector<double> frame_ms, build_ms, stride_ms;
  size_t next_step = 0;
  int wait = script.empty() ? opt.frames : 0;  // frames left before the next batch action
  std::string pending_shot = script.empty() ? opt.screenshot : "";
  int exit_code = 0;
  double last = window.time();
  for (int frame = 0; !window.should_close(); ++frame) {
    // Script steps run until one needs frames to pass (frames K, screenshot).
    while (!script.empty() && wait == 0 && pending_shot.empty() && next_step < script.size()) {
      const ScriptStep& s = script[next_step++];
      if (s.verb == "frames" && s.args.size() == 1) {
        wait = std::max(1, std::atoi(s.args[0].c_str()));
      } else if (s.verb == "screenshot" && s.args.size() == 1) {
        pending_shot = s.args[0];
        wait = 2;  // ImGui settles a changed layout within a frame or two
      } else {
        Result<bool> r = apply_step(s, state, model);
        if (!r) {
          exit_code = fail(opt.script + ":" + std::to_string(s.line) + ": " + r.error().message);
          window.request_close();
          break;
        }
        if (!*r) {
          exit_code = fail(opt.script + ":" + std::to_string(s.line) + ": " + s.verb +
                           ": expects one argument");
          window.request_close();
          break;
        }
      }
    }
    if (exit_code != 0) break;

    const double now = window.time();
    const double t0 = thread_cpu_ms();
    const bool stride_change = bench && !opt.bench_empty && frame % 50 == 25;
    if (stride_change) set_row_stride(state.configs[0], row_stride(state.configs[0]) == 32 ? 33 : 32);
    window.begin_frame();
    // A layout check sees the frame with no tooltip: the pointer (Xvfb centres it) is moved away.
    if (opt.layout_check) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    if (!opt.bench_empty) {
      // Rectangles are this frame's: a word cell drawn at the last stride is not one of this one's.
      state.rects.clear();
      handle_shortcuts(window.shortcuts(), state, model);
      // Batch runs are deterministic: the clock advances only through script steps.
      if (!opt.batch() || bench) model.advance(state, bench ? 1.0 / 60 : now - last);
      draw_frame(model, state);
    }
    ImGui::Render();
    // --layout-check: the frame the screenshot would take (the layout has settled by then).
    const bool check_now = opt.layout_check && script.empty() && wait <= 1;
    if (check_now) {
      const std::vector<std::string> issues = check_text_layout();
      for (const std::string& s : issues) std::fprintf(stderr, "bankscope: layout: %s\n", s.c_str());
      std::printf("bankscope: layout check %dx%d%s%s: %zu problem%s\n", opt.width, opt.height,
                  state.large_font ? " large" : "", state.compare ? " compare" : " single", issues.size(),
                  issues.size() == 1 ? "" : "s");
      if (!issues.empty()) exit_code = 3;
    }
    const double t1 = thread_cpu_ms();
    const ImVec4 bg = clear_color(state);
    window.render(bg.x, bg.y, bg.z);
    if (!state.request_screenshot.empty()) {
      Result<bool> r = window.screenshot(state.request_screenshot);
      state.message = r ? "saved " + state.request_screenshot : r.error().message;
      state.message_is_error = !r;
      state.request_screenshot.clear();
    }
    if (!state.request_svg.empty()) {
      Result<std::string> svg = export_svg(model, state);
      Result<bool> saved = svg ? save_text_file_atomic(state.request_svg, *svg) : Result<bool>(svg.error());
      state.message = saved ? "saved " + state.request_svg : saved.error().message;
      state.message_is_error = !saved;
      state.request_svg.clear();
    }
    if (!pending_shot.empty() && wait <= 1) {
      Result<bool> r = window.screenshot(pending_shot);
      if (!r) {
        exit_code = fail(r.error().message);
        break;
      }
      if (!opt.dump_rects.empty()) {
        write_rects(state, opt.dump_rects);
        write_rects(state, pending_shot + ".rects");  // per screenshot, for scripted runs
      }
      std::printf("bankscope: wrote %s\n", pending_shot.c_str());
      pending_shot.clear();
      wait = 0;
      if (script.empty()) break;
    }
    if (check_now && pending_shot.empty()) break;
    window.present();
    const double t2 = thread_cpu_ms();
    last = now;
    if (state.request_fullscreen_toggle) {
      window.toggle_fullscreen();
      state.request_fullscreen_toggle = false;
    }
    if (wait > 0) --wait;
    if (bench && frame >= 10) {  // the first frames build font textures and caches
      frame_ms.push_back(t2 - t0);
      build_ms.push_back(t1 - t0);
      if (stride_change) stride_ms.push_back(t2 - t0);
      if (int(frame_ms.size()) >= opt.bench_frames) break;
    }
    if (!script.empty() && next_step >= script.size() && wait == 0 && pending_shot.empty()) break;
    if (window.shortcuts().quit) break;
  }

  // ---- shutdown ------------------------------------------------------------------------------
  if (bench) {
    std::printf("bankscope bench (%s, %dx%d, %zu frames): median CPU per frame %.3f ms "
                "(UI build %.3f ms)",
                opt.bench_empty ? "empty ImGui frame" : "app, animation running", opt.width,
                opt.height, frame_ms.size(), median(frame_ms), median(build_ms));
    if (!stride_ms.empty()) {
      std::printf("; frames with a stride change: max %.3f ms",
                  *std::max_element(stride_ms.begin(), stride_ms.end()));
    }
    std::printf("\n");
  }
  created->reset();
  ImGui::DestroyContext();
  return exit_code;
}
