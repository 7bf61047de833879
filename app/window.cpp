// window.cpp: GLFW + OpenGL (via glad) + ImGui backends; screenshots with stb_image_write.
#include "window.hpp"

#include <glad/gl.h>
// glad provides the GL declarations; GLFW must not include its own GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <cstdio>
#include <vector>

namespace bankscope {

namespace {

std::string g_glfw_error;  // the last GLFW error, for the one-line message if creation fails

void on_glfw_error(int code, const char* text) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (text ? text : "?");
}

}  // namespace

Result<std::unique_ptr<Window>> Window::create(const WindowConfig& cfg) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    return Error{"cannot open a window (no display? run under xvfb-run): " + g_glfw_error};
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_FALSE);
  std::unique_ptr<Window> w(new Window());
  w->window_ = glfwCreateWindow(cfg.width, cfg.height, cfg.title, nullptr, nullptr);
  if (w->window_ == nullptr) {
    glfwTerminate();
    return Error{"cannot create an OpenGL 3.3 core window: " + g_glfw_error};
  }
  glfwMakeContextCurrent(w->window_);
  if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0) {
    glfwDestroyWindow(w->window_);
    glfwTerminate();
    return Error{"cannot load OpenGL 3.3 functions (glad)"};
  }
  glfwSwapInterval(cfg.vsync ? 1 : 0);
  ImGui_ImplGlfw_InitForOpenGL(w->window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  return w;
}

Window::~Window() {
  if (window_ == nullptr) return;
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::should_close() const { return glfwWindowShouldClose(window_) != 0; }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
double Window::time() const { return glfwGetTime(); }

void Window::begin_frame() {
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
}

void Window::render(float r, float g, float b) {
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(r, g, b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

Result<bool> Window::screenshot(const std::string& path) const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  if (w <= 0 || h <= 0) return Error{path + ": the window has no pixels to save"};
  std::vector<unsigned char> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows run bottom-up, PNG's top-down; alpha is forced opaque.
  std::vector<unsigned char> flipped(pixels.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) {
    const unsigned char* src = pixels.data() + static_cast<size_t>(h - 1 - y) * row;
    unsigned char* dst = flipped.data() + static_cast<size_t>(y) * row;
    for (size_t i = 0; i < row; ++i) dst[i] = (i % 4 == 3) ? 255 : src[i];
  }
  const std::string tmp = path + ".tmp";
  if (stbi_write_png(tmp.c_str(), w, h, 4, flipped.data(), static_cast<int>(row)) == 0) {
    std::remove(tmp.c_str());
    return Error{path + ": cannot write the PNG"};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{path + ": cannot rename the PNG into place"};
  }
  return true;
}

void Window::present() { glfwSwapBuffers(window_); }

void Window::toggle_fullscreen() {
  if (!fullscreen_) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (mode == nullptr) return;
    glfwGetWindowPos(window_, &saved_x_, &saved_y_);
    glfwGetWindowSize(window_, &saved_w_, &saved_h_);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    fullscreen_ = true;
  } else {
    glfwSetWindowMonitor(window_, nullptr, saved_x_, saved_y_, saved_w_, saved_h_, GLFW_DONT_CARE);
    fullscreen_ = false;
  }
}

Shortcuts Window::shortcuts() const {
  Shortcuts s;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return s;  // typing a file name or a value is not a shortcut
  // ImGui 1.86 indexes io.KeysDown by GLFW key code, so IsKeyPressed takes GLFW_KEY_*.
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
  auto once = [](int key) { return ImGui::IsKeyPressed(key, false); };
  s.left = pressed(GLFW_KEY_LEFT);
  s.right = pressed(GLFW_KEY_RIGHT);
  s.up = pressed(GLFW_KEY_UP);
  s.down = pressed(GLFW_KEY_DOWN);
  s.shift = io.KeyShift;
  s.space = once(GLFW_KEY_SPACE);
  s.step_fwd = pressed(GLFW_KEY_PERIOD);
  s.step_back = pressed(GLFW_KEY_COMMA);
  s.screenshot = once(GLFW_KEY_S);
  // Escape only leaves fullscreen: a lecturer reaching for it must not lose the window.
  s.fullscreen = once(GLFW_KEY_F11) || once(GLFW_KEY_F) || (fullscreen_ && once(GLFW_KEY_ESCAPE));
  s.compare = once(GLFW_KEY_C);
  s.large = once(GLFW_KEY_L);
  s.contrast = once(GLFW_KEY_H);
  s.presentation = once(GLFW_KEY_P);
  s.svg = once(GLFW_KEY_V);
  s.quit = once(GLFW_KEY_Q);
  for (int d = 1; d <= 9; ++d) {
    if (once(GLFW_KEY_0 + d) || once(GLFW_KEY_KP_0 + d)) s.digit = d;
  }
  return s;
}

}  // namespace bankscope
