// test_trace_sources.cpp: the global sources of LDGSTS executions in a trace (sim/trace.hpp, 'S'
// record): round trip, the byte layout, every malformed 'S' as one line.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/trace.hpp"

using namespace bankscope;

namespace {

constexpr uint32_t kReserved = 1024;  // sm_90's reserved shared window: 8 rows of 128 bytes

struct Recorder : TraceSink {
  std::vector<TraceWarp> warps;
  void on_warp(const TraceWarp& w, const TracePc&) override { warps.push_back(w); }
};

std::string read_error(const std::vector<uint8_t>& b) {
  Recorder r;
  auto s = read_trace(b.data(), b.size(), r);
  return s.ok() ? std::string("ok") : s.error().message;
}

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
  TraceWriter t;
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
  TraceWriter t;
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
  // One 'S' record, at once before its 'W'.
  std::string tags;
  for (const auto& r : records(bytes)) tags += r.first;
  CHECK(tags == "KPPPSWEZ");
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

TEST_CASE("trace sources: the 'S' record byte by byte") {
  // Lanes 0 and 1 of a 16-byte LDGSTS, sources 4096 and 4112: count 1, exec 0, base 4096
  // (0x80 0x20), mode 0, stride 16 (zvarint 32). The execution before it has no sources.
  TraceWriter t;
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
  CHECK(has(past, "source entry for execution 2, the warp record at byte "));
  CHECK(has(past, " has 2"));
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
  CHECK(has(read_error(ldgsts_file(cat({s_rec({std::vector<uint8_t>{0, 64, 9, 8}}), w_rec({3})}))), "address mode 9 unknown (version 2)"));
  // Every error names its byte, and every prefix of a file with sources fails with one line.
  for (const auto& b : {past, cut}) CHECK(b.rfind("trace: ", 0) == 0);
  for (size_t n = 0; n < ok.size(); ++n) {
    std::vector<uint8_t> prefix(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(n));
    CAPTURE(n);
    CHECK(read_error(prefix).rfind("trace: ", 0) == 0);
  }
}
