// test_trace_repeat.cpp: trace format version 3's mode 4 (lanes as the previous execution of their
// PC, moved), the reader's TraceWarp::same_offsets, and the report's repeat costs
// (TraceAggregator::MemoGate::repeat_cost) that rest on them.
#include <doctest/doctest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "sim/bank_model.hpp"
#include "sim/ldgsts.hpp"
#include "sim/trace.hpp"
#include "sim/trace_report.hpp"
#include "trace_test_util.hpp"

using namespace bankscope;
using bankscope::test::read_error;
using bankscope::test::Recorder;

namespace {

std::vector<uint8_t> finish(TraceWriter& t, uint64_t executions) {
  t.launch_end(TraceLaunchEnd{0, executions, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

// A file of one launch with one 4-byte LDS (pc index 0) and a hand-made 'W' record of `executions`
// executions whose bytes after the count are `body`, then `pad` executions with mask 0 (7 bytes
// each: the reader decodes an execution with at least 32 bytes left in its record on its fast path,
// one with fewer through its cursor; the two must agree).
std::vector<uint8_t> hand_made(uint64_t executions, const std::vector<uint8_t>& body, int pad = 0) {
  TraceWriter t(true, 3);  // the body is version 3's
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
  std::vector<uint8_t> b = t.take();
  std::vector<uint8_t> payload{static_cast<uint8_t>(executions + static_cast<uint64_t>(pad))};
  payload.insert(payload.end(), body.begin(), body.end());
  for (int i = 0; i < pad; ++i) payload.insert(payload.end(), {0, 0, 0, 0, 0, 0, 0});
  executions += static_cast<uint64_t>(pad);
  b.push_back('W');
  b.push_back(static_cast<uint8_t>(payload.size()));  // below 128 in these tests
  b.insert(b.end(), payload.begin(), payload.end());
  TraceWriter e(false);
  const auto tail = finish(e, executions);
  b.insert(b.end(), tail.begin(), tail.end());
  return b;
}

// block 0, warp 0, pc 0, mask, as a 'W' execution starts.
std::vector<uint8_t> head(uint32_t mask) {
  return {0, 0, 0, static_cast<uint8_t>(mask), static_cast<uint8_t>(mask >> 8), static_cast<uint8_t>(mask >> 16),
          static_cast<uint8_t>(mask >> 24)};
}

std::vector<uint8_t> operator+(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("trace format: version 3 stores a PC's repeated lane pattern as its base and mode 4; byte by byte") {
  // Lanes 1024 + 4 (7 lane mod 32) (mode 2 in version 2: 11 + 32 bytes), then the same lanes at
  // 5120: a base (0x80 0x28) and mode 4, 9 bytes in all; then at 5124 with lane 3 off: not a repeat.
  std::vector<TraceWarp> warps(3);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    warps[0].addr[lane] = 1024 + 4 * (7 * lane % 32);
    warps[1].addr[lane] = warps[0].addr[lane] + 4096;
    warps[2].addr[lane] = warps[0].addr[lane] + 4100;
  }
  for (auto& w : warps) w.mask = 0xffffffffu;
  warps[2].mask = ~8u;
  const auto write = [&warps](uint32_t version) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
    for (const auto& w : warps) t.warp(w);
    return finish(t, warps.size());
  };
  const auto v3 = write(3), v2 = write(2);
  CHECK(v3[8] == 3);
  // Execution 1 in version 3: head, base 5120, mode 4, and execution 2 starts at once (block 0).
  const std::vector<uint8_t> second = head(0xffffffffu) + std::vector<uint8_t>{0x80, 0x28, 4};
  const std::vector<uint8_t> first = head(0xffffffffu) + std::vector<uint8_t>{0x80, 0x08, 2, 2};
  const auto find = [](const std::vector<uint8_t>& b, const std::vector<uint8_t>& part) {
    return std::search(b.begin(), b.end(), part.begin(), part.end()) - b.begin();
  };
  const auto at1 = find(v3, first);
  REQUIRE(at1 < static_cast<std::ptrdiff_t>(v3.size()));
  const auto at2 = at1 + static_cast<std::ptrdiff_t>(first.size()) + 32;
  CHECK(std::vector<uint8_t>(v3.begin() + at2, v3.begin() + at2 + 10) == second);
  // Execution 2 (another mask): its head, base 5124 (0x84 0x28) and mode 2 again.
  CHECK(std::vector<uint8_t>(v3.begin() + at2 + 10, v3.begin() + at2 + 20) ==
        head(~8u) + std::vector<uint8_t>{0x84, 0x28, 2});
  // Version 2 stores execution 1 as execution 0: 32 bytes more.
  CHECK(v2.size() == v3.size() + 32 + 2);
  // Both read back the same lanes; only version 3's repeat is marked.
  for (const auto* b : {&v2, &v3}) {
    Recorder r;
    REQUIRE(read_trace(b->data(), b->size(), r).ok());
    REQUIRE(r.warps.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (warps[i].mask >> lane & 1u) CHECK(r.warps[i].addr[lane] == warps[i].addr[lane]);
      }
    }
    CHECK(r.warps[1].same_offsets == (b == &v3));
    CHECK(!r.warps[0].same_offsets);
    CHECK(!r.warps[2].same_offsets);
  }
  // A new launch starts every PC afresh: its first execution is not a repeat of the last launch's.
  TraceWriter t(true, 3);
  for (uint64_t launch = 0; launch < 2; ++launch) {
    t.launch(TraceLaunch{launch, "k", {1, 1, 1}, {32, 1, 1}, 0, 0, 0});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
    t.warp(warps[launch]);
    t.launch_end(TraceLaunchEnd{launch, 1, 0, TraceStatus::kComplete});
  }
  t.end(TraceEnd{2, 0});
  const auto two = t.take();
  CHECK(find(two, head(0xffffffffu) + std::vector<uint8_t>{0x80, 0x28, 2, 2}) < static_cast<std::ptrdiff_t>(two.size()));
}

TEST_CASE("trace format: mode 4 round-trips every lane, and same_offsets is set only on true repeats") {
  // Random executions of three PCs (widths 1, 4, 16), mostly repeating their PC's last pattern at
  // another base, some evenly spaced, some with another mask, with sources on the 16-byte PC.
  // The brute force is the input: every active lane comes back; same_offsets is checked against
  // the lanes themselves; and every repeat the writer could store as mode 4 is marked.
  std::mt19937 rng(11);
  const int widths[3] = {1, 4, 16};
  struct Pattern {
    uint32_t mask = 0xffffffffu;
    std::array<uint32_t, 32> off{}, src_off{};
  };
  std::array<Pattern, 3> pat;
  std::vector<TraceWarp> warps;
  for (int i = 0; i < 6000; ++i) {
    TraceWarp w;
    w.pc_index = static_cast<uint32_t>(rng() % 3);
    const uint32_t width = static_cast<uint32_t>(widths[w.pc_index]);
    Pattern& p = pat[w.pc_index];
    const int what = static_cast<int>(rng() % 10);
    if (what < 2) {  // a new pattern: scattered, or evenly spaced
      p.mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
      const bool even = rng() % 3 == 0;
      const uint32_t stride = width * static_cast<uint32_t>(rng() % 9);
      for (uint32_t lane = 0; lane < 32; ++lane) {
        p.off[lane] = even ? lane * stride : width * static_cast<uint32_t>(rng() % 512);
        p.src_off[lane] = width * static_cast<uint32_t>(rng() % 4096);
      }
    }
    w.mask = what == 9 ? p.mask ^ (1u << (rng() % 32)) : p.mask;  // now and then one lane more or less
    if (w.mask == 0) w.mask = 1;
    const uint32_t base = width * static_cast<uint32_t>(rng() % 4096);
    const uint32_t src_base = width * static_cast<uint32_t>(rng() % (1u << 24));
    for (uint32_t lane = 0; lane < 32; ++lane) {
      w.addr[lane] = w.mask >> lane & 1u ? base + p.off[lane] : 0;
      w.src[lane] = w.mask >> lane & 1u ? src_base + p.src_off[lane] : 0;
    }
    w.has_src = w.pc_index == 2 && rng() % 4 != 0;
    warps.push_back(w);
  }
  const auto write = [&warps](uint32_t version) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 1, "LDS.U8", "", 0});
    t.pc(TracePc{1, 0x50, TraceOpKind::kLoad, 4, "LDS", "", 0});
    t.pc(TracePc{2, 0x60, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
    for (const auto& w : warps) t.warp(w);
    return finish(t, warps.size());
  };
  const auto v2 = write(2), v3 = write(3), v4 = write(4);
  CHECK(v3.size() * 3 < v2.size() * 2);  // most executions repeat: a base instead of 32 offsets
  CHECK(v4.size() < v3.size());          // and a head of fixed fields, no mask when full
  // The previous execution with lanes (and with sources) of each PC, and whether the current one
  // repeats its offsets, by brute force.
  const auto offsets = [](const std::array<uint32_t, 32>& a, uint32_t mask) {
    std::array<uint32_t, 32> o{};
    const uint32_t first = a[static_cast<size_t>(__builtin_ctz(mask))];
    for (uint32_t lane = 0; lane < 32; ++lane) o[lane] = mask >> lane & 1u ? a[lane] - first : 0;
    return o;
  };
  std::array<const TraceWarp*, 3> prev{}, prev_src{};
  std::vector<bool> repeats(warps.size()), src_repeats(warps.size());
  for (size_t i = 0; i < warps.size(); ++i) {
    const TraceWarp& w = warps[i];
    const TraceWarp* p = prev[w.pc_index];
    repeats[i] = p != nullptr && p->mask == w.mask && offsets(p->addr, p->mask) == offsets(w.addr, w.mask);
    const TraceWarp* q = prev_src[w.pc_index];
    src_repeats[i] = w.has_src && q != nullptr && q->mask == w.mask && offsets(q->src, q->mask) == offsets(w.src, w.mask);
    prev[w.pc_index] = &w;
    if (w.has_src) prev_src[w.pc_index] = &w;
  }
  for (const auto* b : {&v2, &v3, &v4}) {
    Recorder r;
    auto s = read_trace(b->data(), b->size(), r);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    REQUIRE(r.warps.size() == warps.size());
    const bool marks_all = b != &v2;
    size_t marked = 0, missed = 0, wrong = 0, lanes_wrong = 0;
    for (size_t i = 0; i < warps.size(); ++i) {
      const TraceWarp& got = r.warps[i];
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!(warps[i].mask >> lane & 1u)) continue;
        lanes_wrong += got.addr[lane] != warps[i].addr[lane];
        lanes_wrong += warps[i].has_src && got.src[lane] != warps[i].src[lane];
      }
      wrong += got.same_offsets && !repeats[i];
      wrong += got.src_same_offsets && !src_repeats[i];
      marked += got.same_offsets;
      // Versions 3 and 4 mark every repeat: mode 4, or mode 0 after mode 0 with the same stride.
      if (marks_all && repeats[i] && !got.same_offsets) ++missed;
      if (marks_all && src_repeats[i] && !got.src_same_offsets) ++missed;
    }
    CAPTURE((*b)[8]);
    CHECK(lanes_wrong == 0);
    CHECK(wrong == 0);
    CHECK(missed == 0);
    CHECK(marked > (marks_all ? 3000u : 500u));  // version 2: mode 0's repeats only
  }
}

TEST_CASE("trace format: a corrupt mode 4 gives one line naming what") {
  for (const int pad : {0, 6}) {  // through the cursor, then on the reader's fast path
    CAPTURE(pad);
    const auto hand = [pad](uint64_t executions, const std::vector<uint8_t>& body) {
      return hand_made(executions, body, pad);
    };
    // Execution 0: lanes 0 and 1 at 1024 and 1032 (mode 2, shift 2, offsets 0 and 2).
    const std::vector<uint8_t> e0 = head(3) + std::vector<uint8_t>{0x80, 0x08, 2, 2, 0, 2};
    CHECK(read_error(hand(1, e0)) == "ok");
    // The same lanes at 2048 (0x80 0x10): fine, and read as 2048, 2056.
    {
      const auto b = hand(2, e0 + head(3) + std::vector<uint8_t>{0x80, 0x10, 4});
      Recorder r;
      REQUIRE(read_trace(b.data(), b.size(), r).ok());
      REQUIRE(r.warps.size() == 2 + static_cast<size_t>(pad));
      CHECK(r.warps[1].addr[0] == 2048);
      CHECK(r.warps[1].addr[1] == 2056);
      CHECK(r.warps[1].same_offsets);
    }
    CHECK(read_error(hand(1, head(3) + std::vector<uint8_t>{0x80, 0x10, 4}))
              .find("address mode 4 (as before) at the first execution with lanes of pc index 0") != std::string::npos);
    CHECK(read_error(hand(2, e0 + head(7) + std::vector<uint8_t>{0x80, 0x10, 4}))
              .find("address mode 4 (as before) of pc index 0 with mask 0x00000007, the previous one's 0x00000003") !=
          std::string::npos);
    // A base 2 bytes off: lane 0 at 2050, not aligned to 4.
    CHECK(read_error(hand(2, e0 + head(3) + std::vector<uint8_t>{0x82, 0x10, 4}))
              .find("lane 0 address 2050 not aligned to its width 4 (pc 64)") != std::string::npos);
    // Lane 1 past the top: base 2^32 - 8 (0xf8 0xff 0xff 0xff 0x0f), lane 1 at 2^32.
    CHECK(read_error(hand(2, e0 + head(3) + std::vector<uint8_t>{0xf8, 0xff, 0xff, 0xff, 0x0f, 4}))
              .find("lane 1 address 4294967296 outside 0..2^32-1") != std::string::npos);
    // Mode 2 keeps base + the OR of the offsets as its upper bound, 1024 + 12 here (offsets 0 and 2
    // in units of 4: OR 3), above the last lane (1032). Moved to 2^32 - 16 (0xf0 0xff 0xff 0xff
    // 0x0f): the bound says 2^32 - 4, past the top (2^32 - 5), the lanes are 2^32 - 16 and 2^32 - 8:
    // they fit, and are read.
    {
      const auto b = hand(2, e0 + head(3) + std::vector<uint8_t>{0xf0, 0xff, 0xff, 0xff, 0x0f, 4});
      CHECK(read_error(b) == "ok");
      Recorder r;
      REQUIRE(read_trace(b.data(), b.size(), r).ok());
      CHECK(r.warps.at(1).addr[1] == 4294967288u);
    }
    // Mode 4 after mode 0 (which the writer never stores so, a repeat of evenly spaced lanes being
    // mode 0 again): lanes 0 and 1 at 1024 and 1032 (stride 8: zigzag 16), then at 4096.
    {
      const auto b = hand(2, head(3) + std::vector<uint8_t>{0x80, 0x08, 0, 16} + head(3) + std::vector<uint8_t>{0x80, 0x20, 4});
      Recorder r;
      REQUIRE(read_trace(b.data(), b.size(), r).ok());
      CHECK(r.warps.at(1).addr[0] == 4096);
      CHECK(r.warps.at(1).addr[1] == 4104);
      CHECK(r.warps.at(1).same_offsets);
    }
    // An undeclared pc index (1: only pc index 0 is declared), with lanes and without.
    CHECK(read_error(hand(1, std::vector<uint8_t>{0, 0, 1, 3, 0, 0, 0, 0x80, 0x08, 4}))
              .find("execution refers to pc index 1, 1 declared") != std::string::npos);
    CHECK(read_error(hand(1, std::vector<uint8_t>{0, 0, 1, 0, 0, 0, 0}))
              .find("execution refers to pc index 1, 1 declared") != std::string::npos);
    // Mode 0 with a stride past 2^33 (zigzag 2^34 + 8: 0x88 0x80 0x80 0x80 0x40), for one lane, so
    // that the lanes alone would fit.
    CHECK(read_error(hand(1, head(1) + std::vector<uint8_t>{0x80, 0x08, 0, 0x88, 0x80, 0x80, 0x80, 0x40}))
              .find("stride 8589934596 out of range") != std::string::npos);
  }
  // Every prefix of a version 3 file that uses mode 4 fails with one line.
  std::vector<TraceWarp> warps(3);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    warps[0].addr[lane] = 4 * (7 * lane % 32);
    warps[1].addr[lane] = warps[0].addr[lane] + 512;
    warps[2].addr[lane] = warps[0].addr[lane] + 1028;
  }
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
  for (auto& w : warps) {
    w.mask = 0xffffffffu;
    t.warp(w);
  }
  const auto good = finish(t, 3);
  REQUIRE(read_error(good) == "ok");
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(read_error(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))).rfind("trace: ", 0) == 0);
  }
}

TEST_CASE("trace report: repeats at every residue cost what the rules give, version 3 as version 2") {
  // The report's repeat costs rest on the memos' premise (a warp moved by a multiple of the unit,
  // 16 bytes, 128 for cp.async destinations and sources, costs the same) and on same_offsets. Here
  // executions repeat their PC's pattern at random bases, so at every residue, against the rules
  // executed one by one: cost_sass() for LDS/STS, ldmatrix (a row lane off now and then: not
  // costed, and counted so) and atomics, R9 for cp.async (.ca with some null sources, .cg with
  // sources of 0 as addresses); predicated-off executions (mask 0) between them. A repeat cost
  // served at the wrong residue, across a null source or with the wrong validity is a wrong total.
  std::mt19937 rng(17);
  struct Pc {
    TracePc pc;
    Op op;
    bool bypass;
  };
  const std::vector<Pc> pcs = {
      {TracePc{0, 0x40, TraceOpKind::kLoad, 1, "LDS.U8", "", 0}, Op::kLoad, false},
      {TracePc{1, 0x50, TraceOpKind::kStore, 2, "STS.U16", "", 0}, Op::kStore, false},
      {TracePc{2, 0x60, TraceOpKind::kLoad, 8, "LDS.64", "", 0}, Op::kLoad, false},
      {TracePc{3, 0x70, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0}, Op::kLdgsts, false},
      {TracePc{4, 0x80, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0}, Op::kLdgsts, true},
      {TracePc{5, 0x90, TraceOpKind::kLdsm, 16, "LDSM.16.M88.4", "", 0}, Op::kLdmatrix, false},
      {TracePc{6, 0xa0, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0}, Op::kAtomic, false},
  };
  std::vector<std::array<uint32_t, 32>> off(pcs.size()), src_off(pcs.size());
  std::vector<uint32_t> masks(pcs.size(), 0xffffffffu);
  std::vector<uint64_t> want(pcs.size()), want_uncosted(pcs.size());
  std::vector<TraceWarp> warps;
  for (int i = 0; i < 20000; ++i) {
    TraceWarp w;
    w.pc_index = static_cast<uint32_t>(rng() % pcs.size());
    const Pc& p = pcs[w.pc_index];
    const uint32_t width = static_cast<uint32_t>(p.pc.width);
    if (rng() % 16 == 0 || i < 5) {  // a new pattern now and then: lanes within 1 KiB, sources within 4 KiB
      masks[w.pc_index] = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (1024 / width));
        src_off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (4096 / width));
      }
    }
    w.mask = masks[w.pc_index];
    if (p.op == Op::kLdmatrix) w.mask = rng() % 8 == 0 ? ~(1u << (rng() % 32)) : ~0u;  // a row lane off: not costed
    if (rng() % 32 == 0) w.mask = 0;  // predicated off: issues, no lanes, no cost
    // Bases from a few residues, so that repeats meet each other at equal and unequal ones.
    const uint32_t base = 4096 * static_cast<uint32_t>(rng() % 8) + width * static_cast<uint32_t>(rng() % (256 / width) % 5);
    const uint32_t src_base = 65536 * static_cast<uint32_t>(rng() % 64) + width * static_cast<uint32_t>(rng() % (256 / width) % 5);
    const bool nulls = !p.bypass && rng() % 8 == 0;  // .ca: some lanes read nothing (zero-fill)
    for (uint32_t lane = 0; lane < 32; ++lane) {
      w.addr[lane] = w.mask >> lane & 1u ? base + off[w.pc_index][lane] : 0;
      w.src[lane] = w.mask >> lane & 1u ? src_base + src_off[w.pc_index][lane] : 0;
      if (nulls && lane % 3 == 0) w.src[lane] = 0;
    }
    if (p.bypass && w.mask != 0 && rng() % 8 == 0) w.src[static_cast<size_t>(__builtin_ctz(w.mask))] = 0;  // .cg: 0 is an address
    w.has_src = p.op == Op::kLdgsts;
    WarpAccess a;
    a.op = p.op;
    a.width = static_cast<int>(width);
    a.bypass_l1 = p.bypass;
    a.matrices = p.op == Op::kLdmatrix ? 4 : 0;
    a.atom = AtomOp::kAdd;
    a.mask = w.mask;
    a.addr = w.addr;
    if (w.mask != 0 && !validate(a, BankConfig{}).ok()) {
      ++want_uncosted[w.pc_index];
    } else if (w.mask != 0) {
      want[w.pc_index] += static_cast<uint64_t>(
          (p.op == Op::kLdgsts ? ldgsts_cost(a, w.src, /*zero_reads_nothing=*/true) : cost_sass(a)).wavefronts);
    }
    warps.push_back(w);
  }
  std::vector<std::vector<uint8_t>> files;
  for (uint32_t version : {2u, 3u, 4u}) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    for (const Pc& p : pcs) t.pc(p.pc);
    for (const auto& w : warps) t.warp(w);
    files.push_back(finish(t, warps.size()));
  }
  for (const auto& f : files) {
    auto r = report_trace(f.data(), f.size());
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    const LaunchReport& l = r->traced.launches.at(0);
    for (size_t i = 0; i < pcs.size(); ++i) {
      CAPTURE(f[8]);
      CAPTURE(pcs[i].pc.opcode);
      CHECK(l.pcs[i].uncosted == want_uncosted[i]);
      CHECK(l.pcs[i].wavefronts == want[i]);
    }
  }
  // And rewrite_trace() gives the version 4 file from the version 2 one, byte for byte.
  auto again = rewrite_trace(files[0].data(), files[0].size());
  REQUIRE(again.ok());
  CHECK(*again == files[2]);
}

TEST_CASE("trace report: a .ca cp.async repeat across a null source is costed as itself") {
  // Every source 0 (a zero-fill: no source side, 1 wavefront for 32 consecutive destinations), then
  // the same lanes with every source at 128: the same offsets, the same residue mod 128, but one
  // source bank read 32 times (R9: 32 wavefronts). The repeat costs must not serve the second with
  // the first's cost: a null source is kept apart.
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x2440, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0});
  std::array<TraceWarp, 3> w;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    for (auto& x : w) x.addr[lane] = 9600 + 4 * lane;
    w[0].src[lane] = 0;
    w[1].src[lane] = 128;
    w[2].src[lane] = 256;
  }
  uint64_t want = 0;
  for (auto& x : w) {
    x.mask = ~0u;
    x.has_src = true;
    t.warp(x);
    WarpAccess a;
    a.op = Op::kLdgsts;
    a.width = 4;
    a.addr = x.addr;
    want += static_cast<uint64_t>(ldgsts_cost(a, x.src, /*zero_reads_nothing=*/true).wavefronts);
  }
  CHECK(want == 1 + 32 + 32);
  const auto bytes = finish(t, w.size());
  Recorder r;
  REQUIRE(read_trace(bytes.data(), bytes.size(), r).ok());
  CHECK(r.warps.at(1).src_same_offsets);  // a repeat as the reader sees it
  CHECK(r.warps.at(2).same_offsets);  // lanes and sources both repeat (mode 4): offered as a TraceRepeat
  CHECK(r.warps.at(2).src_same_offsets);
  auto rep = report_trace(bytes.data(), bytes.size());
  REQUIRE(rep.ok());
  CHECK(rep->traced.launches.at(0).pcs.at(0).wavefronts == want);
}

TEST_CASE("trace format: mode 4 repeats exact offsets, not offsets modulo 2^32 (a source tile across 4 GiB)") {
  // cp.async sources are the low 32 bits of global addresses. A tile moving along k can cross a
  // 4 GiB boundary: rows 0x1000 apart from 0xffff0000, then from 0xfffff000, where rows 1-7 wrap to
  // 0x0..0x5000. The offsets agree modulo 2^32 only; mode 4 adds exactly, so the second execution
  // must not be stored as a repeat (found by this round's review: the writer compared offsets
  // modulo 2^32 and wrote a trace its reader refused, and upgrade saved it over a good one).
  const auto write = [](uint32_t version) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
    const uint32_t starts[2] = {0xffff0000u, 0xfffff000u};
    std::vector<TraceWarp> ws;
    for (int e = 0; e < 2; ++e) {
      TraceWarp w;
      w.mask = ~0u;
      w.has_src = true;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        w.addr[lane] = 16 * ((lane * 7) % 32) + 4096 * static_cast<uint32_t>(e);  // scattered: not mode 0
        w.src[lane] = starts[e] + 0x1000u * (lane / 4) + 16 * ((lane * 3) % 4);
      }
      t.warp(w);
      ws.push_back(w);
    }
    return std::make_pair(finish(t, 2), ws);
  };
  const auto [v2, warps] = write(2);
  const auto v3 = write(3).first;
  const auto v4 = write(4).first;
  for (const auto* b : {&v2, &v3, &v4}) {
    Recorder r;
    auto s = read_trace(b->data(), b->size(), r);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    REQUIRE(r.warps.size() == 2);
    CHECK(r.warps[1].src == warps[1].src);
    CHECK_FALSE(r.warps[1].src_same_offsets);
  }
  auto up = rewrite_trace(v2.data(), v2.size());
  REQUIRE_MESSAGE(up.ok(), (up.ok() ? "" : up.error().message));
  CHECK(*up == v4);
}

TEST_CASE("trace format: mode 4 refers to the previous execution across 'W' and 'S' records") {
  // The writer flushes a 'W' record (and its 'S') every MiB or so; the previous execution of a PC
  // may sit in an earlier record. 120,000 executions of two PCs with scattered lanes (about 1.5 MB
  // in version 3, 4.6 MB in version 2), repeating at new bases, the cp.async PC with sources.
  std::vector<TraceWarp> warps;
  for (uint32_t i = 0; i < 120000; ++i) {
    TraceWarp w;
    w.pc_index = i % 2;
    w.mask = ~0u;
    w.has_src = w.pc_index == 1;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      w.addr[lane] = 16 * ((lane * 7 + i / 1000) % 32) + 512 * (i % 64);  // a new pattern every 1,000
      w.src[lane] = 0x10000000u + 0x1000u * (lane / 4) + 16 * ((lane * 3) % 4) + 64 * i;
    }
    warps.push_back(w);
  }
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 16, "LDS.128", "", 0});
  t.pc(TracePc{1, 0x50, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
  for (const auto& w : warps) t.warp(w);
  const auto b = finish(t, warps.size());
  size_t w_records = 0;
  for (size_t at = 12; at < b.size();) {  // count the 'W' records: tag, length varint, payload
    const uint8_t tag = b[at++];
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
      len |= uint64_t{b[at] & 0x7fu} << shift;
      if (b[at++] < 0x80) break;
    }
    w_records += tag == 'W';
    at += len;
  }
  CHECK(w_records >= 2);
  Recorder r;
  auto s = read_trace(b.data(), b.size(), r);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  REQUIRE(r.warps.size() == warps.size());
  size_t wrong = 0, repeats = 0;
  for (size_t i = 0; i < warps.size(); ++i) {
    wrong += r.warps[i].addr != warps[i].addr;
    wrong += warps[i].has_src && r.warps[i].src != warps[i].src;
    repeats += r.warps[i].same_offsets;
  }
  CHECK(wrong == 0);
  CHECK(repeats > 110000);
}

namespace {
// A launch with one 16-byte .cg LDGSTS (pc index 0) and one 'W' record of executions with masks
// `masks` (lanes 1024 + 16 k, mode 0), preceded by an 'S' record of `entries` (each: the
// execution's index, then its sources from base:varint mode:u8 on), bytes as given.
std::vector<uint8_t> sourced(const std::vector<uint32_t>& masks, const std::vector<std::vector<uint8_t>>& entries) {
  TraceWriter t(true, 3);  // hand-made version 3 records
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
  std::vector<uint8_t> b = t.take();
  const auto record = [&b](char tag, const std::vector<uint8_t>& payload) {
    b.push_back(static_cast<uint8_t>(tag));
    b.push_back(static_cast<uint8_t>(payload.size()));  // below 128 here
    b.insert(b.end(), payload.begin(), payload.end());
  };
  std::vector<uint8_t> sp{static_cast<uint8_t>(entries.size())};
  for (const auto& e : entries) sp.insert(sp.end(), e.begin(), e.end());
  record('S', sp);
  std::vector<uint8_t> wp{static_cast<uint8_t>(masks.size())};
  for (uint32_t m : masks) {
    const auto h = head(m);
    wp.insert(wp.end(), h.begin(), h.end());
    wp.insert(wp.end(), {0x80, 0x08, 0, 32});  // base 1024, mode 0, stride 16
  }
  record('W', wp);
  TraceWriter e(false);
  const auto tail = finish(e, masks.size());
  b.insert(b.end(), tail.begin(), tail.end());
  return b;
}
}  // namespace

TEST_CASE("trace format: a source entry in mode 4, well formed and corrupt, early in its 'S' record") {
  // Early in a long 'S' record the reader takes its fast path (read_lanes_fast()); what it refuses
  // must be refused there as on the cursor's path, with the same line. Execution 0's sources: base
  // 65536 (0x80 0x80 0x04), mode 2, shift 4, offsets 0 and 1; then repeats 4 KiB apart.
  const std::vector<uint8_t> e0{0, 0x80, 0x80, 0x04, 2, 4, 0, 1};
  const auto repeat = [](uint8_t exec, uint32_t base) {
    std::vector<uint8_t> e{exec};
    for (uint32_t v = base;; v >>= 7) {
      e.push_back(static_cast<uint8_t>(v >= 0x80 ? (v & 0x7f) | 0x80 : v));
      if (v < 0x80) break;
    }
    e.push_back(4);
    return e;
  };
  std::vector<std::vector<uint8_t>> good{e0};
  for (uint8_t k = 1; k < 6; ++k) good.push_back(repeat(k, 65536 + 4096u * k));
  const std::vector<uint32_t> masks(6, 3u);
  {
    const auto b = sourced(masks, good);
    Recorder r;
    auto s = read_trace(b.data(), b.size(), r);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    REQUIRE(r.warps.size() == 6);
    CHECK(r.warps[3].src[0] == 65536 + 3 * 4096);
    CHECK(r.warps[3].src[1] == 65536 + 3 * 4096 + 16);
    CHECK(r.warps[3].src_same_offsets);
    CHECK_FALSE(r.warps[0].src_same_offsets);
  }
  auto first = good;
  first[0] = repeat(0, 65536);
  CHECK(read_error(sourced(masks, first)).find("source mode 4 (as before) at the first entry with sources of pc index 0") !=
        std::string::npos);
  auto misaligned = good;
  misaligned[1] = repeat(1, 65536 + 4096 + 8);
  CHECK(read_error(sourced(masks, misaligned)).find("lane 0 source 69640 not aligned to its width 16") != std::string::npos);
  auto other_mask = masks;
  other_mask[1] = 7;
  CHECK(read_error(sourced(other_mask, good))
            .find("source mode 4 (as before) of pc index 0 with mask 0x00000007, the previous one's 0x00000003") !=
        std::string::npos);
}

namespace {
// The aggregator behind a sink that takes no repeats: every execution reaches on_warp() with its
// lanes, as before TraceSink::on_repeat() existed.
struct NoRepeats : TraceSink {
  TraceAggregator& a;
  explicit NoRepeats(TraceAggregator& agg) : a(agg) {}
  void on_launch(const TraceLaunch& l) override { a.on_launch(l); }
  void on_pc(const TracePc& p) override { a.on_pc(p); }
  void on_warp(const TraceWarp& w, const TracePc& p) override { a.on_warp(w, p); }
  void on_launch_end(const TraceLaunchEnd& e) override { a.on_launch_end(e); }
  void on_end(const TraceEnd& e) override { a.on_end(e); }
};
// The aggregator, counting the repeats it takes.
struct CountRepeats : NoRepeats {
  uint64_t offered = 0, taken = 0;
  using NoRepeats::NoRepeats;
  bool takes_repeats() const override { return a.takes_repeats(); }
  bool on_repeat(const TraceWarp& w, uint32_t first, uint32_t src_first, bool src_nonzero, const TracePc& p) override {
    ++offered;
    const bool t = a.on_repeat(w, first, src_first, src_nonzero, p);
    taken += t;
    return t;
  }
};

void check_same_totals(const OpTotals& x, const OpTotals& y) {
  CHECK(x.instructions == y.instructions);
  CHECK(x.active_instructions == y.active_instructions);
  CHECK(x.wavefronts == y.wavefronts);
  CHECK(x.ideal == y.ideal);
  CHECK(x.conflicts == y.conflicts);
}

// Every field of every PC and every launch total of two reports equal.
void check_same_report(const TraceReport& a, const TraceReport& b) {
  REQUIRE(a.launches.size() == b.launches.size());
  for (size_t li = 0; li < a.launches.size(); ++li) {
    const LaunchReport& x = a.launches[li];
    const LaunchReport& y = b.launches[li];
    CAPTURE(li);
    for (size_t k = 0; k < kTraceOpKinds; ++k) {
      CAPTURE(k);
      check_same_totals(x.by_kind[k], y.by_kind[k]);
      CHECK(x.uncosted_by_kind[k] == y.uncosted_by_kind[k]);
      CHECK(x.executions_by_kind[k] == y.executions_by_kind[k]);
    }
    check_same_totals(x.ld, y.ld);
    check_same_totals(x.st, y.st);
    REQUIRE(x.pcs.size() == y.pcs.size());
    for (size_t i = 0; i < x.pcs.size(); ++i) {
      CAPTURE(i);
      CHECK(x.pcs[i].executions == y.pcs[i].executions);
      CHECK(x.pcs[i].wavefronts == y.pcs[i].wavefronts);
      CHECK(x.pcs[i].ideal == y.pcs[i].ideal);
      CHECK(x.pcs[i].worst_n_way == y.pcs[i].worst_n_way);
      CHECK(x.pcs[i].n_way_count == y.pcs[i].n_way_count);
      CHECK(x.pcs[i].uncosted == y.pcs[i].uncosted);
    }
  }
}
}  // namespace

TEST_CASE("trace report: repeats taken without their lanes count as on_warp() counts them, in every field") {
  // TraceAggregator::on_repeat() counts an execution at a cost its PC kept and records the counts
  // later (MemoGate::repeat_count): before the PC's next execution that takes on_warp(), at the
  // next launch and when the report is taken. Two launches of LDS, STS.64, a .ca cp.async (some
  // sources null), a .cg one and an atomic, patterns that change now and then, partial and empty
  // masks, and in the second launch one .cg execution without its sources (the PC is refused from
  // then on): every field of every PC and every launch total must be what on_warp() alone gives.
  std::mt19937 rng(29);
  const std::vector<TracePc> pcs = {
      TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0},
      TracePc{1, 0x50, TraceOpKind::kStore, 8, "STS.64", "", 0},
      TracePc{2, 0x60, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0},
      TracePc{3, 0x70, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0},
      TracePc{4, 0x80, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0},
  };
  TraceWriter t;
  uint64_t executions = 0;
  for (uint64_t launch = 0; launch < 2; ++launch) {
    TraceLaunch l;
    l.launch = launch;
    t.launch(l);
    for (const auto& p : pcs) t.pc(p);
    std::vector<std::array<uint32_t, 32>> off(pcs.size()), src_off(pcs.size());
    std::vector<uint32_t> masks(pcs.size(), ~0u);
    executions = 0;
    for (int i = 0; i < 6000; ++i, ++executions) {
      TraceWarp w;
      w.block = static_cast<uint32_t>(i / 64);
      w.warp = static_cast<uint32_t>(i % 8);
      w.pc_index = static_cast<uint32_t>(rng() % pcs.size());
      const uint32_t width = static_cast<uint32_t>(pcs[w.pc_index].width);
      if (rng() % 40 == 0 || i < 5) {
        masks[w.pc_index] = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : ~0u;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (512 / width));
          src_off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (2048 / width));
        }
      }
      w.mask = rng() % 50 == 0 ? 0u : masks[w.pc_index];
      const uint32_t base = 1024 + 2048 * static_cast<uint32_t>(rng() % 4) + width * static_cast<uint32_t>(rng() % 3);
      const uint32_t src_base = 65536 * static_cast<uint32_t>(rng() % 16) + width * static_cast<uint32_t>(rng() % 3);
      const bool nulls = w.pc_index == 2 && rng() % 10 == 0;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        w.addr[lane] = w.mask >> lane & 1u ? base + off[w.pc_index][lane] : 0;
        w.src[lane] = w.mask >> lane & 1u ? (nulls && lane % 5 == 0 ? 0 : src_base + src_off[w.pc_index][lane]) : 0;
      }
      // Now and then a cp.async without its sources (the tracer writes one when it cannot pair a
      // source with its execution): its PC is refused from then on, repeats included.
      w.has_src = pcs[w.pc_index].kind == TraceOpKind::kLdgsts && !(w.pc_index == 3 && launch == 1 && i == 3000);
      t.warp(w);
    }
    t.launch_end(TraceLaunchEnd{launch, executions, 0, TraceStatus::kComplete});
  }
  t.end(TraceEnd{2, 0});
  const auto bytes = t.take();

  TraceAggregator fast, slow;
  CountRepeats counted(fast);
  NoRepeats plain(slow);
  auto sf = read_trace(bytes.data(), bytes.size(), counted);
  auto ss = read_trace(bytes.data(), bytes.size(), plain);
  REQUIRE(sf.ok());
  REQUIRE(ss.ok());
  // Most executions repeat their PC's pattern at a residue already costed: taken.
  CHECK(counted.taken > 8000);
  CHECK(counted.offered > counted.taken);  // and some are not (a new residue, a null source)
  const TraceReport a = fast.take(*sf), b = slow.take(*ss);
  REQUIRE(a.launches.size() == 2);
  check_same_report(a, b);
  CHECK(a.launches[1].executions_by_kind[static_cast<size_t>(TraceOpKind::kLdgsts)] > 1000);
}

TEST_CASE("trace report: a .ca cp.async repeat whose moved sources reach 0 is not served a kept cost") {
  // Sources a line (128 bytes) apart from 128, then the same offsets from 0: a repeat (mode 4) at the same
  // residue mod 128, but lane 0's source is now null (reads nothing, R9). The reader cannot say
  // that no source is 0 (TraceRepeat::src_nonzero false), so the report costs it as itself.
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x2440, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0});
  // (More executions after: the reader takes its fast path, the one that offers repeats, only with
  // 16 bytes of the record left.)
  std::array<TraceWarp, 12> w;
  const std::array<uint32_t, 12> from = {256, 128, 0, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408};
  std::array<int, 12> cost{};
  uint64_t want = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      w[i].addr[lane] = 9600 + 4 * (lane == 31 ? 40 : lane);
      w[i].src[lane] = from[i] + 128 * (lane == 31 ? 40 : lane);  // a line each, not evenly spaced (mode 4)
    }
    w[i].mask = ~0u;
    w[i].has_src = true;
    t.warp(w[i]);
    WarpAccess a;
    a.op = Op::kLdgsts;
    a.width = 4;
    a.addr = w[i].addr;
    cost[i] = ldgsts_cost(a, w[i].src, /*zero_reads_nothing=*/true).wavefronts;
    want += static_cast<uint64_t>(cost[i]);
  }
  CHECK(cost[2] != cost[1]);  // the null lane changes the cost
  CHECK(cost[3] == cost[1]);
  const auto bytes = finish(t, w.size());
  Recorder r;
  REQUIRE(read_trace(bytes.data(), bytes.size(), r).ok());
  CHECK(r.warps.at(2).same_offsets);  // lanes and sources both repeat (mode 4): offered as a TraceRepeat
  CHECK(r.warps.at(2).src_same_offsets);
  auto rep = report_trace(bytes.data(), bytes.size());
  REQUIRE(rep.ok());
  CHECK(rep->traced.launches.at(0).pcs.at(0).wavefronts == want);
}

TEST_CASE("trace report: the aggregator's own reader reports what the reader for any sink reports") {
  // read_trace(..., TraceAggregator&) is the reader compiled for the aggregator, its on_warp() and
  // on_repeat() inlined in the loop that decodes version 4's commonest executions; read_trace(...,
  // TraceSink&) reaches them through the vtable (here through a sink that forwards each call). Three
  // launches whose fields take the loop's compiled widths (1-byte blocks and 2-byte bases; 2-byte
  // blocks and 3-byte bases) and a width read at run time (4-byte bases), with executions of every
  // route of that loop: full warps of scattered lanes (modes 2 and 3), repeats (mode 4) with and
  // without cp.async sources, evenly spaced lanes (mode 0), empty masks, and the rest (partial
  // masks, a sub-word store, LDS.128). Every field of every PC and launch must be equal, with and
  // without a what-if layout (which takes no repeats).
  std::mt19937 rng(31);
  const std::vector<TracePc> pcs = {
      TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0},
      TracePc{1, 0x50, TraceOpKind::kStore, 8, "STS.64", "", 0},
      TracePc{2, 0x60, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0},
      TracePc{3, 0x70, TraceOpKind::kLoad, 16, "LDS.128", "", 0},
      TracePc{4, 0x80, TraceOpKind::kStore, 1, "STS.U8", "", 0},
      TracePc{5, 0x90, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0},
  };
  // Per launch: blocks, the base's upper bound (the base field's width follows it).
  const uint32_t blocks[3] = {200, 3000, 100};
  const uint32_t bases[3] = {40000, 3000000, 100000000};
  TraceWriter t;
  uint64_t routes[4] = {};  // scattered full warps, repeats, evenly spaced, empty
  for (uint64_t launch = 0; launch < 3; ++launch) {
    TraceLaunch l;
    l.launch = launch;
    t.launch(l);
    for (const auto& p : pcs) t.pc(p);
    std::vector<std::array<uint32_t, 32>> off(pcs.size()), src_off(pcs.size());
    std::vector<uint32_t> masks(pcs.size(), ~0u);
    uint64_t executions = 0;
    for (int i = 0; i < 4000; ++i, ++executions) {
      TraceWarp w;
      w.block = static_cast<uint32_t>(rng() % blocks[launch]);
      w.warp = static_cast<uint32_t>(rng() % 8);
      w.pc_index = static_cast<uint32_t>(rng() % pcs.size());
      const uint32_t width = static_cast<uint32_t>(pcs[w.pc_index].width);
      const uint32_t base = width * static_cast<uint32_t>(rng() % (bases[launch] / width));
      const uint32_t src_base = 65536 * static_cast<uint32_t>(rng() % 16) + width * static_cast<uint32_t>(rng() % 3);
      const uint32_t route = static_cast<uint32_t>(rng() % 8);
      if (route < 2 || i < 6) {  // a new pattern: scattered, over a small or a wide spread (mode 2, 3)
        masks[w.pc_index] = rng() % 5 == 0 ? static_cast<uint32_t>(rng()) | 1u : ~0u;
        const uint32_t spread = rng() % 2 == 0 ? 255 : 40000;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (spread / width + 1));
          src_off[w.pc_index][lane] = width * static_cast<uint32_t>(rng() % (2048 / width));
        }
        routes[0] += masks[w.pc_index] == ~0u;
      } else if (route == 2) {  // evenly spaced (mode 0), the pattern for repeats after it
        masks[w.pc_index] = ~0u;
        const uint32_t stride = width * static_cast<uint32_t>(rng() % 40);
        for (uint32_t lane = 0; lane < 32; ++lane) {
          off[w.pc_index][lane] = lane * stride;
          src_off[w.pc_index][lane] = lane * width;
        }
        ++routes[2];
      } else {
        ++routes[1];
      }
      w.mask = route == 7 && rng() % 2 == 0 ? 0u : masks[w.pc_index];
      routes[3] += w.mask == 0;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        w.addr[lane] = w.mask >> lane & 1u ? base + off[w.pc_index][lane] : 0;
        w.src[lane] = w.mask >> lane & 1u ? src_base + src_off[w.pc_index][lane] : 0;
      }
      w.has_src = pcs[w.pc_index].kind == TraceOpKind::kLdgsts;
      t.warp(w);
    }
    t.launch_end(TraceLaunchEnd{launch, executions, 0, TraceStatus::kComplete});
  }
  t.end(TraceEnd{3, 0});
  const auto bytes = t.take();
  for (const uint64_t n : routes) CHECK(n > 300);

  // As traced: the repeats taken by on_repeat() on both readers.
  TraceAggregator own, through;
  CountRepeats forwarded(through);
  auto so = read_trace(bytes.data(), bytes.size(), own);
  auto sf = read_trace(bytes.data(), bytes.size(), forwarded);
  REQUIRE(so.ok());
  REQUIRE(sf.ok());
  CHECK(so->executions == 12000);
  CHECK(forwarded.taken > 1000);
  const TraceReport a = own.take(*so), b = through.take(*sf);
  REQUIRE(a.launches.size() == 3);
  check_same_report(a, b);

  // A what-if layout over part of the shared window: every execution to on_warp(), remapped.
  auto tile = parse_array_spec("tile@0:float[32][32]");
  REQUIRE(tile.ok());
  auto padded = apply_layout_spec(*tile, "tile:stride=33");
  REQUIRE(padded.ok());
  TraceAggregator own_if({ArrayRemap{*tile, *padded}}), through_if({ArrayRemap{*tile, *padded}});
  NoRepeats forwarded_if(through_if);
  auto wo = read_trace(bytes.data(), bytes.size(), own_if);
  auto wf = read_trace(bytes.data(), bytes.size(), forwarded_if);
  REQUIRE(wo.ok());
  REQUIRE(wf.ok());
  const TraceReport c = own_if.take(*wo), d = through_if.take(*wf);
  check_same_report(c, d);
  // The what-if changed something (the tile's 4 KiB are within launch 0's bases), so it was applied.
  CHECK(c.launches[0].ld.wavefronts != a.launches[0].ld.wavefronts);
}
