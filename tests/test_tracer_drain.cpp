// test_tracer_drain.cpp: the tracer's host side after a launch (kernels/tracer/drain.hpp): which
// device slots were written, how an LDGSTS record takes its sources from the slot after it, and
// that a source slot never becomes an instruction. The device side (patch.cu) is checked on the
// H200 (assets/results/h200/2026-12-01m/trace: cuBLAS SGEMM traced and equal to ncu).
#include <doctest/doctest.h>

#include <vector>

#include "drain.hpp"
#include "sim/trace.hpp"

using namespace bankscope;
using namespace bankscope::tracer;

namespace {

DeviceRecord rec(uint64_t pc, uint16_t kind, uint32_t warp, uint32_t base, uint32_t step, uint32_t count = 1) {
  DeviceRecord r{};
  r.pc = pc;
  r.block = 3;
  r.warp = warp;
  r.mask = 0xffffffffu;
  r.kind = kind;
  r.width = 4;
  r.count = count;
  for (uint32_t l = 0; l < 32; ++l) r.addr[l] = base + step * l;
  return r;
}

struct Collect : TraceSink {
  std::vector<TracePc> pcs;
  std::vector<TraceWarp> warps;
  void on_pc(const TracePc& p) override { pcs.push_back(p); }
  void on_warp(const TraceWarp& w, const TracePc&) override { warps.push_back(w); }
};

Collect drain(const std::vector<DeviceRecord>& recs, uint64_t* executions) {
  TraceWriter t;
  t.launch(TraceLaunch{});
  int flushes = 0;
  *executions = drain_records(recs, 0x1000, t, [&flushes] { ++flushes; });
  CHECK(flushes == static_cast<int>(*executions));
  t.launch_end(TraceLaunchEnd{0, *executions, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  Collect c;
  REQUIRE(read_trace(bytes.data(), bytes.size(), c).ok());
  return c;
}

}  // namespace

TEST_CASE("tracer drain: written slots end at the first reservation that did not fit") {
  DeviceBufferHeader h{};
  h.capacity = 10;
  h.valid_end = 10;
  h.head = 7;
  CHECK(written_slots(h) == 7);
  h.head = 12;  // reservations past the end
  CHECK(written_slots(h) == 10);
  h.valid_end = 9;  // an LDGSTS reserved slots 9 and 10: neither written
  CHECK(written_slots(h) == 9);
}

TEST_CASE("tracer drain: an LDGSTS takes its sources from the next slot; a source slot is no instruction") {
  std::vector<DeviceRecord> recs;
  recs.push_back(rec(0x1100, kRecLoad, 0, 1024, 4));                      // LDS
  recs.push_back(rec(0x1200, kRecLdgsts, 0, 2048, 4));                    // LDGSTS ...
  recs.push_back(rec(0x1200, kRecLdgstsSource, 0, 0x40000000u, 128));     // ... and its sources
  recs.push_back(rec(0x1200, kRecLdgsts, 1, 2176, 4));                    // zero-fill: null sources
  recs.push_back(rec(0x1200, kRecLdgstsSource, 1, 0, 0, 0xffffffffu));
  recs.push_back(rec(0x1200, kRecLdgsts, 2, 2304, 4));                    // lane 0's real source has
  DeviceRecord odd = rec(0x1200, kRecLdgstsSource, 2, 0, 128, 0);          // low 32 bits 0, not null:
  recs.push_back(odd);                                                     // written without sources
  recs.push_back(rec(0x1200, kRecLdgsts, 3, 2432, 4));                    // the next slot is another
  recs.push_back(rec(0x1100, kRecLoad, 3, 1024, 4));                      // warp's LDS: no sources
  uint64_t executions = 0;
  const Collect c = drain(recs, &executions);
  CHECK(executions == 6);
  REQUIRE(c.pcs.size() == 2);  // LDS and LDGSTS; no instruction for the source slots
  CHECK(c.pcs[0].pc == 0x100);
  CHECK(c.pcs[1].pc == 0x200);
  CHECK(c.pcs[1].kind == TraceOpKind::kLdgsts);
  REQUIRE(c.warps.size() == 6);
  CHECK_FALSE(c.warps[0].has_src);
  CHECK(c.warps[1].has_src);
  CHECK(c.warps[1].src[5] == 0x40000000u + 5 * 128);
  CHECK(c.warps[1].addr[5] == 2048 + 5 * 4);
  CHECK(c.warps[2].has_src);
  CHECK(c.warps[2].src[7] == 0);
  CHECK_FALSE(c.warps[3].has_src);
  CHECK_FALSE(c.warps[4].has_src);
  CHECK(c.warps[4].warp == 3);
  CHECK_FALSE(c.warps[5].has_src);
}
