// test_trace_v4.cpp: trace format version 4 ('W' records of fixed-width fields, a control byte per
// execution, sources in the 'W' record), byte by byte, and its reader's one-line errors on both of
// its paths (a local pointer with 48 bytes left, the cursor otherwise).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/trace.hpp"
#include "sim/trace_report.hpp"
#include "trace_test_util.hpp"

using namespace bankscope;
using bankscope::test::read_error;
using bankscope::test::Recorder;

namespace {

// A version 4 file: one launch, pc 0 a 4-byte LDS, pc 1 a 16-byte .cg LDGSTS, then one 'W' record
// of `count` executions whose bytes after count and widths are `body`, then 'E' and 'Z'.
std::vector<uint8_t> v4_file(uint64_t count, uint8_t widths, const std::vector<uint8_t>& body) {
  TraceWriter t(true, 4);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
  t.pc(TracePc{1, 0x50, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
  std::vector<uint8_t> b = t.take();
  std::vector<uint8_t> payload{static_cast<uint8_t>(count), widths};
  payload.insert(payload.end(), body.begin(), body.end());
  b.push_back('W');
  for (uint64_t v = payload.size();; v >>= 7) {  // the record's length, a varint
    b.push_back(static_cast<uint8_t>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    if (v < 0x80) break;
  }
  b.insert(b.end(), payload.begin(), payload.end());
  TraceWriter e(false, 4);
  e.launch_end(TraceLaunchEnd{0, count, 0, TraceStatus::kComplete});
  e.end(TraceEnd{1, 0});
  const auto tail = e.take();
  b.insert(b.end(), tail.begin(), tail.end());
  return b;
}

std::vector<uint8_t> operator+(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// With widths 0x00 (every field 1 byte): an execution with a mask of 0 (control, block, warp, pc
// index, mask: 8 bytes).
const std::vector<uint8_t> kEmpty{0x08, 0, 0, 0, 0, 0, 0, 0};

}  // namespace

TEST_CASE("trace format: version 4 executions byte by byte") {
  TraceWriter t(true, 4);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
  t.pc(TracePc{1, 0x50, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
  t.take();  // the header and the 'K' and 'P' records
  std::vector<TraceWarp> w(4);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    w[0].addr[lane] = 1024 + 4 * lane;  // evenly spaced: mode 0, stride 4
    w[1].addr[lane] = 5120 + 4 * lane;  // the same offsets: mode 4
  }
  w[0].block = 5;
  w[0].warp = 1;
  w[0].mask = w[1].mask = ~0u;
  w[1].block = 300;  // the record's blocks take 2 bytes
  w[1].warp = 2;
  w[2].pc_index = 1;  // the cp.async: lanes 0 and 1, sources in the execution
  w[2].mask = 3;
  w[2].addr[1] = 16;
  w[2].has_src = true;
  w[2].src[0] = 4096;
  w[2].src[1] = 4112;
  w[3].mask = 0;  // predicated off
  for (const auto& x : w) t.warp(x);
  t.flush();
  const auto b = t.take();
  const std::vector<uint8_t> want = {
      'W', 43, 4,
      0x41,                                                  // widths: block 2 bytes, warp 1, pc 1, base 2
      0x00, 5, 0, 1, 0, 0x00, 0x04, 8,                       // mode 0, block 5, warp 1, pc 0, base 1024, stride 4
      0x04, 0x2c, 0x01, 2, 0, 0x00, 0x14,                    // mode 4, block 300, warp 2, base 5120
      0x18, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 32, 0, 0x10, 0, 0, 32,  // mask 3 stored, sources: 4096, stride 16
      0x08, 0, 0, 0, 0, 0, 0, 0, 0,                          // mask 0 stored
  };
  CHECK(b == want);
  // And it reads back: every field, and the repeat marked.
  const auto file = v4_file(4, 0x41, std::vector<uint8_t>(want.begin() + 4, want.end()));
  Recorder r;
  auto s = read_trace(file.data(), file.size(), r);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  REQUIRE(r.warps.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(r.warps[i].block == w[i].block);
    CHECK(r.warps[i].warp == w[i].warp);
    CHECK(r.warps[i].pc_index == w[i].pc_index);
    CHECK(r.warps[i].mask == w[i].mask);
    CHECK(r.warps[i].has_src == w[i].has_src);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(w[i].mask >> lane & 1u)) continue;
      CHECK(r.warps[i].addr[lane] == w[i].addr[lane]);
      if (w[i].has_src) CHECK(r.warps[i].src[lane] == w[i].src[lane]);
    }
  }
  CHECK(r.warps[1].same_offsets);
  CHECK_FALSE(r.warps[0].same_offsets);
}

TEST_CASE("trace format: a corrupt version 4 execution gives one line naming what, on both of the reader's paths") {
  // Each case is one execution, then `pad` executions with a mask of 0: with 6 of them (48 bytes)
  // the reader meets the bad one on its fast path, without any on the cursor's; the line is the same.
  struct Case {
    const char* name;
    std::vector<uint8_t> exec;  // widths 0x00
    const char* error;
  };
  const std::vector<Case> cases = {
      {"address mode 5", {0x05, 0, 0, 0, 0, 0}, "execution control 0x05: address mode 5 unknown (version 4)"},
      {"source mode 7", {0xf0, 0, 0, 1, 0, 0}, "execution control 0xf0: source mode 7 unknown (version 4)"},
      {"source mode, no sources", {0x20, 0, 0, 0, 0, 0}, "execution control: a source mode without sources"},
      {"sources, mask 0", {0x18, 0, 0, 1, 0, 0, 0, 0}, "sources for an execution whose mask is 0"},
      {"a mode, mask 0", {0x09, 0, 0, 0, 0, 0, 0, 0}, "execution control: an address mode with a mask of 0"},
      {"pc index 7", {0x00, 0, 0, 7, 0, 0}, "execution refers to pc index 7, 2 declared"},
      {"mode 4 first", {0x04, 0, 0, 0, 0}, "address mode 4 (as before) at the first execution with lanes of pc index 0"},
      {"lane off its width", {0x00, 0, 0, 0, 2, 8}, "lane 0 address 2 not aligned to its width 4 (pc 64)"},
      {"source mode 4 first", {0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0}, "source mode 4 (as before) at the first entry with sources of pc index 1"},
  };
  for (const int pad : {0, 6}) {
    for (const Case& c : cases) {
      CAPTURE(pad);
      CAPTURE(c.name);
      std::vector<uint8_t> body = c.exec;
      for (int i = 0; i < pad; ++i) body = body + kEmpty;
      const std::string e = read_error(v4_file(1 + static_cast<uint64_t>(pad), 0x00, body));
      CHECK(e.find(c.error) != std::string::npos);
      CHECK(e.find("trace: byte ") == 0);
    }
  }
  // A record that ends inside an execution; one with bytes after its last execution.
  CHECK(read_error(v4_file(2, 0x00, kEmpty + std::vector<uint8_t>{0x08, 0, 0})).find("truncated in") != std::string::npos);
  CHECK(read_error(v4_file(1, 0x00, kEmpty + kEmpty)).find("warp record has 8 bytes left over") != std::string::npos);
  // The widths and a lane range: a 4-byte base near 2^32 whose stride leaves it (a 4-byte lane
  // must end by 2^32).
  CHECK(read_error(v4_file(1, 0xc0, {0x00, 0, 0, 0, 0xf8, 0xff, 0xff, 0xff, 8})).find("lane 1 address 4294967292 outside 0..2^32-1") !=
        std::string::npos);
  // A good execution reads in both places.
  for (const int pad : {0, 6}) {
    std::vector<uint8_t> body{0x00, 3, 4, 0, 0x40, 8};  // block 3, warp 4, base 64, stride 4
    for (int i = 0; i < pad; ++i) body = body + kEmpty;
    const auto f = v4_file(1 + static_cast<uint64_t>(pad), 0x00, body);
    Recorder r;
    REQUIRE(read_trace(f.data(), f.size(), r).ok());
    CHECK(r.warps.at(0).block == 3);
    CHECK(r.warps.at(0).warp == 4);
    CHECK(r.warps.at(0).addr[31] == 64 + 4 * 31);
    CHECK(r.warps.at(0).even);
  }
}

TEST_CASE("trace format: a version 4 file has no 'S' record, and a version 3 reader's limits name 4") {
  TraceWriter t(true, 4);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x50, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
  auto b = t.take();
  b.insert(b.end(), {'S', 1, 0});
  CHECK(read_error(b).find("source record in a version 4 file (its sources are in the warp record)") != std::string::npos);
  // A file of a later version than this reader's names the versions it reads.
  std::vector<uint8_t> v5(kTraceMagic, kTraceMagic + 8);
  v5.insert(v5.end(), {5, 0, 0, 0});
  CHECK(read_error(v5) == "trace: version 5 (this reader reads versions 1 to 4)");
}

TEST_CASE("trace report: a version 4 trace reports what its version 3 and version 2 copies report") {
  // rewrite_trace() of a version 2 file: the same executions in version 4; every PC's numbers equal.
  std::vector<TraceWarp> warps;
  for (uint32_t i = 0; i < 4000; ++i) {
    TraceWarp w;
    w.block = i / 8;
    w.warp = i % 8;
    w.pc_index = i % 3;
    w.mask = i % 97 == 0 ? 0u : ~0u;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t k = w.pc_index == 0 ? lane * 33 % 64 : w.pc_index == 1 ? lane : (lane * 5) % 32;
      w.addr[lane] = w.mask == 0 ? 0 : 1024 + (i % 7) * 4096 + 16 * (w.pc_index == 1 ? lane : k) + (w.pc_index == 0 ? 4 * (i % 4) : 0);
      w.src[lane] = 65536 * (i % 5) + 16 * ((lane * 9) % 32);
    }
    w.has_src = w.pc_index == 1 && w.mask != 0;
    warps.push_back(w);
  }
  std::vector<std::vector<uint8_t>> files;
  for (uint32_t version : {2u, 3u, 4u}) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
    t.pc(TracePc{1, 0x50, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.LTC128B.128", "", 0});
    t.pc(TracePc{2, 0x60, TraceOpKind::kStore, 16, "STS.128", "", 0});
    for (const auto& w : warps) t.warp(w);
    t.launch_end(TraceLaunchEnd{0, warps.size(), 0, TraceStatus::kComplete});
    t.end(TraceEnd{1, 0});
    files.push_back(t.take());
  }
  CHECK(files[2].size() < files[1].size());
  auto up = rewrite_trace(files[0].data(), files[0].size());
  REQUIRE(up.ok());
  CHECK(*up == files[2]);
  std::vector<TraceReport> reports;
  for (const auto& f : files) {
    auto r = report_trace(f.data(), f.size());
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    reports.push_back(r->traced);
  }
  for (size_t v = 1; v < 3; ++v) {
    const LaunchReport& x = reports[v].launches.at(0);
    const LaunchReport& y = reports[0].launches.at(0);
    for (size_t i = 0; i < 3; ++i) {
      CAPTURE(v);
      CAPTURE(i);
      CHECK(x.pcs[i].executions == y.pcs[i].executions);
      CHECK(x.pcs[i].wavefronts == y.pcs[i].wavefronts);
      CHECK(x.pcs[i].ideal == y.pcs[i].ideal);
      CHECK(x.pcs[i].n_way_count == y.pcs[i].n_way_count);
    }
    for (size_t k = 0; k < kTraceOpKinds; ++k) CHECK(x.by_kind[k].wavefronts == y.by_kind[k].wavefronts);
  }
  CHECK(reports[2].launches.at(0).pcs[1].wavefronts > 0);
}

TEST_CASE("trace format: version 4 modes 2 and 3 of a full warp, where the reader's local-pointer path declines them") {
  // pc 0 is a 4-byte LDS. An execution in mode 2: control 0x02 (a full warp), block, warp, pc index
  // (1 byte each with widths 0x00), the base (`base_bytes`), the shift, one byte of offset per lane.
  const auto mode2 = [](uint32_t base, int base_bytes, uint8_t shift, const std::vector<uint8_t>& off) {
    std::vector<uint8_t> e{0x02, 0, 0, 0};
    for (int i = 0; i < base_bytes; ++i) e.push_back(static_cast<uint8_t>(base >> (8 * i)));
    e.push_back(shift);
    e.insert(e.end(), off.begin(), off.end());
    return e;
  };
  const auto widths = [](int base_bytes) { return static_cast<uint8_t>((base_bytes - 1) << 6); };
  std::vector<uint8_t> odd(32), mixed(32);
  for (uint8_t k = 0; k < 32; ++k) {
    odd[k] = static_cast<uint8_t>(2 * ((k * 7) % 32) + 1);  // distinct odd offsets
    mixed[k] = static_cast<uint8_t>((k * 5) % 32);
  }
  for (const int pad : {0, 6}) {  // 6 empty executions after: the local pointer has its 48 bytes
    CAPTURE(pad);
    const auto padded = [pad](std::vector<uint8_t> body) {
      for (int i = 0; i < pad; ++i) body = body + kEmpty;
      return body;
    };
    {  // Checks pass: the fast path; then a mode 4 repeat of its offsets, from the lanes it kept.
      const auto f = v4_file(2 + static_cast<uint64_t>(pad), 0x00,
                             padded(mode2(64, 1, 2, mixed) + std::vector<uint8_t>{0x04, 0, 0, 0, 200}));
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      for (uint32_t lane = 0; lane < 32; ++lane) {
        CHECK(r.warps.at(0).addr[lane] == 64 + 4u * mixed[lane]);
        CHECK(r.warps.at(1).addr[lane] == 200 + 4u * mixed[lane]);  // lane 0's offset is 0
      }
      CHECK(r.warps.at(1).same_offsets);
    }
    {  // An unaligned base whose lanes are aligned (2 + 2 x odd): the OR check fails, the lanes are
       // good; read lane by lane, and the repeat after it moves those lanes.
      const auto f = v4_file(2 + static_cast<uint64_t>(pad), 0x00,
                             padded(mode2(2, 1, 1, odd) + std::vector<uint8_t>{0x04, 0, 0, 0, 100}));
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      const uint32_t first = 2 + 2u * odd[0];
      for (uint32_t lane = 0; lane < 32; ++lane) {
        CHECK(r.warps.at(0).addr[lane] == 2 + 2u * odd[lane]);
        CHECK(r.warps.at(1).addr[lane] == 100 + (2 + 2u * odd[lane]) - first);
      }
    }
    {  // The OR of the offsets over the top while every lane fits: 0xf8 and 0x04 from 0xffffff00.
      std::vector<uint8_t> off(32, 0x01);
      off[0] = 0x3e;
      const auto f = v4_file(1 + static_cast<uint64_t>(pad), widths(4), padded(mode2(0xffffff00u, 4, 2, off)));
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      CHECK(r.warps.at(0).addr[0] == 0xfffffff8u);
      CHECK(r.warps.at(0).addr[31] == 0xffffff04u);
    }
    // What is wrong is named as before.
    CHECK(read_error(v4_file(1 + static_cast<uint64_t>(pad), 0x00, padded(mode2(64, 1, 5, mixed))))
              .find("address shift 5 above 4") != std::string::npos);
    CHECK(read_error(v4_file(1 + static_cast<uint64_t>(pad), widths(4), padded(mode2(0xfffffffcu, 4, 2, mixed))))
              .find("lane 0 address 4294967292 outside") != std::string::npos);
    CHECK(read_error(v4_file(1 + static_cast<uint64_t>(pad), 0x00, padded(mode2(64, 1, 0, odd))))
              .find("not aligned to its width 4") != std::string::npos);
  }
  // Lanes cut short by the record's end (no padding: the offsets are its last bytes).
  std::vector<uint8_t> cut = mode2(64, 1, 2, mixed);
  cut.resize(cut.size() - 5);
  CHECK(read_error(v4_file(1, 0x00, cut)).find("truncated in lane offsets") != std::string::npos);
}

TEST_CASE("trace format: version 4 modes 2 and 3 of a partial mask: the active lanes checked at once, else walked") {
  // pc 0 is a 4-byte LDS. An execution in mode 2 or 3 with a mask: control (the mode | 0x08),
  // block, warp, pc index (1 byte each with widths 0x00), the mask (4 bytes), the base
  // (`base_bytes`), the shift, one offset of `off_bytes` bytes per active lane.
  const auto packed = [](uint32_t mask, uint32_t base, int base_bytes, uint8_t shift, int off_bytes,
                         const std::vector<uint32_t>& off) {
    std::vector<uint8_t> e{static_cast<uint8_t>((off_bytes == 1 ? 0x02 : 0x03) | 0x08), 0, 0, 0};
    for (int i = 0; i < 4; ++i) e.push_back(static_cast<uint8_t>(mask >> (8 * i)));
    for (int i = 0; i < base_bytes; ++i) e.push_back(static_cast<uint8_t>(base >> (8 * i)));
    e.push_back(shift);
    for (const uint32_t o : off) {
      for (int i = 0; i < off_bytes; ++i) e.push_back(static_cast<uint8_t>(o >> (8 * i)));
    }
    return e;
  };
  const auto widths = [](int base_bytes) { return static_cast<uint8_t>((base_bytes - 1) << 6); };
  const uint32_t mask = 0x80ff00f2u;  // lanes 1, 4-7, 16-23, 31: 14 lanes
  std::vector<uint32_t> off;
  for (uint32_t k = 0; k < 14; ++k) off.push_back((k * 9) % 14);
  const auto active = [mask]() {
    std::vector<uint32_t> lanes;
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1u) lanes.push_back(lane);
    return lanes;
  }();
  for (const int off_bytes : {1, 2}) {
    CAPTURE(off_bytes);
    {  // Checks pass; then a mode 4 repeat of its offsets (control 0x0c, the same mask).
      std::vector<uint8_t> repeat{0x0c, 0, 0, 0};
      for (int i = 0; i < 4; ++i) repeat.push_back(static_cast<uint8_t>(mask >> (8 * i)));
      repeat.push_back(200);
      const auto f = v4_file(2, 0x00, packed(mask, 64, 1, 2, off_bytes, off) + repeat);
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      REQUIRE(r.warps.size() == 2);
      CHECK(r.warps[0].mask == mask);
      for (size_t k = 0; k < active.size(); ++k) {
        CHECK(r.warps[0].addr[active[k]] == 64 + 4 * off[k]);
        CHECK(r.warps[1].addr[active[k]] == 200 + 4 * off[k] - 4 * off[0]);
      }
      CHECK(r.warps[1].same_offsets);
    }
    {  // The OR of the offsets over the top while every lane fits: 0xf8 and 0x04 from 0xffffff00
       // (lane 1 and the others).
      std::vector<uint32_t> high(14, 0x01);
      high[0] = 0x3e;
      const auto f = v4_file(1, widths(4), packed(mask, 0xffffff00u, 4, 2, off_bytes, high));
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      CHECK(r.warps.at(0).addr[1] == 0xfffffff8u);
      CHECK(r.warps.at(0).addr[31] == 0xffffff04u);
    }
    {  // An unaligned base whose lanes are aligned (2 + 2 x odd): the check fails, the lanes are good.
      std::vector<uint32_t> odd;
      for (uint32_t k = 0; k < 14; ++k) odd.push_back(2 * k + 1);
      const auto f = v4_file(1, 0x00, packed(mask, 2, 1, 1, off_bytes, odd));
      Recorder r;
      const auto s = read_trace(f.data(), f.size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      for (size_t k = 0; k < active.size(); ++k) CHECK(r.warps.at(0).addr[active[k]] == 2 + 2 * odd[k]);
    }
    // What is wrong is named, by its lane: lane 5 (the third active one) off its alignment, lane
    // 4 (the second, offset 9 x 4) past the top.
    std::vector<uint32_t> bad;
    for (const uint32_t o : off) bad.push_back(4 * o);
    bad[2] += 2;
    CHECK(read_error(v4_file(1, 0x00, packed(mask, 64, 1, 0, off_bytes, bad)))
              .find("lane 5 address " + std::to_string(64 + bad[2]) + " not aligned to its width 4") != std::string::npos);
    CHECK(read_error(v4_file(1, widths(4), packed(mask, 0xfffffff0u, 4, 2, off_bytes, off)))
              .find("lane 4 address " + std::to_string(0xfffffff0ull + 4 * off[1]) + " outside") != std::string::npos);
  }
}

TEST_CASE("trace format: version 4 executions read the same at every width of their fields") {
  // The reader is compiled apart for the common widths bytes (block 1 or 2 bytes, warp and pc
  // index 1, base 2 or 3: 0x40, 0x41, 0x80, 0x81) and reads any other at run time. The same
  // executions, encoded at those widths and at others (warp 2 bytes, pc index 2, every field 4),
  // must read the same: mode 0, a mode 4 repeat, modes 2 and 3 of a full warp, mode 3 of a partial
  // mask, a mask of 0; 40 of them, so that the last few are read through the cursor (fewer than 48
  // bytes left) and the others from the local pointer. (ctest runs this on the AVX2 path and on the
  // portable one, which reads every width at run time.)
  struct Exec {
    uint8_t ctl;
    uint32_t block, warp, pc, mask, base;
    std::vector<uint8_t> tail;  // the mode's bytes
  };
  std::vector<uint8_t> off8(32), off16;
  for (uint32_t k = 0; k < 32; ++k) {
    off8[k] = static_cast<uint8_t>((k * 7) % 32);
    const uint32_t o = (k * 389) % 3000;
    off16.push_back(static_cast<uint8_t>(o));
    off16.push_back(static_cast<uint8_t>(o >> 8));
  }
  std::vector<Exec> ex;
  for (uint32_t i = 0; i < 8; ++i) {
    ex.push_back({0x00, i, i % 32, 0, 0, 1024 + 4 * i, {8}});                            // mode 0, stride 4
    ex.push_back({0x04, 200 + i, 3, 0, 0, 4096 + 128 * i, {}});                          // mode 4 of it
    ex.push_back({0x02, i, 5, 0, 0, 512, [&] { auto t = off8; t.insert(t.begin(), 2); return t; }()});
    ex.push_back({0x0b, 7, 6, 0, 0x00ff00f0u | i, 2048, [&] {                             // mode 3, a mask
                    std::vector<uint8_t> t{2};
                    for (uint32_t lane = 0; lane < 32; ++lane)
                      if ((0x00ff00f0u | i) >> lane & 1u) t.insert(t.end(), {off16[2 * lane], off16[2 * lane + 1]});
                    return t;
                  }()});
    ex.push_back({0x08, 9, 1, 0, 0, 0, {}});  // mask 0
  }
  const auto encode = [&](uint8_t widths) {
    const int bw = (widths & 3) + 1, ww = (widths >> 2 & 3) + 1, pw = (widths >> 4 & 3) + 1, aw = (widths >> 6 & 3) + 1;
    const auto put = [](std::vector<uint8_t>& o, uint32_t v, int n) {
      for (int k = 0; k < n; ++k) o.push_back(static_cast<uint8_t>(v >> (8 * k)));
    };
    std::vector<uint8_t> body;
    for (const Exec& e : ex) {
      body.push_back(e.ctl);
      put(body, e.block, bw);
      put(body, e.warp, ww);
      put(body, e.pc, pw);
      if (e.ctl & 8) put(body, e.mask, 4);
      if (e.ctl == 0x08) continue;  // a mask of 0: nothing more
      put(body, e.base, aw);
      body.insert(body.end(), e.tail.begin(), e.tail.end());
    }
    return v4_file(ex.size(), widths, body);
  };
  // What each execution reads as: the lanes from the fields above, whatever the widths.
  std::vector<TraceWarp> want;
  for (size_t i = 0; i < ex.size(); ++i) {
    const Exec& e = ex[i];
    TraceWarp w;
    w.block = e.block;
    w.warp = e.warp;
    w.mask = e.ctl & 8 ? e.mask : 0xffffffffu;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      switch (e.ctl & 7) {
        case 0: w.addr[lane] = e.base + 4 * lane; break;
        case 4: w.addr[lane] = e.base + 4 * lane; break;  // repeats mode 0's offsets
        case 2: w.addr[lane] = e.base + (uint32_t{off8[lane]} << 2); break;
        case 3: w.addr[lane] = e.base + ((uint32_t{off16[2 * lane]} | uint32_t{off16[2 * lane + 1]} << 8) << 2); break;
      }
    }
    want.push_back(w);
  }
  int read = 0;
  for (const int wi : {0x40, 0x41, 0x80, 0x81, 0x45, 0x51, 0xc0, 0xff}) {
    CAPTURE(wi);
    const auto widths = static_cast<uint8_t>(wi);
    const auto file = encode(widths);
    Recorder r;
    const auto s = read_trace(file.data(), file.size(), r);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    REQUIRE(r.warps.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CAPTURE(i);
      CHECK(r.warps[i].block == want[i].block);
      CHECK(r.warps[i].warp == want[i].warp);
      CHECK(r.warps[i].pc_index == 0);
      CHECK(r.warps[i].mask == want[i].mask);
      CHECK(r.warps[i].same_offsets == ((ex[i].ctl & 7) == 4));
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!(want[i].mask >> lane & 1u)) continue;
        if (r.warps[i].addr[lane] != want[i].addr[lane]) {
          CAPTURE(lane);
          CHECK(r.warps[i].addr[lane] == want[i].addr[lane]);
        }
      }
    }
    ++read;
  }
  CHECK(read == 8);
}

TEST_CASE("trace reader: version 4 executions reach the sink once each, in order, up to the first corrupt one") {
  // 40 executions with widths 0x40, block = index, on each of the reader's routes: modes 2 and 0,
  // masks of 0, mode 4 repeats (every third from 20 to 33, taken by the sink, or not when the
  // pattern was stored in mode 0), a cp.async with sources (37). A sink that takes every repeat
  // must see blocks 0..39 once each, in order. Then execution 37 made corrupt four ways (its control
  // byte, its pc index, its shift, its sources' shift): each gives an error, and the sink has seen
  // exactly blocks 0..36.
  struct Events : TraceSink {
    std::vector<uint32_t> blocks;
    void on_warp(const TraceWarp& w, const TracePc&) override { blocks.push_back(w.block); }
    bool takes_repeats() const override { return true; }
    bool on_repeat(const TraceWarp& w, uint32_t, uint32_t, bool, const TracePc&) override {
      blocks.push_back(w.block);
      ++repeats;
      return true;
    }
    int repeats = 0;
  };
  std::vector<uint8_t> body;
  std::vector<size_t> at;  // each execution's first byte in body
  const auto mode2 = [&](uint32_t i, uint8_t pc, uint8_t shift) {
    body.insert(body.end(), {0x02, static_cast<uint8_t>(i), 0, pc, 0x00, 0x04, shift});  // base 1024
    for (uint32_t lane = 0; lane < 32; ++lane) body.push_back(static_cast<uint8_t>((lane * 37 + i) % 64));
  };
  for (uint32_t i = 0; i < 40; ++i) {
    at.push_back(body.size());
    if (i == 37) {  // pc 1, a 16-byte cp.async: mode 2 (shift 4) with sources in mode 2 (shift 4)
      body.insert(body.end(), {0x52, static_cast<uint8_t>(i), 0, 1, 0x00, 0x08, 4});
      for (uint32_t lane = 0; lane < 32; ++lane) body.push_back(static_cast<uint8_t>(lane));
      body.insert(body.end(), {0x00, 0x00, 0x01, 0x00, 4});  // source base 65536
      for (uint32_t lane = 0; lane < 32; ++lane) body.push_back(static_cast<uint8_t>(lane * 3));
    } else if (i >= 20 && i <= 33 && i % 3 == 0) {
      body.insert(body.end(), {0x04, static_cast<uint8_t>(i), 0, 0, 0x00, static_cast<uint8_t>(0x08 + i % 4)});  // mode 4
    } else if (i % 4 == 1) {
      body.insert(body.end(), {0x00, static_cast<uint8_t>(i), 0, 0, 0x00, 0x10, 8});  // mode 0, stride 4
    } else if (i % 4 == 3) {
      body.insert(body.end(), {0x08, static_cast<uint8_t>(i), 0, 0, 0, 0, 0, 0});  // a mask of 0
    } else {
      mode2(i, 0, 2);
    }
  }
  // (Mode 4 repeats pc 0's last lanes stored in mode 2 or 0: 20 is mode 2, so each repeat has one.)
  std::vector<uint32_t> all(40);
  for (uint32_t i = 0; i < 40; ++i) all[i] = i;
  {
    const auto file = v4_file(40, 0x40, body);
    Events e;
    const auto s = read_trace(file.data(), file.size(), e);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    CHECK(e.blocks == all);
    CHECK(e.repeats >= 2);  // (21, 24 and 27 follow lanes stored in mode 2)
  }
  const std::vector<uint32_t> before(all.begin(), all.begin() + 37);
  for (int how = 0; how < 4; ++how) {
    CAPTURE(how);
    std::vector<uint8_t> bad = body;
    const size_t x = at[37];
    if (how == 0) bad[x] = 0x57;        // address mode 7
    if (how == 1) bad[x + 3] = 9;       // pc index 9, 2 declared
    if (how == 2) bad[x + 6] = 9;       // shift 9
    if (how == 3) bad[x + 7 + 32 + 4] = 9;  // the sources' shift 9
    const auto file = v4_file(40, 0x40, bad);
    Events e;
    const auto s = read_trace(file.data(), file.size(), e);
    REQUIRE_FALSE(s.ok());
    CHECK(e.blocks == before);
  }
}
