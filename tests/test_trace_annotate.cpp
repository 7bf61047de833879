// test_trace_annotate.cpp: a trace's instructions get their opcode and source line from the SASS of
// the function each launch ran (sim/trace_annotate.hpp); nothing else in the file changes.
#include <doctest/doctest.h>

#include "sim/trace.hpp"
#include "sim/trace_annotate.hpp"

using namespace bankscope;

namespace {

// Records every instruction and counts the executions of a decoded trace.
struct Collect : TraceSink {
  std::vector<std::pair<uint64_t, TracePc>> pcs;  // (launch, instruction)
  uint64_t launch = 0, warps = 0, mask_sum = 0, addr_sum = 0;
  void on_launch(const TraceLaunch& l) override { launch = l.launch; }
  void on_pc(const TracePc& p) override { pcs.emplace_back(launch, p); }
  void on_warp(const TraceWarp& w, const TracePc&) override {
    ++warps;
    mask_sum += w.mask;
    for (int i = 0; i < 32; ++i)
      if (w.mask >> i & 1u) addr_sum += w.addr[i];
  }
};

TracePc pc(uint32_t index, uint64_t offset, TraceOpKind kind, int width, const char* opcode) {
  TracePc p;
  p.index = index;
  p.pc = offset;
  p.kind = kind;
  p.width = width;
  p.opcode = opcode;
  return p;
}

}  // namespace

TEST_CASE("trace_annotate: opcodes and lines come from the SASS at each instruction's offset") {
  // Two launches of one kernel; launch 1 is mapped to SASS that lists 0x20 and 0x50 (not 0x90).
  TraceWriter t;
  for (uint64_t launch = 0; launch < 2; ++launch) {
    TraceLaunch l;
    l.launch = launch;
    l.kernel = "k(float*)";
    t.launch(l);
    // Named the way the tracer names them without the SASS (from kind and width).
    t.pc(pc(0, 0x20, TraceOpKind::kLoad, 16, "ld.128"));
    t.pc(pc(1, 0x50, TraceOpKind::kStore, 8, "st.64"));
    t.pc(pc(2, 0x90, TraceOpKind::kLoad, 4, "ld"));
    for (uint32_t i = 0; i < 3; ++i) {
      TraceWarp w;
      w.pc_index = i;
      w.warp = i;
      w.mask = 0xffffffffu >> i;
      for (int lane = 0; lane < 32; ++lane) w.addr[lane] = static_cast<uint32_t>(lane * 16 + 64 * i);
      t.warp(w);
    }
    t.launch_end(TraceLaunchEnd{launch, 3, 0, TraceStatus::kComplete});
  }
  t.end(TraceEnd{2, 0});
  const std::vector<uint8_t> in = t.take();

  auto fns = parse_sass(
      "\t.section\t.text._Z1kPf,\"ax\",@progbits\n"
      ".text._Z1kPf:\n"
      "\t//## File \"/src/k.cu\", line 41\n"
      "        /*0020*/                   LDS.128 R12, [R3] ;\n"
      "\t//## File \"/src/k.cu\", line 44\n"
      "        /*0050*/               @P0 STS.64 [R1+0x10], R4 ;\n"
      "        /*0090*/                   EXIT ;\n");
  REQUIRE(fns);
  const std::map<uint64_t, const SassFunction*> map{{1, &fns->front()}};
  AnnotateSummary sum;
  auto out = annotate_trace(in, map, &sum);
  REQUIRE(out);
  CHECK(sum.instructions == 6);
  CHECK(sum.with_opcode == 2);
  CHECK(sum.with_line == 2);

  Collect before, after;
  REQUIRE(read_trace(in.data(), in.size(), before));
  REQUIRE(read_trace(out->data(), out->size(), after));
  // The executions are copied exactly.
  CHECK(after.warps == 6);
  CHECK(after.mask_sum == before.mask_sum);
  CHECK(after.addr_sum == before.addr_sum);
  REQUIRE(after.pcs.size() == 6);
  // launch, offset, opcode, file, line, guard (the report needs it for LDGSTS.BYPASS)
  struct Row {
    uint64_t launch, offset;
    const char* opcode;
    const char* file;
    uint32_t line;
    const char* guard;
  };
  const Row rows[] = {{0, 0x20, "ld.128", "", 0, ""},           {0, 0x50, "st.64", "", 0, ""},
                      {0, 0x90, "ld", "", 0, ""},               {1, 0x20, "LDS.128", "/src/k.cu", 41, ""},
                      {1, 0x50, "STS.64", "/src/k.cu", 44, "@P0"}, {1, 0x90, "ld", "", 0, ""}};
  for (size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(after.pcs[i].first == rows[i].launch);
    CHECK(after.pcs[i].second.pc == rows[i].offset);
    CHECK(after.pcs[i].second.opcode == rows[i].opcode);
    CHECK(after.pcs[i].second.file == rows[i].file);
    CHECK(after.pcs[i].second.line == rows[i].line);
    CHECK(after.pcs[i].second.guard == rows[i].guard);
  }
}

TEST_CASE("trace_annotate: a trace cut short is refused, not half copied") {
  TraceWriter t;
  TraceLaunch l;
  t.launch(l);
  const std::vector<uint8_t> in = t.take();  // no 'E', no 'Z'
  auto out = annotate_trace(in, {});
  REQUIRE_FALSE(out);
  CHECK(out.error().message.find("trace") != std::string::npos);
}
