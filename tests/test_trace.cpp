// test_trace.cpp: the trace format (round trip, truncated and corrupt files), the per-PC report on a
// synthetic trace of the seed kernel, and the what-if against the scenario of the same layout.
#include <doctest/doctest.h>

#include <random>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/trace.hpp"
#include "sim/trace_report.hpp"

using namespace bankscope;

namespace {

constexpr uint32_t kReserved = 1024;  // the driver's per-block shared window offset on sm_90

// One 32x32 block of the seed transpose, as the tracer would record it: per warp w (threadIdx.y =
// w) the row write tile[w][tx] (STS, pc 0x100), then the column read tile[tx][w] (LDS, pc 0x200).
std::vector<uint8_t> seed_block_trace(bool with_end = true) {
  TraceWriter t;
  TraceLaunch l;
  l.kernel = "transpose_seed";
  l.grid = {1, 1, 1};
  l.block = {32, 32, 1};
  l.shared_bytes = 32 * 32 * 4;
  l.reserved_bytes = kReserved;
  t.launch(l);
  t.pc(TracePc{0, 0x100, TraceOpKind::kStore, 4, "STS", "transpose.cu", 12});
  t.pc(TracePc{1, 0x200, TraceOpKind::kLoad, 4, "LDS", "/home/u/src/transpose.cu", 14});
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t w = 0; w < 32; ++w) {
      TraceWarp e;
      e.warp = w;
      e.pc_index = static_cast<uint32_t>(pass);
      e.mask = 0xffffffffu;
      for (uint32_t tx = 0; tx < 32; ++tx)
        e.addr[tx] = kReserved + 4 * (pass == 0 ? w * 32 + tx : tx * 32 + w);
      t.warp(e);
    }
  }
  t.launch_end(TraceLaunchEnd{0, 64, 0, TraceStatus::kComplete});
  if (with_end) t.end(TraceEnd{1, 0});
  return t.take();
}

struct Recorder : TraceSink {
  std::vector<TraceWarp> warps;
  void on_warp(const TraceWarp& w, const TracePc&) override { warps.push_back(w); }
};

std::string read_error(const std::vector<uint8_t>& b) {
  Recorder r;
  auto s = read_trace(b.data(), b.size(), r);
  return s.ok() ? std::string("ok") : s.error().message;
}

}  // namespace

TEST_CASE("trace: round trip keeps every lane's address, uniform and scattered") {
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
  TraceWarp a;  // uniform stride, lanes 0..31
  a.mask = 0xffffffffu;
  for (int i = 0; i < 32; ++i) a.addr[i] = 1024 + 132 * i;
  TraceWarp b;  // scattered, odd lanes only
  b.block = 7;
  b.warp = 3;
  b.mask = 0xaaaaaaaau;
  for (int i = 1; i < 32; i += 2) b.addr[i] = 4 * ((i * 37) % 64);
  TraceWarp c;  // predicated off
  c.mask = 0;
  t.warp(a);
  t.warp(b);
  t.warp(c);
  t.launch_end(TraceLaunchEnd{0, 3, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  Recorder r;
  auto s = read_trace(bytes.data(), bytes.size(), r);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  CHECK(s->executions == 3);
  CHECK(s->complete);
  REQUIRE(r.warps.size() == 3);
  CHECK(r.warps[0].addr == a.addr);
  CHECK(r.warps[1].block == 7);
  CHECK(r.warps[1].warp == 3);
  for (int i = 1; i < 32; i += 2) CHECK(r.warps[1].addr[i] == b.addr[i]);
  CHECK(r.warps[2].mask == 0);
}

TEST_CASE("trace: a uniform-stride warp costs about 11 bytes") {
  // 12 header + 'K' + 'P' records, then 64 warps; the stride form is block, warp, pc, mask(4),
  // base(2), mode, stride(1-2): 11-12 bytes per warp.
  const auto bytes = seed_block_trace();
  CHECK(bytes.size() < 12 + 64 * 12 + 80);
}

TEST_CASE("trace: truncated and corrupt files give one line, never a crash") {
  const auto good = seed_block_trace();
  CHECK(read_error(good) == "ok");
  CHECK(read_error({}) == "trace: not a bankscope trace (no BSTRACE header)");
  // No end-of-file record: the program or the tracer stopped early.
  CHECK(read_error(seed_block_trace(false)).find("truncated at byte") != std::string::npos);
  // Every prefix fails with a message (and none crashes: the fuzz target checks more).
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    CAPTURE(n);
    CHECK(read_error(cut).rfind("trace: ", 0) == 0);
  }
  auto bad_version = good;
  bad_version[8] = 9;
  CHECK(read_error(bad_version) == "trace: version 9 (this reader reads version 1)");
  // A misaligned lane: 4-byte STS at an odd address.
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x10, TraceOpKind::kStore, 4, "STS", "", 0});
  TraceWarp w;
  w.mask = 3;
  w.addr[0] = 0;
  w.addr[1] = 6;
  t.warp(w);
  t.launch_end(TraceLaunchEnd{});
  t.end(TraceEnd{});
  CHECK(read_error(t.take()).find("lane 1 address 6 not aligned to its width 4 (pc 16)") != std::string::npos);
}

TEST_CASE("trace report: the seed kernel's column read costs 32 wavefronts per warp") {
  const auto bytes = seed_block_trace();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r->traced.launches.size() == 1);
  const LaunchReport& l = r->traced.launches[0];
  // Row write: 32 STS, 1 wavefront each. Column read: 32 LDS, all 32 lanes in bank w: 32 each.
  CHECK(l.st.instructions == 32);
  CHECK(l.st.wavefronts == 32);
  CHECK(l.ld.instructions == 32);
  CHECK(l.ld.wavefronts == 1024);
  CHECK(l.ld.bank_conflicts() == 992);
  const auto rows = report_rows(r->traced, false);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].where == "pc 0x200");  // most excess first
  CHECK(rows[0].excess() == 992);
  CHECK(rows[0].worst_n_way == 32);
  CHECK(rows[0].typical_n_way == 32);
  CHECK(rows[1].typical_n_way == 1);
  const auto by_line = report_rows(r->traced, true);
  CHECK(by_line[0].where == "transpose.cu:14");
}

TEST_CASE("trace what-if: stride 33 on the traced tile equals the [32][33] scenario") {
  const auto bytes = seed_block_trace();
  auto tile = parse_array_spec("tile@0:float[32][32]");
  REQUIRE(tile.ok());
  auto padded = apply_layout_spec(*tile, "tile:stride=33");
  REQUIRE(padded.ok());
  auto r = report_trace(bytes.data(), bytes.size(), {ArrayRemap{*tile, *padded}});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  const LaunchReport& w = r->what_if.launches.at(0);

  auto spec = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/seed_transpose_32x33.json");
  REQUIRE(spec.ok());
  spec->n = 32;  // one block, as traced
  auto sc = compile(*spec);
  REQUIRE(sc.ok());
  auto t = launch_totals(*sc);
  REQUIRE(t.ok());
  CHECK(w.ld.instructions == t->ld.instructions);
  CHECK(w.ld.wavefronts == t->ld.wavefronts);
  CHECK(w.st.wavefronts == t->st.wavefronts);
  CHECK(w.ld.wavefronts == 32);
  // The as-traced report is untouched by the what-if.
  CHECK(r->traced.launches.at(0).ld.wavefronts == 1024);
  // xor=31 and Swizzle<5,0,5> are conflict-free too.
  for (const char* lay : {"tile:xor=31", "tile:swizzle=5,0,5"}) {
    CAPTURE(lay);
    auto x = apply_layout_spec(*tile, lay);
    REQUIRE(x.ok());
    auto rx = report_trace(bytes.data(), bytes.size(), {ArrayRemap{*tile, *x}});
    REQUIRE(rx.ok());
    CHECK(rx->what_if.launches.at(0).ld.wavefronts == 32);
  }
}

TEST_CASE("trace what-if: bad specs are one line") {
  CHECK(parse_array_spec("tile:float[32]").error().message.find("expected NAME@BYTE_OFFSET") != std::string::npos);
  CHECK(parse_array_spec("tile@0:quad[32]").error().message.find("unknown element type 'quad'") != std::string::npos);
  auto tile = parse_array_spec("tile@0:float[32][32]");
  REQUIRE(tile.ok());
  CHECK(apply_layout_spec(*tile, "tile:stride=31").error().message.find("smaller than the row length 32") !=
        std::string::npos);
  CHECK(apply_layout_spec(*tile, "other:stride=33").error().message.find("no --array named 'other'") !=
        std::string::npos);
  CHECK(apply_layout_spec(*tile, "tile:tma_swizzle=96B").error().message ==
        "--layout 'tile:tma_swizzle=96B': tma_swizzle: '96B' is not a TMA swizzle mode (32B, 64B, 128B or none: "
        "CU_TENSOR_MAP_SWIZZLE_<mode>)");
  CHECK(apply_layout_spec(*tile, "tile:tma_swizzle=64B").error().message ==
        "--layout 'tile:tma_swizzle=64B': tma_swizzle: rows of 128 bytes are wider than the 64-byte span of "
        "CU_TENSOR_MAP_SWIZZLE_64B (a box's inner dimension is at most the span: split the tile into boxes of 16 "
        "columns)");
  CHECK(apply_layout_spec(*tile, "tile:stride=33;tma_swizzle=128B").error().message.find(
            "tma_swizzle: the copy engine places rows 128 bytes apart (32 floats); row_stride 33") != std::string::npos);
  // The copy's shared destination must be 128-byte aligned (documented); off the 1024-byte repeat
  // the pattern is that of the address (measured): taken, shifted by the array's line.
  auto at64 = parse_array_spec("tile@64:float[32][32]");
  REQUIRE(at64.ok());
  CHECK(apply_layout_spec(*at64, "tile:tma_swizzle=128B").error().message ==
        "--layout 'tile:tma_swizzle=128B': tma_swizzle: the array starts at byte 64, not a multiple of 128 (a TMA "
        "box's shared-memory destination must be 128-byte aligned)");
  auto at128 = parse_array_spec("tile@128:float[32][32]");
  REQUIRE(at128.ok());
  auto shifted = apply_layout_spec(*at128, "tile:tma_swizzle=128B");
  REQUIRE(shifted.ok());
  CHECK(shifted->byte_address(0, 0) == 128 + 16);  // line 1 of the repeat: chunk 0 ^ 1
}

TEST_CASE("trace what-if: the seed's tile as if TMA wrote it with SWIZZLE_128B") {
  // Column read of one block (32 warps, one LDS each): column c of rows r lands in chunk
  // (c / 4) ^ (r % 8), so rows r, r + 8, r + 16, r + 24 share a bank: 4-way, 4 wavefronts per
  // warp, 128 for the block (unswizzled 32 x 32 = 1024; padded 32).
  const auto bytes = seed_block_trace();
  auto tile = parse_array_spec("tile@0:float[32][32]");
  REQUIRE(tile.ok());
  auto tma = apply_layout_spec(*tile, "tile:tma_swizzle=128B");
  REQUIRE_MESSAGE(tma.ok(), (tma.ok() ? "" : tma.error().message));
  CHECK(tma->layout.tma_span == 128);
  auto r = report_trace(bytes.data(), bytes.size(), {ArrayRemap{*tile, *tma}});
  REQUIRE(r.ok());
  CHECK(r->what_if.launches.at(0).ld.wavefronts == 128);
  CHECK(r->what_if.launches.at(0).st.wavefronts == 32);
}

TEST_CASE("trace report: each kind costed by its rule; what no measured rule covers is left out") {
  // Every lane at 16 * lane: 512 contiguous bytes. By hand (sim/RULES.md):
  //   LDS.128             R3: quarter-warp phases of 128 contiguous bytes: 4 wavefronts, ideal 4
  //   LDSM.16.M88.4       R7: 4 matrices, each 8 rows of 16 contiguous bytes: 4 wavefronts, ideal 4
  //   ATOMS.ADD (4 B)     R8: one phase; word 4*lane puts lanes l, l+8, l+16, l+24 in one bank,
  //                       each served alone: 4 wavefronts, 3 conflicts (ideal 1)
  //   LDGSTS.E.128 (.ca)  R9 fits single warps but not cuBLAS's whole kernels: not modelled
  //   ATOMS (API name)    operation unknown: not modelled
  //   LDGSTS.E.BYPASS.128 .cg: no measured rule: not modelled
  struct Row {
    TraceOpKind kind;
    int width;
    const char* opcode;
    bool modelled;
    uint64_t wavefronts, ideal;
  };
  const Row rows[] = {{TraceOpKind::kLoad, 16, "LDS.128", true, 4, 4},
                      {TraceOpKind::kLdsm, 16, "LDSM.16.M88.4", true, 4, 4},
                      {TraceOpKind::kAtomic, 4, "ATOMS.ADD", true, 4, 1},
                      {TraceOpKind::kLdgsts, 16, "LDGSTS.E.128", false, 0, 0},
                      {TraceOpKind::kAtomic, 4, "ATOMS", false, 0, 0},
                      {TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.128", false, 0, 0}};
  TraceWriter t;
  t.launch(TraceLaunch{});
  for (uint32_t i = 0; i < 6; ++i) t.pc(TracePc{i, 0x10 * (i + 1), rows[i].kind, rows[i].width, rows[i].opcode, "", 0});
  TraceWarp w;
  w.mask = 0xffffffffu;
  for (int lane = 0; lane < 32; ++lane) w.addr[lane] = 16 * lane;
  for (uint32_t pc = 0; pc < 6; ++pc) {
    w.pc_index = pc;
    t.warp(w);
  }
  t.launch_end(TraceLaunchEnd{0, 6, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  const LaunchReport& l = r->traced.launches.at(0);
  REQUIRE(l.pcs.size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    CAPTURE(rows[i].opcode);
    CHECK(l.pcs[i].modelled() == rows[i].modelled);
    CHECK(l.pcs[i].wavefronts == rows[i].wavefronts);
    CHECK(l.pcs[i].ideal == rows[i].ideal);
    if (!rows[i].modelled) CHECK_FALSE(l.pcs[i].model.why.empty());
  }
  // Per-kind totals hold the costed executions; ld/st only the LDS.
  CHECK(l.ld.instructions == 1);
  CHECK(l.ld.wavefronts == 4);
  CHECK(l.st.instructions == 0);
  const auto at = [&](TraceOpKind k) { return static_cast<size_t>(k); };
  CHECK(l.by_kind[at(TraceOpKind::kLdsm)].wavefronts == 4);
  CHECK(l.by_kind[at(TraceOpKind::kAtomic)].instructions == 1);
  CHECK(l.by_kind[at(TraceOpKind::kAtomic)].bank_conflicts() == 3);
  CHECK(l.by_kind[at(TraceOpKind::kLdgsts)].instructions == 0);
  CHECK(l.uncosted_by_kind[at(TraceOpKind::kAtomic)] == 1);
  CHECK(l.uncosted_by_kind[at(TraceOpKind::kLdgsts)] == 2);
  CHECK(l.executions_by_kind[at(TraceOpKind::kAtomic)] == 2);
  const auto report = report_rows(r->traced, false);
  REQUIRE(report.size() == 6);
  int not_modelled = 0;
  for (const ReportRow& row : report) {
    not_modelled += !row.modelled;
    if (!row.modelled) CHECK(row.wavefronts == 0);
  }
  CHECK(not_modelled == 3);
}

TEST_CASE("trace report: the cost memo for evenly spaced warps gives cost()'s numbers") {
  // The memo keys evenly spaced full warps by (op, width, stride, base mod 4 KiB). Its premise,
  // checked first: moving every lane by a multiple of 4 KiB changes no cost, for every width.
  std::mt19937 rng(11);
  for (int width : {1, 2, 4, 8, 16}) {
    for (int i = 0; i < 300; ++i) {
      WarpAccess a;
      a.op = i % 2 ? Op::kStore : Op::kLoad;
      a.width = width;
      const int64_t stride = width * (static_cast<int64_t>(rng() % 97) - 48);
      const uint32_t base = width * static_cast<uint32_t>(rng() % 2048) + 65536;
      for (int lane = 0; lane < 32; ++lane) a.addr[lane] = static_cast<uint32_t>(base + lane * stride);
      WarpAccess b = a;
      const uint32_t shift = 4096u * static_cast<uint32_t>(1 + rng() % 5);
      for (auto& x : b.addr) x += shift;
      CAPTURE(width);
      CAPTURE(stride);
      CAPTURE(base);
      const AccessCost ca = cost(a), cb = cost(b);
      CHECK(ca.wavefronts == cb.wavefronts);
      CHECK(ca.ideal_wavefronts == cb.ideal_wavefronts);
      CHECK(ca.n_way == cb.n_way);
    }
  }
  // Then the aggregator against cost() summed by hand over warps that hit and miss the memo.
  TraceWriter t;
  t.launch(TraceLaunch{});
  const int widths[] = {4, 8, 16, 4};
  for (uint32_t i = 0; i < 4; ++i)
    t.pc(TracePc{i, 0x10 * i, i == 3 ? TraceOpKind::kStore : TraceOpKind::kLoad, widths[i], "LDS", "", 0});
  std::array<uint64_t, 4> want_wavefronts{}, want_ideal{};
  for (int i = 0; i < 4000; ++i) {
    TraceWarp w;
    w.pc_index = static_cast<uint32_t>(rng() % 4);
    const int width = widths[w.pc_index];
    w.mask = rng() % 8 == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
    const int64_t stride = width * (static_cast<int64_t>(rng() % 9) - 4) * (rng() % 3 == 0 ? 33 : 1);
    const uint64_t base = 200000 + width * (rng() % 64) + 4096 * (rng() % 8);
    for (int lane = 0; lane < 32; ++lane)
      w.addr[lane] = w.mask >> lane & 1u ? static_cast<uint32_t>(base + lane * stride) : 0;
    if (i % 10 == 0 && w.mask == 0xffffffffu) w.addr[17] += static_cast<uint32_t>(width);  // not evenly spaced
    t.warp(w);
    WarpAccess a;
    a.op = w.pc_index == 3 ? Op::kStore : Op::kLoad;
    a.width = width;
    a.mask = w.mask;
    a.addr = w.addr;
    const AccessCost c = cost(a);
    want_wavefronts[w.pc_index] += static_cast<uint64_t>(c.wavefronts);
    want_ideal[w.pc_index] += static_cast<uint64_t>(c.ideal_wavefronts);
  }
  t.launch_end(TraceLaunchEnd{0, 4000, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  const LaunchReport& l = r->traced.launches.at(0);
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(l.pcs[i].wavefronts == want_wavefronts[i]);
    CHECK(l.pcs[i].ideal == want_ideal[i]);
  }
  CHECK(l.ld.wavefronts == want_wavefronts[0] + want_wavefronts[1] + want_wavefronts[2]);
  CHECK(l.st.wavefronts == want_wavefronts[3]);
}
