// layout_check.cpp: finds clipped, overflowing and overlapping text in the frame ImGui just built
// (see layout_check.hpp). Uses imgui_internal.h to walk the windows (1.86's ImGuiWindow fields).
#include "layout_check.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace bankscope {

namespace {

struct Glyph {
  ImVec2 a, b;                // the quad on screen
  ImVec4 clip;                // its draw command's clip rect
  int window = 0;             // index into the window list
  int run = 0;                // text run (one text item, roughly)
  unsigned code = 0;          // codepoint, 0 when unknown
  bool space_before = false;  // a gap (spaces draw no glyph)
};

struct WindowInfo {
  std::string name;
  bool scrolls_y = false;
  bool scrolls_x = false;          // has a horizontal scrollbar and something to scroll to
  float clip_x0 = 0, clip_x1 = 0;  // its inner clip rect (a table column's is narrower)
};

std::string short_name(const char* name) {
  // Child windows are named "parent/child_ID": keep the last part, without the hex id.
  std::string s = name ? name : "?";
  const size_t slash = s.rfind('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  const size_t us = s.rfind('_');
  if (us != std::string::npos && us + 9 == s.size()) s = s.substr(0, us);
  return s;
}

std::string utf8(unsigned c) {
  std::string s;
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6)), s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xE0 | (c >> 12)), s += char(0x80 | ((c >> 6) & 0x3F)), s += char(0x80 | (c & 0x3F));
  }
  return s;
}

}  // namespace

void prepare_layout_check() {
  // Textured anti-aliased lines sample the atlas away from the white pixel and would look like
  // glyphs; polygon lines look the same on screen.
  ImGui::GetStyle().AntiAliasedLinesUseTex = false;
}

std::vector<std::string> check_text_layout() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImVec2 white = ImGui::GetFontTexUvWhitePixel();
  // Atlas coordinates -> codepoint, to name the text in the messages.
  std::map<std::pair<float, float>, unsigned> code_of;
  for (ImFont* font : ImGui::GetIO().Fonts->Fonts) {
    for (const ImFontGlyph& gl : font->Glyphs) code_of[{gl.U0, gl.V0}] = gl.Codepoint;
  }

  std::vector<Glyph> glyphs;
  std::vector<WindowInfo> windows;
  std::vector<std::string> issues;
  int run = 0;
  for (ImGuiWindow* w : g.Windows) {
    if (!w->Active || w->Hidden) continue;
    const int wi = static_cast<int>(windows.size());
    windows.push_back({short_name(w->Name), !(w->Flags & ImGuiWindowFlags_NoScrollbar),
                       (w->Flags & ImGuiWindowFlags_HorizontalScrollbar) && w->ScrollMax.x > 0,
                       w->InnerClipRect.Min.x, w->InnerClipRect.Max.x});
    // Content past the bottom or right edge of a window that cannot scroll is never drawn.
    const bool child = (w->Flags & ImGuiWindowFlags_ChildWindow) != 0;
    if (child && (w->Flags & ImGuiWindowFlags_NoScrollbar)) {
      const float over_y = w->DC.CursorMaxPos.y - w->InnerRect.Max.y;
      const float over_x = w->DC.CursorMaxPos.x - w->InnerRect.Max.x;
      if (over_y > 1 || over_x > 1) {
        char buf[200];
        std::snprintf(
            buf, sizeof buf,
            "overflow: %s's content runs %.0f px past its bottom, %.0f px past its right edge",
            windows.back().name.c_str(), std::max(0.0f, over_y), std::max(0.0f, over_x));
        issues.push_back(buf);
      }
    }
    const ImDrawList* dl = w->DrawList;
    for (const ImDrawCmd& cmd : dl->CmdBuffer) {
      if (cmd.UserCallback != nullptr) continue;
      const ImDrawIdx* idx = dl->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = dl->VtxBuffer.Data + cmd.VtxOffset;
      int prev = -1;  // the previous glyph of this draw command, or -1
      // Glyphs are PrimRectUV quads: indices (v, v+1, v+2, v, v+2, v+3). Other shapes are
      // triangles too, so scan triangle by triangle.
      for (unsigned i = 0; i + 6 <= cmd.ElemCount;) {
        const unsigned v = idx[i];
        const bool quad = idx[i + 1] == v + 1 && idx[i + 2] == v + 2 && idx[i + 3] == v &&
                          idx[i + 4] == v + 2 && idx[i + 5] == v + 3;
        if (!quad) {
          i += 3;
          continue;
        }
        i += 6;
        const ImDrawVert& p0 = vtx[v];
        const ImDrawVert& p2 = vtx[v + 2];
        if ((p0.uv.x == white.x && p0.uv.y == white.y) ||
            (p0.uv.x == p2.uv.x && p0.uv.y == p2.uv.y)) {
          prev = -1;
          continue;
        }
        Glyph gl;
        gl.a = ImVec2(std::min(p0.pos.x, p2.pos.x), std::min(p0.pos.y, p2.pos.y));
        gl.b = ImVec2(std::max(p0.pos.x, p2.pos.x), std::max(p0.pos.y, p2.pos.y));
        gl.clip = cmd.ClipRect;
        gl.window = wi;
        const auto it = code_of.find({p0.uv.x, p0.uv.y});
        gl.code = it == code_of.end() ? 0 : it->second;
        // A new run unless this glyph continues the previous one on the same line.
        const float h = gl.b.y - gl.a.y;
        const Glyph* pg = prev >= 0 ? &glyphs[static_cast<size_t>(prev)] : nullptr;
        const bool continues = pg != nullptr && gl.a.x >= pg->a.x - 1 &&
                               gl.a.x <= pg->b.x + 1.2f * h &&
                               std::fabs(gl.b.y - pg->b.y) < 0.8f * h + 2;
        if (!continues) ++run;
        gl.run = run;
        gl.space_before = continues && gl.a.x > pg->b.x + 0.2f * h;
        prev = static_cast<int>(glyphs.size());
        glyphs.push_back(gl);
      }
    }
  }

  // The text of each run, for the messages.
  std::map<int, std::string> text;
  for (const Glyph& gl : glyphs) {
    text[gl.run] += std::string(gl.space_before ? " " : "") + (gl.code ? utf8(gl.code) : "?");
  }
  auto where = [&](const Glyph& gl) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " at (%.0f, %.0f)", gl.a.x, gl.a.y);
    return "'" + text[gl.run] + "' in " + windows[static_cast<size_t>(gl.window)].name + buf;
  };

  // Clipped: a glyph crossing its clip rect (half a pixel of slack for rounding).
  int last_run = -1;
  for (const Glyph& gl : glyphs) {
    const float left = gl.clip.x - gl.a.x, right = gl.b.x - gl.clip.z;
    // Text scrolled out of view is reachable, not cut: a glyph crossing the edge of a window that
    // scrolls sideways is fine; one crossing a table column's edge inside it is not.
    const WindowInfo& wi = windows[static_cast<size_t>(gl.window)];
    const bool left_scrolls = wi.scrolls_x && std::fabs(gl.clip.x - wi.clip_x0) < 1;
    const bool right_scrolls = wi.scrolls_x && std::fabs(gl.clip.z - wi.clip_x1) < 1;
    float over = std::max(left_scrolls ? 0.0f : left, right_scrolls ? 0.0f : right);
    if (!windows[static_cast<size_t>(gl.window)].scrolls_y) {
      over = std::max({over, gl.clip.y - gl.a.y, gl.b.y - gl.clip.w});
    }
    if (over > 0.5f && gl.run != last_run) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " is cut by its clip rect (%.0f px)", over);
      issues.push_back("clipped: " + where(gl) + buf);
      last_run = gl.run;
    }
  }
  // Shortened: ImGui's ellipsis, three '.' glyphs close together on one line (the fonts' default
  // ranges have no U+2026); the app's own strings never end in "...".
  for (size_t i = 0; i + 2 < glyphs.size(); ++i) {
    const Glyph *p = &glyphs[i], *q = &glyphs[i + 1], *r = &glyphs[i + 2];
    auto near = [](const Glyph* x, const Glyph* y) {
      const float w = x->b.x - x->a.x;
      return x->window == y->window && std::fabs(x->a.y - y->a.y) < 1 && y->a.x > x->a.x &&
             y->a.x - x->b.x < 2 * w + 3;
    };
    if (p->code == '.' && q->code == '.' && r->code == '.' && near(p, q) && near(q, r)) {
      issues.push_back("shortened: " + (i > 0 ? where(glyphs[i - 1]) : where(*p)) +
                       " ends in an ellipsis");
      i += 2;
    }
  }
  // Overlapping: glyphs of different runs whose boxes intersect by more than a pixel each way
  // (glyph boxes carry a pixel of anti-aliasing margin). Sorted by x for a sweep.
  std::vector<size_t> order(glyphs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return glyphs[x].a.x < glyphs[y].a.x; });
  std::map<std::pair<int, int>, bool> reported;
  constexpr float kSlack = 1.0f;
  for (size_t i = 0; i < order.size(); ++i) {
    const Glyph& p = glyphs[order[i]];
    for (size_t j = i + 1; j < order.size(); ++j) {
      const Glyph& q = glyphs[order[j]];
      if (q.a.x >= p.b.x - kSlack) break;
      if (p.run == q.run) continue;
      // Only what is visible can overlap: each glyph as its clip rect cuts it.
      const float ox = std::min({p.b.x, q.b.x, p.clip.z, q.clip.z}) -
                       std::max({p.a.x, q.a.x, p.clip.x, q.clip.x});
      const float oy = std::min({p.b.y, q.b.y, p.clip.w, q.clip.w}) -
                       std::max({p.a.y, q.a.y, p.clip.y, q.clip.y});
      if (ox <= kSlack || oy <= kSlack) continue;
      const std::pair<int, int> key(std::min(p.run, q.run), std::max(p.run, q.run));
      if (reported[key]) continue;
      reported[key] = true;
      issues.push_back("overlap: " + where(p) + " and " + where(q));
    }
  }
  return issues;
}

}  // namespace bankscope
