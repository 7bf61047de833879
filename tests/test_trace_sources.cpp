// test_trace_sources.cpp: the global sources of LDGSTS executions in a trace (sim/trace.hpp, 'S'
// record): round trip, the byte layout, every malformed 'S' as one line, and the report costing
// LDGSTS with R9 from them (sim/ldgsts.hpp) against H200 measurements.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/counter_names.hpp"
#include "sim/json_io.hpp"
#include "sim/ldgsts.hpp"
#include "sim/trace.hpp"
#include "trace_test_util.hpp"
#include "sim/trace_report.hpp"

using namespace bankscope;

namespace {

constexpr uint32_t kReserved = 1024;  // sm_90's reserved shared window: 8 rows of 128 bytes

using test::Recorder;
using test::read_error;

void put_varint(std::vector<uint8_t>& o, uint64_t v) {
  for (; v >= 0x80; v >>= 7) o.push_back(static_cast<uint8_t>(v | 0x80));
  o.push_back(static_cast<uint8_t>(v));
}

// The records after the 12-byte header: (tag, byte offset of the tag).
std::vector<std::pair<char, size_t>> records(const std::vector<uint8_t>& b) {
  std::vector<std::pair<char, size_t>> out;
  size_t p = 12;
  while (p < b.size()) {
    const size_t at = p++;
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t x = b.at(p++);
      len |= uint64_t{x & 0x7fu} << shift;
      if (x < 0x80) break;
    }
    out.emplace_back(static_cast<char>(b[at]), at);
    p += len;
  }
  return out;
}

// A launch with one 4-byte LDGSTS .ca (pc 0x40), then `body` (hand-made records), then 'E' and 'Z'
// unless `end` is false.
std::vector<uint8_t> ldgsts_file(const std::vector<uint8_t>& body, bool end = true) {
  TraceWriter t(true, 3);  // the hand-made records are version 3's ('S' before 'W')
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLdgsts, 4, "LDGSTS.E", "", 0});
  std::vector<uint8_t> b = t.take();
  b.insert(b.end(), body.begin(), body.end());
  if (end) {
    TraceWriter e(false);
    e.launch_end(TraceLaunchEnd{});
    e.end(TraceEnd{});
    const auto tail = e.take();
    b.insert(b.end(), tail.begin(), tail.end());
  }
  return b;
}

std::vector<uint8_t> rec(char tag, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> b{static_cast<uint8_t>(tag)};
  put_varint(b, payload.size());
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

// A 'W' record of executions of pc 0 with these masks; active lanes at 4 * lane (mode 0, stride 4).
std::vector<uint8_t> w_rec(const std::vector<uint32_t>& masks) {
  std::vector<uint8_t> p;
  put_varint(p, masks.size());
  for (uint32_t m : masks) {
    p.insert(p.end(), {0, 0, 0});
    for (int i = 0; i < 4; ++i) p.push_back(static_cast<uint8_t>(m >> (8 * i)));
    if (m != 0) p.insert(p.end(), {0, 0, 8});  // base 0, mode 0, stride zvarint(4) = 8
  }
  return rec('W', p);
}

// An 'S' entry: execution `exec`, sources base + 4 * k (mode 0) for the k-th active lane.
std::vector<uint8_t> s_entry(uint64_t exec, uint32_t base) {
  std::vector<uint8_t> p;
  put_varint(p, exec);
  put_varint(p, base);
  p.insert(p.end(), {0, 8});
  return p;
}

std::vector<uint8_t> s_rec(const std::vector<std::vector<uint8_t>>& entries, std::vector<uint8_t> extra = {}) {
  std::vector<uint8_t> p;
  put_varint(p, entries.size());
  for (const auto& e : entries) p.insert(p.end(), e.begin(), e.end());
  p.insert(p.end(), extra.begin(), extra.end());
  return rec('S', p);
}

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> b;
  for (const auto& p : parts) b.insert(b.end(), p.begin(), p.end());
  return b;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("trace sources: round trip gives back has_src and src on exactly the LDGSTS executions") {
  for (const uint32_t version : {3u, 4u}) {
  CAPTURE(version);
  TraceWriter t(true, version);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x10, TraceOpKind::kLoad, 4, "LDS", "", 0});
  t.pc(TracePc{1, 0x20, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.128", "", 0});
  t.pc(TracePc{2, 0x30, TraceOpKind::kLdgsts, 4, "LDGSTS.E", "", 0});
  std::vector<TraceWarp> in(7);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    in[0].addr[lane] = kReserved + 4 * lane;  // LDS, no sources
    in[1].addr[lane] = kReserved + 16 * lane;  // .cg: a row of sources (mode 0)
    in[1].src[lane] = 0x7000000u + 16 * lane;
    in[2].addr[lane] = kReserved + 16 * (lane ^ 5);  // .cg: scattered sources (mode 2 or 3)
    in[2].src[lane] = 16 * ((lane * 37) % 512);
    in[3].addr[lane] = kReserved + 4 * lane;  // .ca, odd lanes, far-apart sources (mode 1)
    in[3].src[lane] = lane * 0x10204u;
    in[4].addr[lane] = kReserved + 4 * lane;  // .ca predicated off: has_src set, nothing written
    in[4].src[lane] = 4 * lane;
    in[5].addr[lane] = kReserved + 16 * lane;  // .cg: sources up to the last 16 bytes below 2^32
    in[5].src[lane] = 0xfffffff0u - 16 * (31 - lane);
    in[6].addr[lane] = kReserved + 4 * lane;  // .ca traced without sources
  }
  const uint32_t pcs[7] = {0, 1, 1, 2, 2, 1, 2};
  const uint32_t masks[7] = {~0u, ~0u, 0x00ff00f0u, 0xaaaaaaaau, 0, ~0u, ~0u};
  const bool src[7] = {false, true, true, true, true, true, false};
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].block = static_cast<uint32_t>(i);
    in[i].pc_index = pcs[i];
    in[i].mask = masks[i];
    in[i].has_src = src[i];
    t.warp(in[i]);
  }
  t.launch_end(TraceLaunchEnd{0, in.size(), 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  // Version 3: one 'S' record, at once before its 'W'; version 4: the sources in the 'W' record.
  std::string tags;
  for (const auto& r : records(bytes)) tags += r.first;
  CHECK(tags == (version == 3 ? "KPPPSWEZ" : "KPPPWEZ"));
  Recorder r;
  auto s = read_trace(bytes.data(), bytes.size(), r);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  REQUIRE(r.warps.size() == in.size());
  const bool expect_src[7] = {false, true, true, true, false, true, false};  // mask 0: none written
  for (size_t i = 0; i < in.size(); ++i) {
    CAPTURE(i);
    CHECK(r.warps[i].block == i);
    CHECK(r.warps[i].has_src == expect_src[i]);
    for (int lane = 0; lane < 32; ++lane) {
      if (!(masks[i] >> lane & 1u)) continue;
      CHECK(r.warps[i].addr[lane] == in[i].addr[lane]);
      if (expect_src[i]) CHECK(r.warps[i].src[lane] == in[i].src[lane]);
    }
  }
  if (version != 3) continue;
  // A reader that does not know 'S' skips it (as ours skips any unknown tag): the same executions
  // and addresses, no sources.
  auto renamed = bytes;
  for (const auto& rc : records(bytes))
    if (rc.first == 'S') renamed[rc.second] = 'x';
  Recorder old;
  REQUIRE(read_trace(renamed.data(), renamed.size(), old).ok());
  REQUIRE(old.warps.size() == in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    CHECK_FALSE(old.warps[i].has_src);
    CHECK(old.warps[i].addr == r.warps[i].addr);
  }
  }
}

TEST_CASE("trace sources: the 'S' record byte by byte") {
  // Lanes 0 and 1 of a 16-byte LDGSTS, sources 4096 and 4112: count 1, exec 0, base 4096
  // (0x80 0x20), mode 0, stride 16 (zvarint 32). The execution before it has no sources. (Version
  // 3: version 4 keeps sources in the 'W' record, test_trace_v4.cpp.)
  TraceWriter t(true, 3);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x20, TraceOpKind::kLdgsts, 16, "LDGSTS.E.128", "", 0});
  TraceWarp w;
  w.mask = 3;
  w.addr[1] = 16;
  t.warp(w);
  w.has_src = true;
  w.src[0] = 4096;
  w.src[1] = 4112;
  t.warp(w);
  t.flush();
  const auto b = t.take();
  const auto rs = records(b);
  REQUIRE(rs.size() == 4);
  REQUIRE(rs[2].first == 'S');
  const std::vector<uint8_t> s(b.begin() + static_cast<std::ptrdiff_t>(rs[2].second),
                               b.begin() + static_cast<std::ptrdiff_t>(rs[3].second));
  CHECK(s == std::vector<uint8_t>{'S', 6, 1, 1, 0x80, 0x20, 0, 32});
  CHECK(rs[3].first == 'W');
}

TEST_CASE("trace sources: a malformed 'S' record is one line naming what") {
  const auto ok = ldgsts_file(cat({s_rec({s_entry(0, 64)}), w_rec({3})}));
  REQUIRE(read_error(ok) == "ok");
  Recorder r;
  REQUIRE(read_trace(ok.data(), ok.size(), r).ok());
  REQUIRE(r.warps.size() == 1);
  CHECK(r.warps[0].has_src);
  CHECK(r.warps[0].src[0] == 64);
  CHECK(r.warps[0].src[1] == 68);

  // Indices not strictly increasing.
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(1, 64), s_entry(1, 64)}), w_rec({3, 3, 3})}))),
            "source execution index 1 not above the previous one, 1"));
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(1, 64), s_entry(0, 64)}), w_rec({3, 3, 3})}))),
            "source execution index 0 not above the previous one, 1"));
  // An index past the next 'W''s count (it has executions 0 and 1).
  const std::string past = read_error(ldgsts_file(cat({s_rec({s_entry(0, 64), s_entry(2, 64)}), w_rec({3, 3})})));
  CHECK(has(past, "source entry for execution 2, past the 2 executions of the warp record at byte "));
  // An execution with no active lane has no source.
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 64)}), w_rec({0})}))),
            "source entry for execution 0, whose mask is 0"));
  // Not followed by a 'W': another 'S', an 'E', a 'K', a record of an unknown tag, the end.
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 64)}), s_rec({s_entry(0, 64)}), w_rec({3})}))),
            "not followed by a warp record ('S' follows)"));
  CHECK(has(read_error(ldgsts_file(s_rec({s_entry(0, 64)}))), "not followed by a warp record ('E' follows)"));
  TraceWriter k(false);
  k.launch(TraceLaunch{1, "k2", {1, 1, 1}, {32, 1, 1}, 0, 0, 0});
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 64)}), k.take()}), false)),
            "not followed by a warp record ('K' follows)"));
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 64)}), rec('x', {1, 2}), w_rec({3})}))),
            "not followed by a warp record ('x' follows)"));
  const std::string cut = read_error(ldgsts_file(s_rec({s_entry(0, 64)}), false));
  CHECK(has(cut, "truncated at byte"));
  // The record itself: outside a launch, a count it cannot hold, bytes left over, bad lanes.
  TraceWriter h;
  std::vector<uint8_t> outside = h.take();
  const auto srec = s_rec({s_entry(0, 64)});
  outside.insert(outside.end(), srec.begin(), srec.end());
  CHECK(has(read_error(outside), "source record outside a launch"));
  std::vector<uint8_t> big{100};
  const auto e0 = s_entry(0, 64);
  big.insert(big.end(), e0.begin(), e0.end());
  CHECK(has(read_error(ldgsts_file(cat({rec('S', big), w_rec({3})}))), "source count 100 larger than the record can hold"));
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 64)}, {7}), w_rec({3})}))), "source record has 1 bytes left over"));
  CHECK(has(read_error(ldgsts_file(cat({s_rec({s_entry(0, 66)}), w_rec({3})}))),
            "lane 0 source 66 not aligned to its width 4 (pc 64)"));
  CHECK(has(read_error(ldgsts_file(cat({s_rec({std::vector<uint8_t>{0, 64, 9, 8}}), w_rec({3})}))), "address mode 9 unknown (version 3)"));
  // Every error names its byte, and every prefix of a file with sources fails with one line.
  for (const auto& b : {past, cut}) CHECK(b.rfind("trace: ", 0) == 0);
  for (size_t n = 0; n < ok.size(); ++n) {
    std::vector<uint8_t> prefix(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(n));
    CAPTURE(n);
    CHECK(read_error(prefix).rfind("trace: ", 0) == 0);
  }
}

namespace {

// H200 probe lines of cp.async with their sources (tests/conformance/ldgsts_src_v1.jsonl: offsets
// = shared destinations, src = global sources) and what Nsight Compute measured for one warp
// (assets/results/h200/2026-12-01g/ldgsts/ldgsts_src_v1_measured.jsonl, the line named: fields
// measured_wavefronts, measured_bank_conflicts, the smsp__sass_..._op_ldgsts counters). R9 predicts
// each (R9 equals every line of the probe since rules H9 and H10).
struct Probe {
  const char* id;
  uint64_t wavefronts, conflicts;
};
const Probe kProbes[] = {
    {"ls_w4ca_mask_rand_0", 2, 1},      // measured line 96: .ca, 4 B, mask 0x58590424
    {"ls_w8ca_rand_lines3_1", 12, 10},  // measured line 212: .ca, 8 B, sources in 3 random lines
    {"ls_w16ca_mask_rand_0", 6, 2},     // measured line 339: .ca, 16 B, mask 0x603c9036
    {"ls_w16cg_line0_es3", 6, 0},       // measured line 441: .cg, mask 0xff
    {"ls_w16cg_mask_rand_0", 13, 0},    // measured line 469: .cg, mask 0xc4d14079
    {"ls_w16cg_rand_lines1_2", 28, 0},  // measured line 473: .cg, random sources in one line
};

std::vector<Pattern> probe_patterns() {
  std::ifstream in(std::string(BANKSCOPE_SOURCE_DIR) + "/tests/conformance/ldgsts_src_v1.jsonl");
  std::vector<Pattern> out(std::size(kProbes));
  std::string line;
  while (std::getline(in, line)) {
    auto p = parse_pattern_line(line);
    REQUIRE(p.ok());
    for (size_t i = 0; i < std::size(kProbes); ++i)
      if (p->object["id"] == kProbes[i].id) out[i] = *p;
  }
  for (const Pattern& p : out) REQUIRE(p.src_given);
  return out;
}

// One PC per probe line, each executed by two warps (blocks 0 and 1) at the probe's lanes: shared
// offsets after the reserved window (1 KiB: 8 whole 128-byte rows, so no bank or row changes),
// block 1's sources 256 MiB further (whole lines: no bank, sector or line pattern changes).
std::vector<uint8_t> probe_trace(const std::vector<Pattern>& ps, bool with_src) {
  TraceWriter t;
  TraceLaunch l;
  l.reserved_bytes = kReserved;
  t.launch(l);
  for (uint32_t i = 0; i < ps.size(); ++i) {
    const WarpAccess& a = ps[i].access;
    const std::string op = a.bypass_l1 ? "LDGSTS.E.BYPASS.128" : a.width == 4 ? "LDGSTS.E" : a.width == 8 ? "LDGSTS.E.64" : "LDGSTS.E.128";
    t.pc(TracePc{i, 0x100 + 0x10 * i, TraceOpKind::kLdgsts, a.width, op, "", 0});
  }
  for (uint32_t block = 0; block < 2; ++block) {
    for (uint32_t i = 0; i < ps.size(); ++i) {
      TraceWarp w;
      w.block = block;
      w.pc_index = i;
      w.mask = ps[i].access.mask;
      w.has_src = with_src;
      for (int lane = 0; lane < 32; ++lane) {
        w.addr[lane] = kReserved + ps[i].access.addr[lane];
        w.src[lane] = ps[i].src[lane] + block * (256u << 20);
      }
      t.warp(w);
    }
  }
  t.launch_end(TraceLaunchEnd{0, 2 * ps.size(), 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

}  // namespace

TEST_CASE("trace report: LDGSTS costed by R9 from the traced sources equals the H200's counters") {
  const auto ps = probe_patterns();
  const auto bytes = probe_trace(ps, true);
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  const LaunchReport& l = r->traced.launches.at(0);
  REQUIRE(l.pcs.size() == std::size(kProbes));
  uint64_t wavefronts = 0, conflicts = 0;
  for (size_t i = 0; i < std::size(kProbes); ++i) {
    CAPTURE(kProbes[i].id);
    const PcStats& s = l.pcs[i];
    CHECK(s.modelled());
    CHECK(s.executions == 2);
    CHECK(s.uncosted == 0);
    CHECK(s.wavefronts == 2 * kProbes[i].wavefronts);
    CHECK(s.excess() == 2 * kProbes[i].conflicts);
    wavefronts += 2 * kProbes[i].wavefronts;
    conflicts += 2 * kProbes[i].conflicts;
  }
  // Per launch, under the ldgsts counters (.ca and .cg together, as ncu counts them).
  const OpTotals& t = l.by_kind[static_cast<size_t>(TraceOpKind::kLdgsts)];
  CHECK(t.instructions == 12);
  CHECK(t.wavefronts == wavefronts);
  CHECK(t.bank_conflicts() == conflicts);
  CHECK(wavefronts == 134);
  CHECK(conflicts == 26);
  CHECK(l.uncosted_by_kind[static_cast<size_t>(TraceOpKind::kLdgsts)] == 0);
  CHECK(std::string(counters::wavefronts(op_of(TraceOpKind::kLdgsts))) ==
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum");
  CHECK(std::string(counters::bank_conflicts(op_of(TraceOpKind::kLdgsts))) ==
        "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum");
  // The rows of the table carry the same numbers.
  for (const ReportRow& row : report_rows(r->traced, false)) CHECK(row.modelled);
}

TEST_CASE("trace report: an LDGSTS traced without sources is not costed, and says why") {
  const auto ps = probe_patterns();
  const auto bytes = probe_trace(ps, false);
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  const LaunchReport& l = r->traced.launches.at(0);
  for (const PcStats& s : l.pcs) {
    CHECK_FALSE(s.modelled());
    CHECK(s.model.why.rfind("recorded without global sources: re-trace with this bankscope", 0) == 0);
    CHECK(s.wavefronts == 0);
  }
  const size_t k = static_cast<size_t>(TraceOpKind::kLdgsts);
  CHECK(l.by_kind[k].instructions == 0);
  CHECK(l.uncosted_by_kind[k] == 12);
  CHECK(l.executions_by_kind[k] == 12);

  // A PC costed whole or not at all: a predicated-off execution (costed: no lane, no source
  // needed) and one with sources, then one without: all three leave the totals.
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x10, TraceOpKind::kLdgsts, 4, "LDGSTS.E", "", 0});
  t.pc(TracePc{1, 0x20, TraceOpKind::kLoad, 4, "LDS", "", 0});
  TraceWarp w;
  w.mask = 0;
  t.warp(w);
  w.mask = ~0u;
  for (int lane = 0; lane < 32; ++lane) w.addr[lane] = w.src[lane] = 4 * static_cast<uint32_t>(lane);
  w.has_src = true;
  t.warp(w);
  w.pc_index = 1;  // an LDS between them (with sources, which nothing reads): its totals stay
  t.warp(w);
  w.pc_index = 0;
  w.has_src = false;
  t.warp(w);
  w.has_src = true;  // after the refusal, an execution with sources is not costed either
  t.warp(w);
  t.launch_end(TraceLaunchEnd{0, 5, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto mixed = t.take();
  auto m = report_trace(mixed.data(), mixed.size());
  REQUIRE(m.ok());
  const LaunchReport& ml = m->traced.launches.at(0);
  CHECK_FALSE(ml.pcs[0].modelled());
  CHECK(ml.pcs[0].executions == 4);
  CHECK(ml.pcs[0].wavefronts == 0);
  CHECK(ml.by_kind[k].instructions == 0);
  CHECK(ml.by_kind[k].active_instructions == 0);
  CHECK(ml.by_kind[k].wavefronts == 0);
  CHECK(ml.by_kind[k].bank_conflicts() == 0);
  CHECK(ml.uncosted_by_kind[k] == 4);
  CHECK(ml.ld.instructions == 1);
  CHECK(ml.ld.wavefronts == 1);

  // Sources do not make an opcode that does not say .ca or .cg costable.
  TraceWriter u;
  u.launch(TraceLaunch{});
  u.pc(TracePc{0, 0x10, TraceOpKind::kLdgsts, 4, "LDGSTS.32", "", 0});
  u.warp(w);
  u.launch_end(TraceLaunchEnd{0, 1, 0, TraceStatus::kComplete});
  u.end(TraceEnd{1, 0});
  const auto api = u.take();
  auto a = report_trace(api.data(), api.size());
  REQUIRE(a.ok());
  CHECK_FALSE(a->traced.launches.at(0).pcs[0].modelled());
  CHECK(a->traced.launches.at(0).pcs[0].model.why == "cp.async .ca or .cg unknown without the SASS opcode");
}

// The report costs cp.async .ca and .cg (R9: rules H9 and H10 equal every single-warp line measured
// on the H200; .cg was opt-in, --ldgsts-r9, until H10): the traced probes' rows are all costed, each
// at twice its measured single-warp count (the probe trace holds every pattern twice).
TEST_CASE("trace report: cp.async .ca and .cg are both costed") {
  const auto ps = probe_patterns();
  const auto bytes = probe_trace(ps, true);
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  const LaunchReport& l = r->traced.launches.at(0);
  REQUIRE(l.pcs.size() == std::size(kProbes));
  int cg = 0;
  for (size_t i = 0; i < std::size(kProbes); ++i) {
    CAPTURE(kProbes[i].id);
    const PcStats& s = l.pcs[i];
    cg += std::string(kProbes[i].id).find("cg") != std::string::npos;
    CHECK(s.modelled());
    CHECK(s.wavefronts == 2 * kProbes[i].wavefronts);
  }
  CHECK(cg == 3);
  const size_t k = static_cast<size_t>(TraceOpKind::kLdgsts);
  CHECK(l.by_kind[k].wavefronts == 2 * (2 + 12 + 6 + 6 + 13 + 28));  // every probe, .cg included
  CHECK(l.uncosted_by_kind[k] == 0);
}

// Measured on the H200 (assets/results/h200/2026-12-01o, kernels/probes/ldgsts_guard.cu, one warp):
// a 16-byte .cg copy of 32 consecutive pieces under @P0 counts 0 wavefronts in ncu's instrumented
// counters, the same copy under @P1 counts 4, a 4-byte .ca copy under @P0 counts 1. The guard
// travels in the 'P' record.
TEST_CASE("trace report: an @P0-guarded LDGSTS.BYPASS counts 0 wavefronts, as Nsight Compute counts it") {
  TraceWriter t;
  t.launch(TraceLaunch{});
  TracePc cg0{0, 0x160, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.128", "", 0};
  cg0.guard = "@P0";
  TracePc cg1{1, 0x190, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.128", "", 0};
  cg1.guard = "@P1";
  TracePc ca0{2, 0x130, TraceOpKind::kLdgsts, 4, "LDGSTS.E", "", 0};
  ca0.guard = "@P0";
  for (const TracePc& p : {cg0, cg1, ca0}) t.pc(p);
  for (int rep = 0; rep < 2; ++rep) {
    for (uint32_t pc = 0; pc < 3; ++pc) {
      TraceWarp w;
      w.pc_index = pc;
      w.mask = ~0u;
      w.has_src = true;
      const uint32_t width = pc == 2 ? 4 : 16;
      for (uint32_t l = 0; l < 32; ++l) w.addr[l] = w.src[l] = 1024 + width * l;
      t.warp(w);
    }
  }
  t.launch_end(TraceLaunchEnd{0, 6, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();

  struct Pcs : TraceSink {
    std::vector<TracePc> pcs;
    void on_pc(const TracePc& p) override { pcs.push_back(p); }
  } back;
  REQUIRE(read_trace(bytes.data(), bytes.size(), back).ok());
  REQUIRE(back.pcs.size() == 3);
  CHECK(back.pcs[0].guard == "@P0");
  CHECK(back.pcs[1].guard == "@P1");
  CHECK(back.pcs[2].guard == "@P0");

  const size_t k = static_cast<size_t>(TraceOpKind::kLdgsts);
  auto asked = report_trace(bytes.data(), bytes.size());
  REQUIRE(asked.ok());
  const LaunchReport& l = asked->traced.launches.at(0);
  CHECK(l.pcs[0].modelled());
  CHECK(l.pcs[0].executions == 2);
  CHECK(l.pcs[0].wavefronts == 0);  // R9 alone: 8
  CHECK(l.pcs[0].ideal == 0);
  CHECK(l.pcs[0].model.note.find("@P0-guarded LDGSTS.BYPASS") == 0);
  CHECK(l.pcs[1].wavefronts == 8);
  CHECK(l.pcs[1].model.note.empty());
  CHECK(l.pcs[2].wavefronts == 2);  // .ca under @P0 counts
  CHECK(l.by_kind[k].instructions == 6);
  CHECK(l.by_kind[k].wavefronts == 10);
  CHECK(l.uncosted_by_kind[k] == 0);
  const std::vector<ReportRow> rows = report_rows(asked->traced, false);
  const auto row0 = std::find_if(rows.begin(), rows.end(), [](const ReportRow& r) { return r.where == "pc 0x160"; });
  REQUIRE(row0 != rows.end());
  CHECK(row0->note == l.pcs[0].model.note);

}

TEST_CASE("trace format: a 'P' record stores a guard only when there is one") {
  // Files without guards are byte for byte what they were before guards were stored.
  const auto with = [](const std::string& guard) {
    TraceWriter t;
    t.launch(TraceLaunch{});
    TracePc p{0, 0x10, TraceOpKind::kStore, 4, "STS", "k.cu", 3};
    p.guard = guard;
    t.pc(p);
    t.launch_end(TraceLaunchEnd{0, 0, 0, TraceStatus::kComplete});
    t.end(TraceEnd{1, 0});
    return t.take();
  };
  CHECK(with("@!P3").size() == with("").size() + 5);  // one length byte and 4 characters
}

namespace {

// A trace of one full-warp 4-byte .ca LDGSTS execution (SGEMM's pc 0x2440) with w's destinations
// and sources.
std::vector<uint8_t> one_ldgsts_trace(TraceWarp w) {
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x2440, TraceOpKind::kLdgsts, 4, "LDGSTS.E.LTC128B", "", 0});
  w.mask = ~0u;
  w.has_src = true;
  t.warp(w);
  t.launch_end(TraceLaunchEnd{0, 1, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

// w's destinations as one 4-byte .ca cp.async of a full warp (a probe pattern).
WarpAccess ldgsts_access(const TraceWarp& w) {
  WarpAccess a;
  a.op = Op::kLdgsts;
  a.width = 4;
  a.addr = w.addr;
  return a;
}

}  // namespace

// cp.async's zero-fill form reads no global memory; a trace records its null source as 0. Measured
// on the H200 (assets/results/h200/2026-12-01k/trace): cuBLAS SGEMM's LDGSTS at pc 0x2440 costs
// 16,384 wavefronts for 16,384 executions, 2,048 of them with every lane's source 0 and 32
// consecutive 4-byte destinations (zerofill_check.txt). R9 counting those sources as one source
// bank would give 32 wavefronts each; the report (trace sources) gives 1.
TEST_CASE("trace report: a zero-fill LDGSTS (every source 0) has no source side") {
  TraceWarp w;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    w.addr[lane] = 9600 + 4 * lane;
    w.src[lane] = 0;
  }
  const auto bytes = one_ldgsts_trace(w);
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  CHECK(r->traced.launches.at(0).pcs.at(0).wavefronts == 1);
  // The same lanes as a probe pattern, where a source offset of 0 is a real address: 32 lanes on
  // one source bank.
  const WarpAccess a = ldgsts_access(w);
  const LdgstsSources src = w.src;
  CHECK(ldgsts_cost(a, src).wavefronts == 32);
  CHECK(ldgsts_cost(a, src, true).wavefronts == 1);
}

// A prefetch partly past the end: lanes 0-15 zero-fill (source 0), lanes 16-31 read 16 sources on
// one bank (stride 128 bytes); 32 consecutive destinations. R9: the 16 real sources serialize (16
// wavefronts) and the zero-fill lanes add none; counting the zero-fill "sources" as real puts all
// 32 on bank 0 (32 wavefronts).
TEST_CASE("trace report: zero-fill and real sources in one LDGSTS: only the real ones conflict") {
  TraceWarp w;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    w.addr[lane] = 4 * lane;
    w.src[lane] = lane < 16 ? 0u : 4096u + 128u * (lane - 16);
  }
  const auto bytes = one_ldgsts_trace(w);
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  CHECK(r->traced.launches.at(0).pcs.at(0).wavefronts == 16);
  CHECK(ldgsts_cost(ldgsts_access(w), w.src).wavefronts == 32);
}

// Traced on the H200 (assets/results/h200/2026-12-01t): kernels/tracer/corpus/zfill_cp_async.cu, a
// cp.async.ca zero-fill with a real source pointer and src-size 0 past n (CUTLASS's form), sources
// on one bank. The Compute Sanitizer API reports such a lane's source as NULL, which the trace keeps
// as 0, so the zero-fill reading covers it. ncu counted 32, 16 and 1 wavefronts for n = 32, 16, 0.
TEST_CASE("trace report: a zero-fill with a real pointer (src-size 0), traced on the H200, equals ncu") {
  const std::string path =
      std::string(BANKSCOPE_SOURCE_DIR) + "/assets/results/h200/2026-12-01t/trace/traces/zfill_cp_async.bstrace";
  auto bytes = read_trace_file(path);
  REQUIRE_MESSAGE(bytes.ok(), path);
  auto r = report_trace(bytes->data(), bytes->size());
  REQUIRE(r.ok());
  REQUIRE(r->traced.launches.size() == 3);
  const size_t k = static_cast<size_t>(TraceOpKind::kLdgsts);
  const uint64_t measured[3] = {32, 16, 1};  // smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(r->traced.launches[i].by_kind[k].wavefronts == measured[i]);
    CHECK(r->traced.launches[i].by_kind[k].instructions == 1);
  }
  // Without the zero-fill reading every launch would cost 32: the sources of the n = 0 launch are 0.
  Recorder rec;
  REQUIRE(read_trace(bytes->data(), bytes->size(), rec).ok());
  REQUIRE(rec.warps.size() >= 3);
  int zero_sources = 0;
  for (const TraceWarp& w : rec.warps)
    if (w.has_src)
      for (int l = 0; l < 32; ++l) zero_sources += (w.mask >> l & 1u) && w.src[size_t(l)] == 0;
  CHECK(zero_sources == 16 + 32);
}
