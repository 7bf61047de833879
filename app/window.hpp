// window.hpp: the thin window layer: the only code in bankscope that touches GLFW or OpenGL.
//
// It opens a GLFW window with an OpenGL 3.3 core context (functions loaded by glad), runs the
// ImGui GLFW + OpenGL3 backends, reads keyboard shortcuts, toggles fullscreen and saves PNG
// screenshots (glReadPixels + stb_image_write). Panels and the app model never include GLFW/GL.
#pragma once

#include <memory>
#include <string>

#include "sim/status.hpp"

struct GLFWwindow;

namespace bankscope {

struct WindowConfig {
  int width = 1600;
  int height = 900;
  const char* title = "bankscope";
  bool vsync = true;
};

// Lecture shortcuts pressed during the last frame (ignored while a text field has focus).
struct Shortcuts {
  bool left = false, right = false, up = false, down = false;  // stride -1/+1, -8/+8 (shift: x4)
  bool shift = false;
  bool space = false;       // play / pause
  bool step_fwd = false;    // '.'
  bool step_back = false;   // ','
  bool screenshot = false;  // 's'
  bool fullscreen = false;  // F11 or 'f' (Escape leaves fullscreen)
  bool compare = false;     // 'c'
  bool large = false;       // 'l'
  bool contrast = false;    // 'h'
  bool presentation = false;  // 'p': hide / show the sidebar
  bool svg = false;           // 'v': export the panes as SVG
  bool quit = false;        // 'q'
  int digit = 0;            // 1..9 picks a preset, 0 = none
};

class Window {
 public:
  // Needs a current ImGui context (ImGui::CreateContext) for the backends.
  static Result<std::unique_ptr<Window>> create(const WindowConfig& cfg);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool should_close() const;
  void request_close();
  // Polls events and starts the backends' frame; call ImGui::NewFrame() after it.
  void begin_frame();
  // Draws ImGui's draw data over the cleared framebuffer (call after ImGui::Render()).
  void render(float r, float g, float b);
  // Saves what render() drew (the back buffer) as a PNG; call between render() and present().
  Result<bool> screenshot(const std::string& path) const;
  void present();
  void toggle_fullscreen();
  Shortcuts shortcuts() const;
  double time() const;  // seconds since start

 private:
  Window() = default;
  GLFWwindow* window_ = nullptr;
  bool fullscreen_ = false;
  int saved_x_ = 0, saved_y_ = 0, saved_w_ = 0, saved_h_ = 0;
};

}  // namespace bankscope
