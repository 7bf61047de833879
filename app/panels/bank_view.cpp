// bank_view.cpp: shared memory as the banks see it. 32 bank columns; each row is one bank-width
// word per bank (row r holds words 32r .. 32r+31); the selected warp instruction's lanes are drawn
// on the words they touch, coloured by when they are served (waiting / serving now / served), and
// words that share a bank with other words in the same phase (a bank conflict) are hatched and
// outlined. The header row lights up the banks that serve in the current wavefront.
//
// ldmatrix/stmatrix (issue 11): each lane's 16-byte row is outlined across its words and labelled
// "m<matrix>.r<row>" (lane 8i + r gives row r of matrix i, PTX ISA), and a strip under the grid
// shows the 8x8 matrices as 8 rows each, lit as their wavefronts serve them, with the rows the
// current wavefront reads spelled out. Atomics: a word that several lanes update is labelled with
// the lane count ("8x") and outlined twice in purple: its lanes are served one per wavefront
// (sim/rules.hpp R8), unlike a load's broadcast; n-way then counts lanes, as the model does.
//
// Every word the instruction touches is drawn, however far apart: an array of more than kMaxRows
// rows shows only the rows holding a touched word, and each run of rows skipped between them is a
// thin break marker ("+31" rows), so the words stacked in a bank always number its n-way.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

constexpr int kMaxRows = 40;  // more rows than this get too thin to read on a projector
constexpr float kBreakScale = 0.6f;
constexpr float kMinCellPx = 3.0f;  // a word row's least height: the grid shrinks no further
constexpr float kMinLabelPx =
    7.0f;  // smaller lane numbers are not legible  // a break marker's height, in word rows

// One row of the picture: a row of words, or a break marker standing for `skipped` empty rows.
struct DisplayRow {
  int64_t row = 0;
  int64_t skipped = 0;  // > 0: a break marker
};

struct WordInfo {
  std::vector<int> lanes;
  std::vector<int> wavefronts;  // every wavefront that serves this word
  bool conflict = false;
};

}  // namespace

void draw_bank_view(const PaneModel& pane, UiState& state, const PaneView& view) {
  const AccessReport& rep = pane.report;
  const int banks = rep.cfg.banks;
  const int bank_bytes = rep.cfg.bank_bytes;
  const int cycle = state.anim.cycle;
  const int waves = rep.cost.wavefronts;
  const bool matrix = is_matrix(rep.access.op);
  // Every lane served alone (R8); not ATOMS.POPC.INC, whose lanes on one word are served once (R8b),
  // nor one execution of ATOMS.CAST.SPIN, where each bank swaps for one lane and the others fail and
  // retry in the next execution (R8c): no bank serves more than one lane in it.
  const bool spin = rep.access.op == Op::kAtomic && rep.access.atom == AtomOp::kCastSpin;
  const bool atomic = serializes_shared_words(rep.access);  // legend_marks() asks the same
  const int row_words = matrix ? std::max(1, 16 / bank_bytes) : 1;  // words of one 16-byte row

  // word -> lanes, wavefronts; bank -> most distinct words in one phase (n-way).
  std::map<uint32_t, WordInfo> words;
  for (auto& [word, lanes] : lanes_per_word(rep)) words[word].lanes = std::move(lanes);
  for (size_t k = 0; k < rep.wavefronts.size(); ++k) {
    for (const auto& bw : rep.wavefronts[k].words) words[bw.second].wavefronts.push_back(int(k));
  }
  std::vector<int> degree(static_cast<size_t>(banks), 0);
  for (uint32_t phase_mask : rep.phase_masks) {
    std::map<int, std::vector<uint32_t>> per_bank;
    for (int l = 0; l < kWarpSize; ++l) {
      if (!(phase_mask >> l & 1u) || !rep.lanes[static_cast<size_t>(l)].active) continue;
      const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
      for (int j = 0; j < d.words; ++j) {
        auto& v = per_bank[d.bank[static_cast<size_t>(j)]];
        // An atomic serves every lane alone (R8): a bank costs its lanes, not its distinct words.
        if (atomic || std::find(v.begin(), v.end(), d.word[static_cast<size_t>(j)]) == v.end()) {
          v.push_back(d.word[static_cast<size_t>(j)]);
        }
      }
    }
    for (auto& [bank, v] : per_bank) {
      if (spin) v.resize(1);  // the bank's first lane swaps; the others retry (not a conflict)
      degree[static_cast<size_t>(bank)] = std::max(degree[static_cast<size_t>(bank)], int(v.size()));
      if (v.size() > 1) {
        for (uint32_t w : v) words[w].conflict = true;
      }
    }
  }

  // Rows to show: the array the instruction touches, or a window around the touched words.
  // A trace execution has no scenario array (pane.instructions empty): the touched rows.
  int64_t row0 = 0, row1 = 0;
  if (!pane.instructions.empty()) {
    const WarpInstruction& instr = pane.instructions[static_cast<size_t>(pane.selected)];
    const SharedArray& arr =
        pane.scenario.arrays[static_cast<size_t>(pane.scenario.accesses[static_cast<size_t>(instr.stmt)].array)];
    const int64_t first_word = arr.base / static_cast<uint32_t>(bank_bytes);
    const int64_t last_word = (int64_t(arr.base) + int64_t(arr.bytes()) - 1) / bank_bytes;
    row0 = first_word / banks, row1 = last_word / banks;
  } else if (!words.empty()) {
    row0 = int64_t(words.begin()->first) / banks;
    row1 = int64_t(words.rbegin()->first) / banks;
  }
  std::vector<DisplayRow> shown;
  if (row1 - row0 + 1 <= kMaxRows || words.empty()) {
    for (int64_t r = row0; r <= row1; ++r) shown.push_back(DisplayRow{r, 0});
  } else {
    // Only the touched rows; the empty rows between them become break markers.
    int64_t prev = row0 - 1;
    for (const auto& [word, info] : words) {
      const int64_t r = int64_t(word) / banks;
      if (r == prev) continue;
      if (r > prev + 1) shown.push_back(DisplayRow{prev + 1, r - prev - 1});
      shown.push_back(DisplayRow{r, 0});
      prev = r;
    }
    if (row1 > prev) shown.push_back(DisplayRow{prev + 1, row1 - prev});
  }
  int word_rows = 0, breaks = 0;
  for (const DisplayRow& d : shown) (d.skipped > 0 ? breaks : word_rows)++;
  const int rows = static_cast<int>(shown.size());

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // The row labels keep the normal body size in lecture mode: a wider label column would narrow
  // the 32 bank columns and so shrink the bank numbers below their normal size (issue 12).
  ImFont* lf = ImGui::GetFont();
  const float label_font = std::min(font, body_font(false)->FontSize);
  const float label_w = lf->CalcTextSizeA(label_font, 1e9f, 0, "row 000").x + 6;
  const float cell_w = std::max(4.0f, (view.width - label_w) / float(banks));
  const float header_h = font + 6;
  const float degree_h = font + 2;
  // 8- and 16-byte lanes get a note under the grid (below): its height comes out of the grid's.
  const int note_phases = static_cast<int>(rep.phase_masks.size());
  char note[160] = "";
  // ldmatrix: the lanes whose row starts at a word, and the wavefronts that serve each lane's row.
  std::map<uint32_t, std::vector<int>> row_lanes;
  std::array<std::vector<int>, kWarpSize> lane_waves{};
  if (matrix) {
    for (int l = 0; l < kWarpSize; ++l) {
      const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
      if (!d.active) continue;
      row_lanes[d.word[0]].push_back(l);
      for (int j = 0; j < d.words; ++j) {
        for (int k : words[d.word[static_cast<size_t>(j)]].wavefronts) {
          auto& v = lane_waves[static_cast<size_t>(l)];
          if (std::find(v.begin(), v.end(), k) == v.end()) v.push_back(k);
        }
      }
    }
  }
  std::string reads_now;  // "wavefront 3 reads m0.r3"
  if (matrix && cycle < waves) {
    // "wavefront 3 reads m0 row 3", "wavefront 0 reads m0 rows 0-7": per matrix, its rows served
    // now.
    reads_now = std::string("wavefront ") + std::to_string(cycle) +
                (rep.access.op == Op::kStmatrix ? " writes" : " reads");
    const char* sep = " ";
    for (int m = 0; m < 4; ++m) {
      std::string rows_text;
      int n = 0;
      for (int r = 0; r < 8; ++r) {
        const auto& v = lane_waves[static_cast<size_t>(8 * m + r)];
        if (std::find(v.begin(), v.end(), cycle) == v.end()) continue;
        rows_text += (n++ ? "," : "") + std::to_string(r);
      }
      if (n == 0) continue;
      reads_now += sep + ("m" + std::to_string(m)) + (n == 1 ? " row " : " rows ") +
                   (n == 8 ? "0-7" : rows_text);
      sep = ", ";
    }
  }
  if (matrix) {
    // One line, so the grid keeps its height in lecture mode: the rows being served, or at the end
    // what the strip above shows.
    if (reads_now.empty()) {
      std::snprintf(note, sizeof note, "%s.x%d: one phase per 8x8 matrix", op_name(rep.access.op),
                    rep.access.matrices);
    } else {
      std::snprintf(note, sizeof note, "%s", reads_now.c_str());
    }
  } else if (spin) {
    // R8c: per phase a read and a swap wavefront; one lane per bank swaps, and cast_spin() marks
    // every other active lane as failing (LaneDetail::retries).
    int swaps = 0, fails = 0;
    for (const LaneDetail& d : rep.lanes) {
      swaps += d.active && !d.retries;
      fails += d.active && d.retries;
    }
    std::snprintf(note, sizeof note,
                  "CAS spin: %d lane%s swap%s (one per bank), %d fail%s and retr%s in the next execution "
                  "(grey, struck out; a grey corner: some of the word's lanes)",
                  swaps, swaps == 1 ? "" : "s", swaps == 1 ? "s" : "", fails, fails == 1 ? "s" : "",
                  fails == 1 ? "ies" : "y");
  } else if (atomic) {
    int most = 0;
    for (const auto& [w, info] : words) most = std::max(most, int(info.lanes.size()));
    std::snprintf(
        note, sizeof note, "%s: every lane is served alone%s",
        most > 1 ? "atomic" : "atomic, no shared word",
        most > 1 ? "; \"Nx\" = N lanes on one word, one per wavefront (no broadcast)" : "");
  } else if (note_phases > 1) {
    std::snprintf(note, sizeof note, "%d-byte lanes, %d phases of %d: n-way is per phase, a bank shows all %d",
                  rep.access.width, note_phases, kWarpSize / note_phases, note_phases);
  }
  // The matrices strip (ldmatrix/stmatrix): one line of 8 boxes per matrix, above the note.
  const float strip_h = matrix ? font + 6 : 0.0f;
  float note_wrap = std::max(1.0f, view.width - 2);
  float note_h = note[0] ? lf->CalcTextSizeA(font, 1e9f, note_wrap, note).y + 2 : 0.0f;
  // Where the wrapped note would push a grid already at its smallest rows past the view (lecture
  // fonts in a small window: 64 word rows of an 8-byte tile), it shrinks to one line that fits
  // the width, and the whole note is its tooltip.
  const char* note_text = note;
  char note_short[96] = "";
  const float min_grid_h =
      header_h + degree_h + 2 + kMinCellPx * (float(word_rows) + kBreakScale * float(breaks));
  if (note[0] && min_grid_h + strip_h + note_h > view.height) {
    if (matrix || atomic || spin) {
      std::snprintf(note_short, sizeof note_short, "%s",
                    matrix ? reads_now.c_str() : spin ? "CAS spin: hover" : "atomic: hover");
    } else {
      std::snprintf(note_short, sizeof note_short, "%d-byte lanes, %d phases of %d: hover",
                    rep.access.width, note_phases, kWarpSize / note_phases);
    }
    note_text = note_short;
    if (lf->CalcTextSizeA(font, 1e9f, 0, note_short).x > view.width - 2) {
      std::snprintf(note_short, sizeof note_short, "%d phases: hover", note_phases);
    }
    note_wrap = 0;  // one line
    note_h = font + 2;
  }
  const float cell_h = std::clamp((view.height - header_h - degree_h - 2 - strip_h - note_h) /
                                      (float(word_rows) + kBreakScale * float(breaks)),
                                  kMinCellPx, font * 2);
  const float break_h = cell_h * kBreakScale;
  const float x0 = origin.x + label_w;
  const float gap = cell_w >= 8 ? 1.0f : 0.0f;
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);

  // Header: bank numbers; serving banks of the current wavefront filled orange.
  const uint64_t serving = (cycle < waves) ? rep.wavefronts[static_cast<size_t>(cycle)].banks : 0;
  dl->AddText(lf, label_font, ImVec2(origin.x, origin.y + 3), text_col, "bank");
  for (int b = 0; b < banks; ++b) {
    const ImVec2 a(x0 + float(b) * cell_w, origin.y);
    const ImVec2 c(a.x + cell_w - gap, a.y + header_h);
    const bool on = (serving >> b) & 1u;
    const ImU32 fill = on ? palette::kServe : palette::kIdleBank;
    dl->AddRectFilled(a, c, fill);
    char label[16];
    std::snprintf(label, sizeof label, "%d", b);
    // Bank numbers in a smaller size so two digits fit a 1/32 column.
    const float small = std::min(font, cell_w * 0.72f);
    const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, label);
    if (ts.x <= cell_w) {
      dl->AddText(ImGui::GetFont(), small,
                  ImVec2(a.x + (cell_w - gap - ts.x) / 2, a.y + (header_h - ts.y) / 2 + 1),
                  text_on(fill), label);
    }
    const int deg = degree[static_cast<size_t>(b)];
    if (deg > 1) {
      std::snprintf(label, sizeof label, "%d", deg);
      const ImVec2 ds = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, label);
      dl->AddText(ImGui::GetFont(), small, ImVec2(a.x + (cell_w - gap - ds.x) / 2, c.y + 1),
                  palette::kConflict, label);
    }
  }
  record_rect(state, view.id() + ".bank_header", ImVec2(x0, origin.y),
              ImVec2(x0 + float(banks) * cell_w, origin.y + header_h));
  dl->AddText(lf, label_font, ImVec2(origin.x, origin.y + header_h + 1), palette::kConflict, "n-way");

  // Words.
  const float gy = origin.y + header_h + degree_h;
  int hovered_word = -1;
  float y = gy;
  for (int r = 0; r < rows; ++r) {
    const int64_t row = shown[static_cast<size_t>(r)].row;
    if (const int64_t skipped = shown[static_cast<size_t>(r)].skipped; skipped > 0) {
      // Break marker: a zigzag across the banks and, when it fits, how many rows it stands for.
      const ImU32 col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
      std::vector<ImVec2> zig;
      const float step = std::max(4.0f, cell_w / 2);
      for (float x = x0; x <= x0 + float(banks) * cell_w; x += step) {
        zig.emplace_back(x, y + (zig.size() % 2 == 0 ? 1.0f : break_h - 1.0f));
      }
      dl->AddPolyline(zig.data(), static_cast<int>(zig.size()), col, 0, 1.0f);
      char label[32];
      // "+31": not "... 31", which the layout check reads as ImGui's ellipsis (a shortened text).
      std::snprintf(label, sizeof label, "+%lld", static_cast<long long>(skipped));
      const float small = std::min(font, break_h + 2);
      if (small >= 7) {
        dl->AddText(ImGui::GetFont(), small, ImVec2(origin.x, y + (break_h - small) / 2), col,
                    label);
      }
      record_rect(state, view.id() + ".bank_break." + std::to_string(row), ImVec2(x0, y),
                  ImVec2(x0 + float(banks) * cell_w, y + break_h));
      y += break_h;
      continue;
    }
    if (cell_h >= font * 0.8f && (r % std::max(1, int(font * 1.2f / cell_h)) == 0 || rows <= 16)) {
      char label[16];
      std::snprintf(label, sizeof label, "row %lld", static_cast<long long>(row));
      dl->AddText(lf, label_font, ImVec2(origin.x, y + (cell_h - label_font) / 2), text_col, label);
    } else if (r % 8 == 0 && y + font <= gy + float(rows) * cell_h) {  // never below the grid
      char label[16];
      std::snprintf(label, sizeof label, "%lld", static_cast<long long>(row));
      dl->AddText(lf, label_font, ImVec2(origin.x, y), text_col, label);
    }
    for (int b = 0; b < banks; ++b) {
      const uint32_t word = static_cast<uint32_t>(row * banks + b);
      const ImVec2 a(x0 + float(b) * cell_w, y);
      const ImVec2 c(a.x + cell_w - gap, y + cell_h - (cell_h >= 6 ? 1.0f : 0.0f));
      auto it = words.find(word);
      if (it == words.end()) {
        dl->AddRectFilled(a, c, palette::kEmptyWord);
        continue;
      }
      const WordInfo& info = it->second;
      // Every drawn word cell, for the tests (--dump-rects): "A.word.b07.w000231".
      char cell_name[40];
      std::snprintf(cell_name, sizeof cell_name, ".word.b%02d.w%06u", b, word);
      record_rect(state, view.id() + cell_name, a, c);
      bool now = false, done = !info.wavefronts.empty();
      for (int k : info.wavefronts) {
        if (k == cycle) now = true;
        if (k >= cycle) done = false;
      }
      if (cycle >= waves) done = true, now = false;
      // A CAS spin's lanes that fail (LaneDetail::retries, R8c) do so at their phase's swap wavefront
      // and retry in the loop's next execution. A word whose lanes all fail is never served: grey,
      // struck out, from the first failure on. A word one lane swaps while others on it fail (a
      // lower lane of the phase took its bank, or a phase swapped it before or after) is drawn as
      // served, with a grey corner from the first failure on.
      bool retry = false, some_retry = false;
      if (spin) {
        int fail_at = waves, failing = 0;
        for (int l : info.lanes) {
          const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
          if (!d.retries) continue;
          ++failing;
          fail_at = std::min(fail_at, d.wavefront);
        }
        const bool failed = failing > 0 && (cycle >= fail_at || cycle >= waves);
        if (failing > 0 && failing == int(info.lanes.size())) {
          done = false;
          retry = failed;
        } else {
          some_retry = failed;
        }
      }
      const ImU32 fill = retry ? palette::kRetry : now ? palette::kServe : done ? palette::kDone : palette::kWaiting;
      dl->AddRectFilled(a, c, fill);
      if (retry) {
        dl->AddLine(a, c, palette::kEmptyWord, 1.5f);  // struck out: told by shape, not by grey alone
        std::snprintf(cell_name, sizeof cell_name, ".retry.w%06u", word);
        record_rect(state, view.id() + cell_name, a, c);
      } else if (some_retry) {
        const float k = std::min(c.x - a.x, c.y - a.y) * 0.5f;  // a corner triangle, half the cell
        dl->AddTriangleFilled(ImVec2(c.x - k, a.y), ImVec2(c.x, a.y), ImVec2(c.x, a.y + k), palette::kRetry);
        std::snprintf(cell_name, sizeof cell_name, ".retry_part.w%06u", word);
        record_rect(state, view.id() + cell_name, ImVec2(c.x - k, a.y), ImVec2(c.x, a.y + k));
      }
      if (info.conflict) {
        // Small cells keep their waiting / serving / served fill readable: the conflict shows as a
        // stripe on the left edge and an outline; large cells are hatched as well.
        const float stripe = std::max(2.0f, (c.x - a.x) * 0.25f);
        dl->AddRectFilled(a, ImVec2(a.x + stripe, c.y), palette::kConflict);
        if (c.y - a.y >= 14.0f) hatch_rect(dl, ImVec2(a.x + stripe, a.y), c, palette::kConflict, 6.0f, 1.0f);
        dl->AddRect(a, c, palette::kConflict, 0, 0, 1.0f);
      }
      const bool serialized = atomic && info.lanes.size() > 1;
      if (serialized) {
        // Lanes on one word of an atomic: a double outline, by shape as well as colour.
        dl->AddRect(a, c, palette::kSerialize, 0, 0, 2.0f);
        dl->AddRect(ImVec2(a.x + 3, a.y + 3), ImVec2(c.x - 3, c.y - 3), palette::kSerialize, 0, 0,
                    1.0f);
        std::snprintf(cell_name, sizeof cell_name, ".serialized.w%06u", word);
        record_rect(state, view.id() + cell_name, a, c);
      }
      if (ImGui::IsMouseHoveringRect(a, c)) hovered_word = static_cast<int>(word);
      // ldmatrix/stmatrix rows are labelled once across their words, below.
      if (matrix) continue;
      // Lane marker: the (first) lane's number when it fits, "+" when several lanes share the word
      // (a broadcast or one writer); an atomic's shared word shows its lane count, "8x".
      char label[12];
      if (serialized) {
        std::snprintf(label, sizeof label, "%zux", info.lanes.size());
      } else {
        std::snprintf(label, sizeof label, info.lanes.size() > 1 ? "%d+" : "%d",
                      info.lanes.front());
      }
      // A smaller size when the body font does not fit (two digits in a 1/32 column), so lanes
      // 10..31 are labelled like 0..9; none below kMinLabelPx, where no lane gets one.
      const ImVec2 full = ImGui::CalcTextSize(label);
      const float size =
          std::min({font, font * (cell_w - gap) / full.x, font * (cell_h + 2) / full.y});
      if (size >= kMinLabelPx) {
        const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0, label);
        dl->AddText(ImGui::GetFont(), size,
                    ImVec2(a.x + (cell_w - gap - ts.x) / 2, a.y + (cell_h - ts.y) / 2),
                    text_on(fill), label);
        std::snprintf(cell_name, sizeof cell_name, ".lane_label.w%06u", word);
        record_rect(state, view.id() + cell_name, a, c);
      }
    }
    if (matrix) {
      // Each 16-byte row that starts in this bank row: outlined across its words, "m0.r3".
      for (int b = 0; b < banks; ++b) {
        const uint32_t word = static_cast<uint32_t>(row * banks + b);
        auto rl = row_lanes.find(word);
        if (rl == row_lanes.end()) continue;
        const int lane = rl->second.front();
        const int span = std::min(row_words, banks - b);
        const ImVec2 a(x0 + float(b) * cell_w, y);
        const ImVec2 c(x0 + float(b + span) * cell_w - gap,
                       y + cell_h - (cell_h >= 6 ? 1.0f : 0.0f));
        dl->AddRect(a, c, palette::kOutline, 0, 0, cell_h >= 10 ? 2.0f : 1.0f);
        char label[16];
        std::snprintf(label, sizeof label, rl->second.size() > 1 ? "m%d.r%d+" : "m%d.r%d", lane / 8,
                      lane % 8);
        const ImVec2 full = ImGui::CalcTextSize(label);
        const float size =
            std::min({font, font * (c.x - a.x - 2) / full.x, font * (cell_h + 2) / full.y});
        const WordInfo& info = words[word];
        bool now = false, done = !info.wavefronts.empty();
        for (int k : info.wavefronts) {
          if (k == cycle) now = true;
          if (k >= cycle) done = false;
        }
        if (cycle >= waves) done = true, now = false;
        const ImU32 fill = now ? palette::kServe : done ? palette::kDone : palette::kWaiting;
        if (size >= kMinLabelPx) {
          const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0, label);
          dl->AddText(ImGui::GetFont(), size,
                      ImVec2((a.x + c.x - ts.x) / 2, a.y + (cell_h - ts.y) / 2), text_on(fill),
                      label);
        }
        char cell_name[40];
        std::snprintf(cell_name, sizeof cell_name, ".matrix_row.m%dr%d", lane / 8, lane % 8);
        record_rect(state, view.id() + cell_name, a, c);
      }
    }
    y += cell_h;
  }
  const ImVec2 grid_end(x0 + float(banks) * cell_w, y);
  record_rect(state, view.id() + ".bank_words", ImVec2(x0, gy), grid_end);
  float bottom = grid_end.y;
  if (matrix) {
    // The matrices: "m0" and its 8 rows, each box lit as the wavefronts that read it are served.
    float x = origin.x;
    const float by = grid_end.y + 3;
    const float box_w = std::max(6.0f, std::min(cell_w, (view.width - 4 * (font * 1.6f)) / 34.0f));
    for (int m = 0; m < rep.access.matrices; ++m) {
      char label[16];
      std::snprintf(label, sizeof label, "m%d", m);
      const ImVec2 ls = lf->CalcTextSizeA(label_font, 1e9f, 0, label);
      dl->AddText(lf, label_font, ImVec2(x, by + (font - ls.y) / 2), text_col, label);
      x += ls.x + 3;
      const float mx = x;
      for (int r = 0; r < 8; ++r) {
        const int lane = 8 * m + r;
        const auto& v = lane_waves[static_cast<size_t>(lane)];
        bool now = false, done = !v.empty();
        for (int k : v) {
          if (k == cycle) now = true;
          if (k >= cycle) done = false;
        }
        if (cycle >= waves) done = true, now = false;
        const ImU32 fill = now ? palette::kServe : done ? palette::kDone : palette::kWaiting;
        const ImVec2 a(x, by), c(x + box_w - 1, by + font + 2);
        dl->AddRectFilled(a, c, fill);
        char rl[4];
        std::snprintf(rl, sizeof rl, "%d", r);
        const float small = std::min(font, box_w * 1.2f);
        const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, rl);
        if (small >= kMinLabelPx) {
          dl->AddText(ImGui::GetFont(), small,
                      ImVec2(a.x + (box_w - 1 - ts.x) / 2, a.y + (font + 2 - ts.y) / 2),
                      text_on(fill), rl);
        }
        x += box_w;
      }
      dl->AddRect(ImVec2(mx - 1, by - 1), ImVec2(x, by + font + 3), palette::kOutline, 0, 0, 1.0f);
      record_rect(state, view.id() + ".matrix." + std::to_string(m), ImVec2(mx, by),
                  ImVec2(x, by + font + 2));
      x += font * 0.6f;
    }
    bottom = by + font + 4;
  }
  if (note[0]) {
    // 8- and 16-byte lanes are served a half or a quarter warp at a time (sim/rules.hpp R3):
    // n-way is one phase's, while a bank shows the words of every phase. Wrapped in the pane.
    const ImVec2 at(origin.x, bottom + 2);
    const bool folded = note_text != note;
    dl->AddText(lf, font, at, folded ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : text_col,
                note_text, nullptr, note_wrap);
    const ImVec2 ns = lf->CalcTextSizeA(font, 1e9f, note_wrap, note_text);
    record_rect(state, view.id() + ".bank_phases_note", at, ImVec2(at.x + ns.x, at.y + ns.y));
    if (folded && ImGui::IsMouseHoveringRect(at, ImVec2(at.x + ns.x, at.y + ns.y)))
      ImGui::SetTooltip("%s", note);
    bottom = at.y + ns.y;
  }
  ImGui::Dummy(ImVec2(view.width, bottom - origin.y));

  if (hovered_word >= 0) {
    const WordInfo& info = words[static_cast<uint32_t>(hovered_word)];
    ImGui::BeginTooltip();
    ImGui::Text("word %d (byte 0x%x), bank %d%s", hovered_word, unsigned(hovered_word * bank_bytes),
                hovered_word % banks, info.conflict ? "  -- CONFLICT" : "");
    if (atomic && info.lanes.size() > 1) {
      ImGui::Text("%zu lanes update this word: an atomic serves them one per wavefront",
                  info.lanes.size());
    }
    if (spin) {
      ImGui::Text("ATOMS.CAST.SPIN: per bank one lane swaps in this execution; the others retry (R8c)");
    }
    for (int l : info.lanes) {
      const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
      if (matrix) {
        ImGui::Text("lane %2d  matrix %d row %d  row addr 0x%04x  wavefront %d", l, l / 8, l % 8,
                    d.addr, d.wavefront);
        continue;
      }
      ImGui::Text("lane %2d  addr 0x%04x  bank %2d  word %u  wavefront %d", l, d.addr, d.bank[0],
                  d.word[0], d.wavefront);
    }
    ImGui::EndTooltip();
  }
}

}  // namespace bankscope
