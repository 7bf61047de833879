// test_trace.cpp: the trace format (round trip, truncated and corrupt files), the per-PC report on a
// synthetic trace of the seed kernel, and the what-if against the scenario of the same layout.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/ldgsts.hpp"
#include "sim/trace.hpp"
#include "trace_test_util.hpp"
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

using test::Recorder;
using test::read_error;

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
  CHECK(read_error(bad_version) == "trace: version 9 (this reader reads versions 1 to 4)");
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
  //   LDGSTS.E.128 (.ca)  traced without global sources, which R9 needs: not modelled
  //   ATOMS (API name)    operation unknown: not modelled
  //   LDGSTS.E.BYPASS.128 (.cg) likewise without sources: not modelled
  //   (with sources both are costed: test_trace_sources.cpp)
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
    const AccessCost c = cost_sass(a);  // a trace report counts what the instruction-level counters count (R11)
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

namespace {

// One launch of width-`width` LDS executions, written by a TraceWriter of `version`.
std::vector<uint8_t> warps_trace(const std::vector<TraceWarp>& warps, int width, uint32_t version) {
  TraceWriter t(true, version);
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, width, "LDS", "", 0});
  for (const TraceWarp& w : warps) t.warp(w);
  t.launch_end(TraceLaunchEnd{0, warps.size(), 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

// The 'W' record's first execution, after the header and the 'K' and 'P' records of warps_trace().
size_t first_execution(const std::vector<uint8_t>& b) {
  size_t at = 12;
  const auto varint = [&b, &at] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      v |= uint64_t{b.at(at) & 0x7fu} << shift;
      if (b.at(at++) < 0x80) return v;
    }
  };
  for (int rec = 0; rec < 2; ++rec) {
    ++at;  // tag
    at += varint();
  }
  ++at;       // 'W'
  varint();   // its length
  varint();   // the count
  return at;
}

}  // namespace

TEST_CASE("trace: version 2 stores scattered lanes as fixed-size offsets; byte by byte") {
  // Lanes at 1024 + 4 (7 lane mod 32): every bank once, not evenly spaced. By hand: mode 1 stores
  // the base (2 bytes) and one zigzag delta per further lane, +28 (1 byte) or, 6 times, -100 (2
  // bytes): 2 + 25 + 12 = 39 bytes; mode 2 the base, the shift and 32 one-byte offsets in 4-byte
  // units (shift 2): 2 + 1 + 32 = 35 bytes, so version 2 takes mode 2.
  TraceWarp w;
  w.mask = 0xffffffffu;
  for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = 1024 + 4 * (7 * lane % 32);
  const auto v2 = warps_trace({w}, 4, 2);
  const size_t at = first_execution(v2);
  // block 0, warp 0, pc 0, mask ff ff ff ff, base 1024 = 0x80 0x08, mode 2, shift 2.
  const std::vector<uint8_t> head{0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x80, 0x08, 2, 2};
  REQUIRE(v2.size() > at + head.size() + 32);
  CHECK(std::vector<uint8_t>(v2.begin() + static_cast<std::ptrdiff_t>(at),
                             v2.begin() + static_cast<std::ptrdiff_t>(at + head.size())) == head);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    CAPTURE(lane);
    CHECK(v2[at + head.size() + lane] == 7 * lane % 32);
  }
  // The same warp in version 1: mode 1, 39 + 1 (mode) against 35 + 1 (mode) bytes.
  const auto v1 = warps_trace({w}, 4, 1);
  CHECK(v1[8] == 1);
  CHECK(v2[8] == 2);
  CHECK(v1[first_execution(v1) + 9] == 1);
  CHECK(v1.size() == v2.size() + 4);
  // Lanes spread over 48 KiB (4 (997 lane mod 12288)): deltas of up to 48 KiB take 3 bytes each in
  // mode 1, 2-byte offsets (mode 3) are smaller; lane 5's offset is 4985 units.
  for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = 1024 + 4 * (997 * lane % 12288);
  const auto wide = warps_trace({w}, 4, 2);
  const size_t wat = first_execution(wide);
  CHECK(wide[wat + 9] == 3);
  CHECK(wide[wat + 10] == 2);
  CHECK(wide[wat + 11 + 2 * 5] == (4985 & 0xff));
  CHECK(wide[wat + 11 + 2 * 5 + 1] == (4985 >> 8));
}

TEST_CASE("trace: every version round-trips every lane of random warps, every width and mask") {
  // The brute force is the input itself: each active lane's address comes back unchanged, from a
  // version 1 file (modes 0 and 1), a version 2 file (modes 0 to 3) and a version 4 file (its
  // fixed-width fields, modes 0 to 4), and version 2 is at most an eighth larger than version 1
  // (the writer trades that for the fixed-size offsets).
  std::mt19937 rng(5);
  for (int width : {1, 2, 4, 8, 16}) {
    std::vector<TraceWarp> warps;
    for (int i = 0; i < 3000; ++i) {
      TraceWarp w;
      w.block = static_cast<uint32_t>(rng() % 1000);
      w.warp = static_cast<uint32_t>(rng() % 32);
      const int m = static_cast<int>(rng() % 5);
      w.mask = m == 0 ? 0xffffffffu : m == 1 ? static_cast<uint32_t>(rng()) : m == 2 ? 1u << (rng() % 32) : 0xffffffffu;
      // Spans: 256 B (1-byte offsets), 48 KiB (2-byte), 4 GiB (deltas), or a stride (mode 0).
      const uint32_t span = std::array<uint32_t, 4>{256, 48 * 1024, 0xf0000000u, 4096}[rng() % 4];
      const uint32_t base = static_cast<uint32_t>(width) * static_cast<uint32_t>(rng() % 64);
      const uint32_t stride = static_cast<uint32_t>(width) * static_cast<uint32_t>(rng() % 40);
      const bool even = rng() % 4 == 0;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t off = even ? lane * stride : static_cast<uint32_t>(rng() % (span / width)) * width;
        w.addr[lane] = w.mask >> lane & 1u ? base + off : 0;
      }
      warps.push_back(w);
    }
    const auto v1 = warps_trace(warps, width, 1), v2 = warps_trace(warps, width, 2);
    const auto v4 = warps_trace(warps, width, 4);  // (its fixed fields: test_trace_v4.cpp)
    CAPTURE(width);
    CHECK(v2.size() <= v1.size() + v1.size() / 8);
    for (const auto* bytes : {&v1, &v2, &v4}) {
      Recorder r;
      auto s = read_trace(bytes->data(), bytes->size(), r);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      REQUIRE(r.warps.size() == warps.size());
      for (size_t i = 0; i < warps.size(); ++i) {
        CHECK(r.warps[i].mask == warps[i].mask);
        CHECK(r.warps[i].block == warps[i].block);
        CHECK(r.warps[i].warp == warps[i].warp);
        for (int lane = 0; lane < 32; ++lane) {
          if (!(warps[i].mask >> lane & 1u)) continue;
          if (r.warps[i].addr[lane] != warps[i].addr[lane]) {
            CAPTURE(i);
            CAPTURE(lane);
            CHECK(r.warps[i].addr[lane] == warps[i].addr[lane]);
          }
        }
      }
    }
  }
}

TEST_CASE("trace: corrupt version 2 executions give one line naming what") {
  // A hand-made 'W' record: block 0, warp 0, pc 0, `mask`, then `rest` (base, mode, ...).
  const auto trace = [](uint32_t version, int width, uint32_t mask, const std::vector<uint8_t>& rest) {
    TraceWriter t(true, version);
    t.launch(TraceLaunch{});
    t.pc(TracePc{0, 0x40, TraceOpKind::kLoad, width, "LDS", "", 0});
    std::vector<uint8_t> b = t.take();
    std::vector<uint8_t> payload{1, 0, 0, 0};
    for (int i = 0; i < 4; ++i) payload.push_back(static_cast<uint8_t>(mask >> (8 * i)));
    payload.insert(payload.end(), rest.begin(), rest.end());
    b.push_back('W');
    b.push_back(static_cast<uint8_t>(payload.size()));
    b.insert(b.end(), payload.begin(), payload.end());
    TraceWriter e(false);
    e.launch_end(TraceLaunchEnd{});
    e.end(TraceEnd{});
    const auto tail = e.take();
    b.insert(b.end(), tail.begin(), tail.end());
    return b;
  };
  // Lanes 0 and 1 at base 1024 (0x80 0x08) + offsets 0 and 1 in 4-byte units: fine.
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 2, 2, 0, 1})) == "ok");
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 3, 2, 0, 0, 1, 0})) == "ok");
  // Modes 2 and 3 are version 2's.
  CHECK(read_error(trace(1, 4, 3, {0x80, 0x08, 2, 2, 0, 1})).find("address mode 2 unknown (version 1)") !=
        std::string::npos);
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 4, 2, 0, 1})).find("address mode 4 unknown (version 2)") !=
        std::string::npos);
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 2, 5, 0, 1})).find("address shift 5 above 4") != std::string::npos);
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 3, 2, 0, 0, 1})).find("truncated in lane offsets (2 lanes of 2 bytes)") !=
        std::string::npos);
  // Shift 1: lane 1 at 1024 + 2, not 4-byte aligned; in a full warp too (the vector check fails,
  // the lane walk names the lane).
  CHECK(read_error(trace(2, 4, 3, {0x80, 0x08, 2, 1, 0, 1})).find("lane 1 address 1026 not aligned to its width 4 (pc 64)") !=
        std::string::npos);
  std::vector<uint8_t> full{0x80, 0x08, 2, 2};
  for (int lane = 0; lane < 32; ++lane) full.push_back(static_cast<uint8_t>(lane));
  CHECK(read_error(trace(2, 4, 0xffffffffu, full)) == "ok");
  full[3] = 1;  // shift 1: lane 1 at 1026
  CHECK(read_error(trace(2, 4, 0xffffffffu, full)).find("lane 1 address 1026 not aligned") != std::string::npos);
  full[3] = 2;
  // Base 2^32 - 16 (0xf0 0xff 0xff 0xff 0x0f): lane 0 fits, lane 1 (+4) is past 2^32 - 1 - width.
  std::vector<uint8_t> high{0xf0, 0xff, 0xff, 0xff, 0x0f, 2, 2};
  for (int lane = 0; lane < 32; ++lane) high.push_back(static_cast<uint8_t>(lane));
  CHECK(read_error(trace(2, 4, 0xffffffffu, high)).find("lane 3 address 4294967292 outside 0..2^32-1") !=
        std::string::npos);
  // Mode 1 (a delta per lane) of a full warp with the bytes for 31 five-byte deltas: the reader's
  // unchecked decoding, then one check of all lanes; lane 3 is past the top there too.
  {
    std::vector<uint8_t> payload{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff, 0x0f, 1};
    for (int lane = 1; lane < 32; ++lane) payload.insert(payload.end(), {0x88, 0x80, 0x80, 0x80, 0x00});  // +4, overlong
    TraceWriter h(true, 2);
    h.launch(TraceLaunch{});
    h.pc(TracePc{0, 0x40, TraceOpKind::kLoad, 4, "LDS", "", 0});
    std::vector<uint8_t> b = h.take();
    b.push_back('W');
    for (uint64_t v = payload.size(); ; v >>= 7) {
      b.push_back(static_cast<uint8_t>(v >= 0x80 ? (v & 0x7f) | 0x80 : v));
      if (v < 0x80) break;
    }
    b.insert(b.end(), payload.begin(), payload.end());
    TraceWriter e(false);
    e.launch_end(TraceLaunchEnd{0, 1, 0, TraceStatus::kComplete});
    e.end(TraceEnd{1, 0});
    const auto tail = e.take();
    b.insert(b.end(), tail.begin(), tail.end());
    CHECK(read_error(b).find("lane 3 address 4294967292 outside 0..2^32-1") != std::string::npos);
    payload[8] = 0x80;  // base 2^32 - 256: every lane fits
    payload[9] = 0xfe;
    b.resize(b.size() - tail.size() - payload.size());
    b.insert(b.end(), payload.begin(), payload.end());
    b.insert(b.end(), tail.begin(), tail.end());
    CHECK(read_error(b) == "ok");
    // The same path with a lane below 0 (a negative delta from a small base) and with a misaligned
    // delta: each named as the lane-by-lane loop names it.
    const auto with = [&](uint32_t base_byte, uint8_t delta_byte, int at_lane) {
      // The base as a five-byte varint, so that the record keeps its length.
      std::vector<uint8_t> q{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, static_cast<uint8_t>(base_byte | 0x80), 0x80, 0x80, 0x80, 0x00, 1};
      for (int lane = 1; lane < 32; ++lane) {
        const uint8_t d = lane == at_lane ? delta_byte : uint8_t{0x08};  // zigzag 8: +4
        q.insert(q.end(), {static_cast<uint8_t>(d | 0x80), 0x80, 0x80, 0x80, 0x00});  // five bytes each
      }
      std::vector<uint8_t> c = b;
      c.resize(c.size() - tail.size() - payload.size());
      c.insert(c.end(), q.begin(), q.end());
      c.insert(c.end(), tail.begin(), tail.end());
      return read_error(c);
    };
    CHECK(with(16, 0x08, -1) == "ok");  // base 16, +4 per lane
    // Lane 2 at 16 + 4 - 40 (zigzag 79: -40): below 0.
    CHECK(with(16, 79, 2).find("lane 2 address -20 outside 0..2^32-1") != std::string::npos);
    // Lane 4 at +6 (zigzag 12) instead of +4: 16 + 4 * 3 + 6 = 34, not 4-byte aligned.
    CHECK(with(16, 12, 4).find("lane 4 address 34 not aligned to its width 4") != std::string::npos);
  }
  // Every prefix of a version 2 file with all four modes fails with one line.
  std::vector<TraceWarp> warps(4);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    warps[0].addr[lane] = 4 * lane;                        // mode 0
    warps[1].addr[lane] = 4 * (7 * lane % 32);             // mode 2
    warps[2].addr[lane] = 4 * (lane * 997 % 12288);        // mode 3
    warps[3].addr[lane] = lane * (lane % 2 ? 1u << 24 : 4u);  // mode 1
  }
  for (auto& w : warps) w.mask = 0xffffffffu;
  const auto good = warps_trace(warps, 4, 2);
  REQUIRE(read_error(good) == "ok");
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    CAPTURE(n);
    CHECK(read_error(cut).rfind("trace: ", 0) == 0);
  }
}

TEST_CASE("trace report: the exact memo gives cost_sass()'s numbers, warps repeated, moved and random") {
  // The memo's premise first: moving every lane by a multiple of 16 bytes changes no cost, against
  // the reference (simulate(), the model without fast paths), every width, random lanes and masks.
  std::mt19937 rng(13);
  for (int width : {1, 2, 4, 8, 16}) {
    for (int i = 0; i < 300; ++i) {
      WarpAccess a;
      a.op = i % 2 ? Op::kStore : Op::kLoad;
      a.width = width;
      a.mask = i % 3 ? 0xffffffffu : static_cast<uint32_t>(rng()) | 1u;
      for (auto& x : a.addr) x = static_cast<uint32_t>(width) * static_cast<uint32_t>(rng() % (1024 / width));
      WarpAccess b = a;
      const uint32_t move = 16u * static_cast<uint32_t>(1 + rng() % 2400);
      for (auto& x : b.addr) x += move;
      CAPTURE(width);
      CAPTURE(i);
      const AccessCost ca = cost(a), cb = simulate(b).cost;
      CHECK(ca.wavefronts == cb.wavefronts);
      CHECK(ca.ideal_wavefronts == cb.ideal_wavefronts);
      CHECK(ca.n_way == cb.n_way);
    }
  }
  // Then a trace: per width an LDS and an STS PC that cycle through 40 lane patterns (each moved by
  // random multiples of the width, so most moves keep the key and some do not), partial masks
  // included, and one PC of random lanes long enough for the memo to turn itself off for it (after
  // 1024 lookups) and on again (repeats from the 18,000th execution on). Every per-PC total and n-way histogram against simulate() warp by warp.
  const int widths[] = {1, 2, 4, 8, 16};
  TraceWriter t;
  t.launch(TraceLaunch{});
  uint32_t npc = 0;
  for (int width : widths)
    for (TraceOpKind k : {TraceOpKind::kLoad, TraceOpKind::kStore}) {
      t.pc(TracePc{npc, 0x10 * (npc + 1), k, width, "X", "", 0});
      ++npc;
    }
  t.pc(TracePc{npc, 0x10 * npc, TraceOpKind::kLoad, 4, "LDS", "", 0});
  const uint32_t random_pc = npc++;
  std::vector<std::vector<TraceWarp>> patterns(npc);
  for (uint32_t p = 0; p < random_pc; ++p) {
    const uint32_t width = static_cast<uint32_t>(widths[p / 2]);
    for (int k = 0; k < 40; ++k) {
      TraceWarp w;
      w.pc_index = p;
      w.mask = k % 4 == 3 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
      for (auto& x : w.addr) x = width * static_cast<uint32_t>(rng() % (k % 2 ? 64 : 1024 / width));
      patterns[p].push_back(w);
    }
  }
  std::vector<PcStats> want(npc);
  const auto add = [&](const TraceWarp& w) {
    t.warp(w);
    PcStats& s = want[w.pc_index];
    ++s.executions;
    WarpAccess a;
    a.op = w.pc_index != random_pc && w.pc_index % 2 ? Op::kStore : Op::kLoad;
    a.width = w.pc_index == random_pc ? 4 : widths[w.pc_index / 2];
    a.mask = w.mask;
    a.addr = w.addr;
    const AccessCost c = cost_sass(a);  // R11: simulate()'s cost() with the instruction-level counters' merge
    s.wavefronts += static_cast<uint64_t>(c.wavefronts);
    s.ideal += static_cast<uint64_t>(c.ideal_wavefronts);
    ++s.n_way_count[static_cast<size_t>(c.n_way)];
  };
  for (int i = 0; i < 20000; ++i) {
    const uint32_t p = static_cast<uint32_t>(rng() % random_pc);
    TraceWarp w = patterns[p][rng() % 40];
    const uint32_t width = static_cast<uint32_t>(widths[p / 2]);
    const uint32_t move = width * static_cast<uint32_t>(rng() % 4 == 0 ? rng() % 64 : 32 * (rng() % 64));
    for (auto& x : w.addr) x += move;
    add(w);
  }
  for (int i = 0; i < 25000; ++i) {
    TraceWarp w;
    w.pc_index = random_pc;
    w.mask = 0xffffffffu;
    const bool repeat = i >= 18000;
    for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = 4 * (repeat ? 7 * lane % 32 : static_cast<uint32_t>(rng() % 12288));
    add(w);
  }
  t.launch_end(TraceLaunchEnd{0, 45000, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  const LaunchReport& l = r->traced.launches.at(0);
  for (uint32_t p = 0; p < npc; ++p) {
    CAPTURE(p);
    CHECK(l.pcs[p].executions == want[p].executions);
    CHECK(l.pcs[p].wavefronts == want[p].wavefronts);
    CHECK(l.pcs[p].ideal == want[p].ideal);
    CHECK(l.pcs[p].n_way_count == want[p].n_way_count);
  }
}

TEST_CASE("trace report: executions costed in two steps are all recorded, at a new PC, a new launch and the end") {
  // A random PC's executions skip the memo; on the AVX2 path each is counted when it comes and
  // finished when the next one comes (TraceAggregator::late_). Here such an execution is the last
  // before a PC is declared (the PCs' stats grow), before the next launch and at the end, each
  // after enough random executions (64) for the memo to turn itself off. Every PC's stats and
  // every launch's totals against cost_sass() warp by warp.
  // The premise: on the AVX2 path the random PC's function has two steps (elsewhere the same
  // totals are checked through the one-step route).
  const bool two_steps = split_cost_fn(plain_cost_fn(cost_path(), Op::kLoad, 4, true)).count != nullptr;
  CHECK(two_steps == (cost_path() == CostPath::kAvx2));
  std::mt19937 rng(29);
  TraceWriter t;
  struct Want {
    std::vector<PcStats> pcs;
    OpTotals ld, st;
  };
  std::vector<Want> want;
  std::vector<TracePc> pcs;
  const auto pc = [&](TraceOpKind k) {
    const uint32_t i = static_cast<uint32_t>(want.back().pcs.size());
    pcs.push_back(TracePc{i, 0x10 * (i + 1), k, 4, k == TraceOpKind::kLoad ? "LDS" : "STS", "", 0});
    t.pc(pcs.back());
    want.back().pcs.emplace_back();
    return i;
  };
  uint64_t n = 0;
  const auto add = [&](uint32_t p, bool random) {
    TraceWarp w;
    w.pc_index = p;
    w.mask = random && rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
    for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = 4 * (random ? static_cast<uint32_t>(rng() % 12288) : 33 * lane);
    t.warp(w);
    ++n;
    WarpAccess a;
    a.op = pcs[p].kind == TraceOpKind::kLoad ? Op::kLoad : Op::kStore;
    a.mask = w.mask;
    a.addr = w.addr;
    const AccessCost c = cost_sass(a);
    PcStats& s = want.back().pcs[p];
    ++s.executions;
    s.wavefronts += static_cast<uint64_t>(c.wavefronts);
    s.ideal += static_cast<uint64_t>(c.ideal_wavefronts);
    ++s.n_way_count[static_cast<size_t>(c.n_way)];
    (a.op == Op::kLoad ? want.back().ld : want.back().st).add(c, 1);
  };
  for (int launch = 0; launch < 2; ++launch) {
    t.launch(TraceLaunch{});
    want.emplace_back();
    pcs.clear();
    // The memo's first 64 lookups miss; the next 1024 executions skip it (500 here).
    const uint32_t random = pc(TraceOpKind::kLoad);
    for (int i = 0; i < 300; ++i) add(random, true);
    const uint32_t rows = pc(TraceOpKind::kStore);  // declared after a random execution
    for (int i = 0; i < 200; ++i) add(i % 2 ? rows : random, i % 2 == 0);
    for (int k = 0; k < 40; ++k) pc(TraceOpKind::kStore);  // enough to move the stats
    for (int i = 0; i < 100; ++i) add(random, true);  // the launch ends after a random execution
    t.launch_end(TraceLaunchEnd{0, n, 0, TraceStatus::kComplete});
    n = 0;
  }
  t.end(TraceEnd{2, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r->traced.launches.size() == 2);
  for (size_t li = 0; li < 2; ++li) {
    CAPTURE(li);
    const LaunchReport& l = r->traced.launches[li];
    REQUIRE(l.pcs.size() == want[li].pcs.size());
    for (size_t p = 0; p < l.pcs.size(); ++p) {
      CAPTURE(p);
      CHECK(l.pcs[p].executions == want[li].pcs[p].executions);
      CHECK(l.pcs[p].wavefronts == want[li].pcs[p].wavefronts);
      CHECK(l.pcs[p].ideal == want[li].pcs[p].ideal);
      CHECK(l.pcs[p].n_way_count == want[li].pcs[p].n_way_count);
    }
    CHECK(l.ld.instructions == want[li].ld.instructions);
    CHECK(l.ld.wavefronts == want[li].ld.wavefronts);
    CHECK(l.ld.ideal == want[li].ld.ideal);
    CHECK(l.st.wavefronts == want[li].st.wavefronts);
  }
}

TEST_CASE("trace report: a PC's last memo entry serves only the same lanes under the same mask") {
  // exact_cost() first compares a warp with the entry its PC used last. Here two patterns of one
  // STS.128 PC have the same offsets in every active lane and differ only in their masks: lanes 0-7
  // at 16 i, lanes 8-31 at offset 0. With every lane active, the three later quarter-warps each cost
  // a wavefront (4 in all); with lanes 0-7 alone, 1. They alternate, then each repeats, so the last
  // entry's lanes always match and only its mask tells them apart.
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x10, TraceOpKind::kStore, 16, "STS.128", "", 0});
  TraceWarp full, low;
  full.mask = 0xffffffffu;
  low.mask = 0xffu;
  for (uint32_t lane = 0; lane < 32; ++lane) full.addr[lane] = low.addr[lane] = lane < 8 ? 256 + 16 * lane : 256;
  uint64_t want = 0, n = 0;
  const auto add = [&](const TraceWarp& w) {
    t.warp(w);
    WarpAccess a;
    a.op = Op::kStore;
    a.width = 16;
    a.mask = w.mask;
    a.addr = w.addr;
    want += static_cast<uint64_t>(cost_sass(a).wavefronts);
    ++n;
  };
  for (int i = 0; i < 300; ++i) add(i % 2 ? low : full);
  for (int i = 0; i < 300; ++i) add(i < 150 ? full : low);
  t.launch_end(TraceLaunchEnd{0, n, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  const PcStats& s = r->traced.launches.at(0).pcs.at(0);
  CHECK(want == 150 * 4 + 150 * 1 + 150 * 4 + 150 * 1);  // the premise: the masks cost 4 and 1
  CHECK(s.executions == n);
  CHECK(s.wavefronts == want);
}

TEST_CASE("trace report: the memo of the other kinds gives their rules' numbers (LDSM/STSM, ATOMS, LDGSTS)") {
  // kind_cost()'s premise first, against the rules without the memo: an ldmatrix/stmatrix or atomic
  // moved by a multiple of 16 bytes, and a cp.async whose destinations and sources both move by
  // multiples of 128 bytes (a .ca lane's null source staying null), cost the same, on random lanes,
  // masks and null sources.
  std::mt19937 rng(29);
  const std::vector<TracePc> pcs = {
      {0, 0x10, TraceOpKind::kLdsm, 16, "LDSM.16.M88.4", "", 0},    {1, 0x20, TraceOpKind::kLdsm, 16, "LDSM.16.MT88.2", "", 0},
      {2, 0x30, TraceOpKind::kStsm, 16, "STSM.16.M88.4", "", 0},    {3, 0x40, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0},
      {4, 0x50, TraceOpKind::kAtomic, 4, "ATOMS.POPC.INC.32", "", 0}, {5, 0x60, TraceOpKind::kAtomic, 4, "ATOMS.CAS", "", 0},
      {6, 0x70, TraceOpKind::kAtomic, 8, "ATOMS.CAST.SPIN.64", "", 0}, {7, 0x80, TraceOpKind::kLdgsts, 4, "LDGSTS.E", "", 0},
      {8, 0x90, TraceOpKind::kLdgsts, 16, "LDGSTS.E.128", "", 0},   {9, 0xa0, TraceOpKind::kLdgsts, 16, "LDGSTS.E.BYPASS.128", "", 0}};
  const auto random_warp = [&](const TracePc& pc, bool repeat_words) {
    TraceWarp w;
    w.pc_index = pc.index;
    const uint32_t r = static_cast<uint32_t>(rng() % 4);
    w.mask = r == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xffffffffu;
    const uint32_t width = static_cast<uint32_t>(pc.width);
    const uint32_t words = repeat_words ? 4 : 512;
    for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = width * static_cast<uint32_t>(rng() % (words * 16 / width));
    if (pc.kind == TraceOpKind::kLdgsts) {
      w.has_src = true;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        w.src[lane] = rng() % 8 == 0 ? 0u : width * (1 + static_cast<uint32_t>(rng() % (4096 / width)));
      }
    }
    return w;
  };
  // A null source (0) of a .ca lane reads nothing and stays null; .cg reads a 0 as any address.
  const auto moved = [&](TraceWarp w, const TracePc& pc) {
    const uint32_t step = pc.kind == TraceOpKind::kLdgsts ? 128u : 16u;
    const uint32_t d = step * static_cast<uint32_t>(1 + rng() % 64), e = 128u * static_cast<uint32_t>(1 + rng() % 64);
    const bool null_stays = !pc_model(pc).access.bypass_l1;
    for (auto& x : w.addr) x += d;
    for (auto& x : w.src) x = x == 0 && null_stays ? 0u : x + e;
    return w;
  };
  // The rules' cost of one execution, as the report would cost it without any memo; false: invalid.
  const auto rule_cost = [](const TracePc& pc, const TraceWarp& w, AccessCost* c) {
    WarpAccess a = pc_model(pc).access;
    a.mask = w.mask;
    a.addr = w.addr;
    if (!validate(a, BankConfig{}).ok()) return false;
    *c = a.op == Op::kLdgsts ? ldgsts_cost(a, w.src, /*zero_reads_nothing=*/true) : cost_sass(a);
    return true;
  };
  for (const TracePc& pc : pcs) {
    REQUIRE_MESSAGE(pc_model(pc).costed, pc.opcode);
    for (int i = 0; i < 300; ++i) {
      const TraceWarp w = random_warp(pc, i % 2 == 0);
      const TraceWarp m = moved(w, pc);
      AccessCost cw, cm;
      const bool vw = rule_cost(pc, w, &cw), vm = rule_cost(pc, m, &cm);
      CAPTURE(pc.opcode);
      CAPTURE(i);
      REQUIRE(vw == vm);
      if (!vw) continue;
      CHECK(cw.wavefronts == cm.wavefronts);
      CHECK(cw.ideal_wavefronts == cm.ideal_wavefronts);
      CHECK(cw.n_way == cm.n_way);
    }
  }
  // Then a trace: each PC cycles through 6 patterns (few enough that the memo keeps serving them:
  // a PC that hits fewer than a quarter of its lookups skips it), each as it is, moved as above
  // (the key stays), or moved so that a cp.async's key changes (destinations alone by 16 bytes,
  // sources alone by 128), and every 50th execution random. Every per-PC total against the rules
  // execution by execution.
  TraceWriter t;
  t.launch(TraceLaunch{});
  for (const TracePc& pc : pcs) t.pc(pc);
  std::vector<std::vector<TraceWarp>> patterns(pcs.size());
  for (const TracePc& pc : pcs)
    for (int k = 0; k < 6; ++k) patterns[pc.index].push_back(random_warp(pc, k % 2 == 0));
  std::vector<PcStats> want(pcs.size());
  uint64_t n = 0;
  for (int i = 0; i < 30000; ++i) {
    const TracePc& pc = pcs[static_cast<size_t>(rng() % pcs.size())];
    TraceWarp w = i % 50 == 49 ? random_warp(pc, i % 100 == 49) : patterns[pc.index][rng() % 6];
    const uint32_t how = static_cast<uint32_t>(rng() % 8) < 4 ? 0u : static_cast<uint32_t>(1 + rng() % 3);
    if (how == 1) w = moved(w, pc);
    if (how == 2) {  // destinations alone by 16 bytes: a cp.async's key must change (its B is 128-aligned)
      for (auto& x : w.addr) x += 16u * static_cast<uint32_t>(1 + rng() % 7);
    }
    if (how == 3) {  // the non-null sources alone by 128 bytes: a .cg lane's 0 is no null, its key changes
      for (auto& x : w.src) x = x == 0 ? 0u : x + 128u * static_cast<uint32_t>(1 + rng() % 7);
    }
    t.warp(w);
    ++n;
    PcStats& s = want[pc.index];
    ++s.executions;
    AccessCost c;
    if (rule_cost(pc, w, &c)) {
      s.wavefronts += static_cast<uint64_t>(c.wavefronts);
      s.ideal += static_cast<uint64_t>(c.ideal_wavefronts);
    } else {
      ++s.uncosted;
    }
  }
  t.launch_end(TraceLaunchEnd{0, n, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  const LaunchReport& l = r->traced.launches.at(0);
  uint64_t uncosted = 0;
  for (const TracePc& pc : pcs) {
    CAPTURE(pc.opcode);
    const PcStats& got = l.pcs.at(pc.index);
    CHECK(got.executions == want[pc.index].executions);
    CHECK(got.wavefronts == want[pc.index].wavefronts);
    CHECK(got.ideal == want[pc.index].ideal);
    CHECK(got.uncosted == want[pc.index].uncosted);
    uncosted += got.uncosted;
  }
  CHECK(uncosted > 0);  // the generator's masks leave some ldmatrix rows inactive: invalid, not costed

  // Two moves that must change a cp.async's key, each on a pair of executions found here to cost
  // differently, alternated so that the second of each pair meets the first's entry: a .cg's
  // destinations moved by 16 bytes (B is rounded to 128, not 16), and a .cg's non-null sources
  // moved by 128 bytes with its 0s left (a .cg lane reads a 0 as an address, so it is no null).
  const TracePc& cg = pcs[9];
  const auto find_pair = [&](const std::function<TraceWarp(TraceWarp)>& move) {
    for (int i = 0; i < 100000; ++i) {
      TraceWarp a = random_warp(cg, i % 2 == 0);
      for (auto& x : a.src) x = rng() % 4 == 0 ? 0u : x % 256;  // nulls, and sources near them
      const TraceWarp b = move(a);
      AccessCost ca, cb;
      if (rule_cost(cg, a, &ca) && rule_cost(cg, b, &cb) && ca.wavefronts != cb.wavefronts) return std::make_pair(a, b);
    }
    FAIL("no pair found");
    return std::make_pair(TraceWarp{}, TraceWarp{});
  };
  const auto dst16 = find_pair([](TraceWarp w) {
    for (auto& x : w.addr) x += 16;
    return w;
  });
  const auto src128 = find_pair([](TraceWarp w) {
    for (auto& x : w.src) x = x == 0 ? 0u : x + 128;
    return w;
  });
  TraceWriter t2;
  t2.launch(TraceLaunch{});
  TracePc cg0 = cg;
  cg0.index = 0;
  t2.pc(cg0);
  uint64_t want2 = 0, n2 = 0;
  for (int i = 0; i < 400; ++i) {
    const auto& pair = i < 200 ? dst16 : src128;
    TraceWarp w = i % 2 ? pair.second : pair.first;
    w.pc_index = 0;
    t2.warp(w);
    AccessCost c;
    REQUIRE(rule_cost(cg, w, &c));
    want2 += static_cast<uint64_t>(c.wavefronts);
    ++n2;
  }
  t2.launch_end(TraceLaunchEnd{0, n2, 0, TraceStatus::kComplete});
  t2.end(TraceEnd{1, 0});
  const auto bytes2 = t2.take();
  auto r2 = report_trace(bytes2.data(), bytes2.size());
  REQUIRE_MESSAGE(r2.ok(), (r2.ok() ? "" : r2.error().message));
  CHECK(r2->traced.launches.at(0).pcs.at(0).wavefronts == want2);

  // Two PCs whose executions have the same lanes and mask and differ only in the instruction: an
  // ldmatrix .x2 and .x4, an ATOMS.ADD and ATOMS.POPC.INC, each pair alternated, so that their keys
  // differ in the instruction's fields alone (an entry of one must never serve the other).
  const TracePc pairs[] = {{0, 0x10, TraceOpKind::kLdsm, 16, "LDSM.16.M88.2", "", 0},
                           {1, 0x20, TraceOpKind::kLdsm, 16, "LDSM.16.M88.4", "", 0},
                           {2, 0x30, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0},
                           {3, 0x40, TraceOpKind::kAtomic, 4, "ATOMS.POPC.INC.32", "", 0}};
  TraceWriter t3;
  t3.launch(TraceLaunch{});
  for (const TracePc& pc : pairs) t3.pc(pc);
  TraceWarp rows, words;  // every lane on row 4 lane of 16 bytes; every lane on one of 4 words, bank 0
  rows.mask = words.mask = 0xffffffffu;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    rows.addr[lane] = 16 * lane;
    words.addr[lane] = 128 * (lane % 4);
  }
  std::vector<uint64_t> want3(4);
  uint64_t n3 = 0;
  for (int i = 0; i < 400; ++i) {
    const TracePc& pc = pairs[static_cast<size_t>(i % 4)];
    TraceWarp w = pc.kind == TraceOpKind::kLdsm ? rows : words;
    w.pc_index = pc.index;
    t3.warp(w);
    AccessCost c;
    REQUIRE(rule_cost(pc, w, &c));
    want3[pc.index] += static_cast<uint64_t>(c.wavefronts);
    ++n3;
  }
  CHECK(want3[0] != want3[1]);  // the premise: the pair members cost differently
  CHECK(want3[2] != want3[3]);
  t3.launch_end(TraceLaunchEnd{0, n3, 0, TraceStatus::kComplete});
  t3.end(TraceEnd{1, 0});
  const auto bytes3 = t3.take();
  auto r3 = report_trace(bytes3.data(), bytes3.size());
  REQUIRE_MESSAGE(r3.ok(), (r3.ok() ? "" : r3.error().message));
  for (uint32_t p = 0; p < 4; ++p) {
    CAPTURE(pairs[p].opcode);
    CHECK(r3->traced.launches.at(0).pcs.at(p).wavefronts == want3[p]);
  }
}

TEST_CASE("trace what-if: a layout that misaligns vector lanes costs nothing and says so") {
  // LDS.128 of a float tile's rows (lane i at element 4 i of row 0): 16-byte aligned as traced.
  // Padding the tile to 33 floats moves row 1 to element 33: a float4 there is not 16-byte
  // aligned, so no such instruction exists; the what-if counts those executions as not costed.
  TraceWriter t;
  TraceLaunch l;
  l.reserved_bytes = kReserved;
  t.launch(l);
  t.pc(TracePc{0, 0x80, TraceOpKind::kLoad, 16, "LDS.128", "", 0});
  TraceWarp w;
  w.mask = 0xffffffffu;
  for (uint32_t row = 0; row < 4; ++row) {
    for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = kReserved + 4 * (32 * row + 4 * (lane % 8));
    t.warp(w);
  }
  t.launch_end(TraceLaunchEnd{0, 4, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto tile = parse_array_spec("tile@0:float[32][32]");
  auto padded = apply_layout_spec(*tile, "tile:stride=33");
  auto r = report_trace(bytes.data(), bytes.size(), {ArrayRemap{*tile, *padded}});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  // As traced: 4 quarter-warp phases of 8 lanes on 4 distinct float4s: 4 wavefronts each (R3).
  CHECK(r->traced.launches.at(0).pcs.at(0).wavefronts == 16);
  CHECK(r->traced.launches.at(0).pcs.at(0).uncosted == 0);
  // Row 0 stays aligned (element 4 i), rows 1-3 (elements 33, 66, 99 + 4 i) do not.
  const PcStats& s = r->what_if.launches.at(0).pcs.at(0);
  CHECK(s.executions == 4);
  CHECK(s.uncosted == 3);
  CHECK(s.wavefronts == 4);
  CHECK(r->what_if.launches.at(0).ld.instructions == 1);
}

TEST_CASE("read_trace_file: the bytes of a file, or one line saying why not") {
  const std::string dir = (std::filesystem::temp_directory_path() / "bankscope_read_trace_file").string();
  std::filesystem::create_directories(dir);
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.launch_end(TraceLaunchEnd{0, 0, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const std::vector<uint8_t> want = t.take();
  const std::string path = dir + "/t.bstrace";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(want.data()), static_cast<std::streamsize>(want.size()));
  auto got = read_trace_file(path);
  REQUIRE(got.ok());
  CHECK(*got == want);
  std::ofstream(dir + "/empty.bstrace", std::ios::binary).flush();
  auto empty = read_trace_file(dir + "/empty.bstrace");
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  auto missing = read_trace_file(dir + "/none.bstrace");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot open the trace file");
  auto directory = read_trace_file(dir);
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().message.rfind("cannot", 0) == 0);
}

// R8b, measured on the H200 (assets/results/h200/2026-12-01q): ATOMS.POPC.INC.32 (atomicAdd(&x, 1))
// costs what a 4-byte load of the same lanes costs; ATOMS.ADD serves every lane alone (R8), and so do
// ATOMS.OR and the other integer operations (2026-12-01x). R8c: one ATOMS.CAST.SPIN.64 execution
// costs 2 wavefronts per half-warp with an active lane; the source view's ideal is
// 2 x ceil(lanes x 8 / 128).
TEST_CASE("trace report: ATOMS.POPC.INC by R8b, ATOMS.ADD and ATOMS.OR by R8, ATOMS.CAST.SPIN by R8c") {
  TraceWriter t;
  t.launch(TraceLaunch{});
  t.pc(TracePc{0, 0x600, TraceOpKind::kAtomic, 4, "ATOMS.POPC.INC.32", "h.cu", 11});
  t.pc(TracePc{1, 0x650, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "h.cu", 12});
  t.pc(TracePc{2, 0x700, TraceOpKind::kAtomic, 8, "ATOMS.CAST.SPIN.64", "h.cu", 13});
  t.pc(TracePc{3, 0x750, TraceOpKind::kAtomic, 4, "ATOMS.OR", "h.cu", 14});
  t.pc(TracePc{4, 0x7a0, TraceOpKind::kAtomic, 4, "ATOMS.FOO", "h.cu", 15});
  // same_all (popc_inc 1, add 32) and grp8_one_bank (4 words of bank 0, 8 lanes each: 4 and 32).
  const auto lanes = [](int which, uint32_t l) { return which == 0 ? 4096u : 4096u + 128u * (l / 8); };
  for (int which = 0; which < 2; ++which) {
    for (uint32_t pc = 0; pc < 5; ++pc) {
      TraceWarp w;
      w.pc_index = pc;
      // The CAST.SPIN: all 32 lanes, then (a retry) lanes 0..7 only.
      w.mask = pc == 2 && which == 1 ? 0xffu : ~0u;
      for (uint32_t l = 0; l < 32; ++l) w.addr[l] = w.mask >> l & 1u ? (pc == 2 ? 4096u + 8u * l : lanes(which, l)) : 0;
      t.warp(w);
    }
  }
  t.launch_end(TraceLaunchEnd{0, 10, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE(r.ok());
  const LaunchReport& l = r->traced.launches.at(0);
  CHECK(l.pcs[0].modelled());
  CHECK(l.pcs[0].wavefronts == 1 + 4);
  CHECK(l.pcs[0].ideal == 2);
  CHECK(l.pcs[1].wavefronts == 32 + 32);
  CHECK(l.pcs[3].wavefronts == 32 + 32);
  REQUIRE(l.pcs[2].modelled());
  CHECK(l.pcs[2].wavefronts == 4 + 2);  // both half-warps, then the first only
  CHECK(l.pcs[2].ideal == 4 + 2);       // 2 x ceil(32 x 8 / 128), 2 x ceil(8 x 8 / 128)
  CHECK(l.pcs[2].excess() == 0);
  CHECK_FALSE(l.pcs[4].modelled());
  CHECK(l.pcs[4].model.why.find("no measured rule for 'ATOMS.FOO'") == 0);
  const size_t k = static_cast<size_t>(TraceOpKind::kAtomic);
  CHECK(l.by_kind[k].wavefronts == 5 + 64 + 6 + 64);
  CHECK(l.uncosted_by_kind[k] == 2);
  // The same op in a JSONL line: "popc_inc", 4 bytes only.
  auto ok = parse_pattern_line(R"({"op": "atom", "width": 4, "atom": "popc_inc", "offsets": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]})");
  REQUIRE(ok.ok());
  CHECK(cost(ok->access).wavefronts == 1);
  auto wide = parse_pattern_line(R"({"op": "atom", "width": 8, "atom": "popc_inc", "offsets": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]})");
  REQUIRE_FALSE(wide.ok());
  CHECK(wide.error().message.find("popc_inc is ATOMS.POPC.INC.32, 4 bytes only") != std::string::npos);
}

// The exact memo's entries (exact_cost()) are shared by a launch's PCs and keyed by the instruction,
// the mask and every active lane's offset from the first one's 16-byte unit; an inactive lane's
// offset is 0, as is an active lane's at that unit's start. So keys that differ in the mask alone
// (lanes at offset 0 on or off) or in the instruction alone (an LDS and an ATOMS.ADD of the same
// lanes) have the same offsets, and only their mask and instruction fields tell them apart, at the
// PC's last entry and at the hashed slot. Every mask of lanes 16-31 (at offset 0: word 4096, bank 0)
// with lanes 0-15 on (lane 0 at 4100, bank 1; lane 1 at 4224, bank 0 too; lane 2 moved with the mask, so
// that the keys' hashes differ): the LDS costs more with any of lanes 16-31 on than with none; the
// ATOMS.ADD serves each lane of bank 0 alone. 65,536 keys per PC in a table of 2,048 slots: many
// share a slot, and each must miss the other's entry.
// Format version 2, so that no execution is marked as repeating its PC's last (the repeat slots
// would take it before the memo).
TEST_CASE("trace report: the exact memo tells keys apart by mask and by instruction (shared slots)") {
  TraceWriter t(true, 2);
  t.launch(TraceLaunch{});
  const TracePc lds{0, 0x10, TraceOpKind::kLoad, 4, "LDS", "", 0};
  const TracePc add{1, 0x20, TraceOpKind::kAtomic, 4, "ATOMS.ADD", "", 0};
  t.pc(lds);
  t.pc(add);
  TraceWarp base;
  base.addr[0] = 4100;
  base.addr[1] = 4224;
  for (uint32_t lane = 2; lane < 16; ++lane) base.addr[lane] = 4096 + 4 * lane;  // banks 2-15
  for (uint32_t lane = 16; lane < 32; ++lane) base.addr[lane] = 4096;
  std::vector<uint64_t> want(2);
  uint64_t n = 0, differ = 0;
  const auto put = [&](const TracePc& pc, uint32_t mask) {
    TraceWarp w = base;
    w.addr[2] = 4096 + 64 * (1 + (mask >> 16) % 61);  // offsets that change with the high lanes: a hash each
    w.pc_index = pc.index;
    w.mask = mask;
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (!(mask >> lane & 1u)) w.addr[lane] = 0;
    t.warp(w);
    WarpAccess a = pc_model(pc).access;
    a.mask = mask;
    a.addr = w.addr;
    want[pc.index] += static_cast<uint64_t>(cost_sass(a).wavefronts);
    ++n;
  };
  const uint32_t none = 0x0000ffffu;
  for (uint32_t high = 1; high < 0x10000u; ++high) {
    const uint32_t m = none | high << 16;
    put(lds, none);  // 1 wavefront (lane 2 at 4160, bank 16)
    put(lds, m);     // 2
    put(add, m);     // 1 + the lanes of 16-31 on
    put(add, m);     // the PC's last entry again
    put(lds, m);     // the PC's last entry, unless the ATOMS.ADD took its slot
  }
  // The premise: the keys that share offsets cost differently.
  WarpAccess one = pc_model(lds).access, two = one;
  one.mask = none;
  two.mask = 0xffffffffu;
  one.addr = two.addr = base.addr;
  for (uint32_t lane = 16; lane < 32; ++lane) one.addr[lane] = 0;
  differ = static_cast<uint64_t>(cost_sass(one).wavefronts != cost_sass(two).wavefronts);
  CHECK(differ == 1);
  t.launch_end(TraceLaunchEnd{0, n, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  const auto bytes = t.take();
  auto r = report_trace(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->traced.launches.at(0).pcs.at(0).wavefronts == want[0]);
  CHECK(r->traced.launches.at(0).pcs.at(1).wavefronts == want[1]);
}
