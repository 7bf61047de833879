// bench_kernels.cpp: the bench's kernels as the timing model sees them (bench_kernels.hpp).
#include "bench_kernels.hpp"

namespace bankscope {

namespace {

constexpr int kLineBytes = 128;  // documented by NVIDIA: an L1 data-pipe wavefront moves 128 bytes

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

BenchKernel row(std::string name, std::string family, std::string scenario, std::string symbol,
                int elem_bytes, bool is_copy, int threads, int tile_rows, int tile_cols,
                bool persistent, GlobalAccess access, int n_multiple = 1) {
  BenchKernel k;
  k.name = std::move(name);
  k.family = std::move(family);
  k.scenario = std::move(scenario);
  k.symbol = std::move(symbol);
  k.elem_bytes = elem_bytes;
  k.is_copy = is_copy;
  k.threads = threads;
  k.tile_rows = tile_rows;
  k.tile_cols = tile_cols;
  k.persistent = persistent;
  k.access = access;
  k.n_multiple = n_multiple;
  return k;
}

std::vector<BenchKernel> make_table() {
  using A = GlobalAccess;
  const std::string t = "bankscope::k_transpose_32x8";  // kernels/transpose_kernels.cuh
  const std::string f = "bankscope::bench::fast_f4";    // kernels/fast_transpose.cuh
  const std::string v = "bankscope::bench::fast_f4v";
  const std::string sh = "bankscope::bench::fast_shift";
  return {
      // The two yardsticks: not described (their launch shapes are not ours to know).
      row("memcpy_d2d", "ceiling", "", "", 4, true, 0, 0, 0, false, A::kNone),
      row("cublas_sgeam", "library", "", "", 4, false, 0, 0, 0, false, A::kNone),
      row("copy_32x8", "ceiling", "", "bankscope::bench::bench_copy_32x8", 4, true, 256, 32, 32,
          false, A::kRowWarps),
      row("naive", "reference", "", "bankscope::bench::bench_naive", 4, false, 256, 32, 32, false,
          A::kNaiveStores),
      // The kernels `validate` checks (transpose_kernels.cuh), with the scenarios it checks them
      // on.
      row("seed_32x32", "reference", "seed_transpose_32x32.json", "bankscope::k_transpose_seed<32>",
          4, false, 1024, 32, 32, false, A::kRowWarps),
      row("seed_32x33", "reference", "seed_transpose_32x33.json", "bankscope::k_transpose_seed<33>",
          4, false, 1024, 32, 32, false, A::kRowWarps),
      row("tiled_32x8_32x32", "reference", "tiled_32x8_32x32.json", t + "<float, 32, 0>", 4, false,
          256, 32, 32, false, A::kRowWarps),
      row("tiled_32x8_32x33", "reference", "tiled_32x8_32x33.json", t + "<float, 33, 0>", 4, false,
          256, 32, 32, false, A::kRowWarps),
      row("tiled_32x8_xor", "reference", "tiled_32x8_xor.json", t + "<float, 32, 31>", 4, false,
          256, 32, 32, false, A::kRowWarps),
      row("tiled_32x8_double_32x33", "reference", "tiled_32x8_double_32x33.json",
          t + "<double, 33, 0>", 8, false, 256, 32, 32, false, A::kRowWarps),
      row("tiled_float4_32x33", "reference", "tiled_float4_32x33.json", t + "<float4, 33, 0>", 16,
          false, 256, 32, 32, false, A::kRowWarps),
      // The fast candidates (fast_transpose.cuh): fast_f4<TR, TC, threads, streaming, group>.
      row("fast_f4_64x64_t256", "candidate", "fast_f4_64x64_t256.json",
          f + "<64, 64, 256, false, 1>", 4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4_64x64_t128", "candidate", "fast_f4_64x64_t128.json",
          f + "<64, 64, 128, false, 1>", 4, false, 128, 64, 64, false, A::kWide16),
      row("fast_f4_64x64_t256_cs", "candidate", "fast_f4_64x64_t256.json",
          f + "<64, 64, 256, true, 1>", 4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4_128x64_t256", "candidate", "fast_f4_128x64_t256.json",
          f + "<128, 64, 256, false, 1>", 4, false, 256, 128, 64, false, A::kWide16),
      // Block-order variants: the same tile and work (the model does not see block order).
      row("fast_f4_64x64_t256_g8", "candidate", "fast_f4_64x64_t256.json",
          f + "<64, 64, 256, false, 8>", 4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4_64x64_t256_g32", "candidate", "fast_f4_64x64_t256.json",
          f + "<64, 64, 256, false, 32>", 4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4_128x64_t256_g16", "candidate", "fast_f4_128x64_t256.json",
          f + "<128, 64, 256, false, 16>", 4, false, 256, 128, 64, false, A::kWide16),
      row("fast_f4_32x64_t128", "candidate", "fast_f4_32x64_t128.json",
          f + "<32, 64, 128, false, 1>", 4, false, 128, 32, 64, false, A::kWide16),
      row("fast_f4p_64x64_t256", "candidate", "fast_f4_64x64_t256.json",
          "bankscope::bench::fast_f4_persistent<64, 64, 256>", 4, false, 256, 64, 64, true,
          A::kWide16),
      // Issue 15. fast_f4v<TR, TC, threads, mode>: fast_f4's tile and shared accesses with one
      // change (mode 1: L2::256B loads, 2: streaming stores only, 4: dynamic shared memory).
      row("fast_f4v_64x64_t256_pf", "candidate", "fast_f4_64x64_t256.json", v + "<64, 64, 256, 1>",
          4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4v_64x64_t256_stcs", "candidate", "fast_f4_64x64_t256.json",
          v + "<64, 64, 256, 2>", 4, false, 256, 64, 64, false, A::kWide16),
      row("fast_f4v_64x128_t256", "candidate", "fast_f4_64x128_t256.json", v + "<64, 128, 256, 0>",
          4, false, 256, 64, 128, false, A::kWide16),
      row("fast_f4v_64x128_t256_pf", "candidate", "fast_f4_64x128_t256.json",
          v + "<64, 128, 256, 1>", 4, false, 256, 64, 128, false, A::kWide16),
      row("fast_f4v_128x128_t512", "candidate", "fast_f4_128x128_t512.json",
          v + "<128, 128, 512, 4>", 4, false, 512, 128, 128, false, A::kWide16),
      row("fast_f4v_128x128_t512_pf", "candidate", "fast_f4_128x128_t512.json",
          v + "<128, 128, 512, 5>", 4, false, 512, 128, 128, false, A::kWide16),
      // fast_shift<TR, TC, threads, min blocks per SM, flags>: 16-byte accesses at every n
      // (aligned loads + register shift, aligned-chunk stores from a tile with a 4-row halo);
      // _b5: __launch_bounds__(256, 5); _sh (flag 1): the second chunk of a misaligned row by
      // shuffle; _cm (flag 2): blocks walk tile-columns first (the grid transposed).
      row("fast_shift_64x64_t256", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 1, 0>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t256_b5", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 5, 0>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t256_sh", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 1, 1>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t256_sh_b5", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 5, 1>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t256_cm", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 1, 2>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t256_sh_cm", "candidate", "fast_shift_64x64_t256.json",
          sh + "<64, 64, 256, 1, 3>", 4, false, 256, 64, 64, false, A::kWide16Shift),
      row("fast_shift_64x64_t128", "candidate", "fast_shift_64x64_t128.json",
          sh + "<64, 64, 128, 5, 0>", 4, false, 128, 64, 64, false, A::kWide16Shift),
      row("fast_shift_128x64_t256", "candidate", "fast_shift_128x64_t256.json",
          sh + "<128, 64, 256, 3, 0>", 4, false, 256, 128, 64, false, A::kWide16Shift),
      row("fast_shift_64x128_t256", "candidate", "fast_shift_64x128_t256.json",
          sh + "<64, 128, 256, 3, 0>", 4, false, 256, 64, 128, false, A::kWide16Shift),
      // fast_sec<TR, TC, threads, vec, min blocks (0 = none)>: whole 32-byte output sectors at every n (a
      // 7-row halo; scalar loads; scalar or, _vec, 16-byte stores). The halo's 7/TR extra reads
      // are not modelled.
      row("fast_sec_64x64_t256", "candidate", "fast_sec_64x64_t256.json",
          "bankscope::bench::fast_sec<64, 64, 256, false, 0>", 4, false, 256, 64, 64, false, A::kRowWarps),
      row("fast_sec_64x64_t256_vec", "candidate", "fast_sec_64x64_t256_vec.json",
          "bankscope::bench::fast_sec<64, 64, 256, true, 0>", 4, false, 256, 64, 64, false, A::kRowWarps),
      row("fast_sec_64x64_t256_vec_b5", "candidate", "fast_sec_64x64_t256_vec.json",
          "bankscope::bench::fast_sec<64, 64, 256, true, 5>", 4, false, 256, 64, 64, false, A::kRowWarps),
      row("fast_sec_128x64_t256_vec", "candidate", "fast_sec_128x64_t256_vec.json",
          "bankscope::bench::fast_sec<128, 64, 256, true, 3>", 4, false, 256, 128, 64, false, A::kRowWarps),
      row("fast_sec_128x64_t512_vec", "candidate", "fast_sec_128x64_t512_vec.json",
          "bankscope::bench::fast_sec<128, 64, 512, true, 0>", 4, false, 512, 128, 64, false, A::kRowWarps),
      row("fast_reg4x4", "candidate", "", "bankscope::bench::fast_reg4x4", 4, false, 256, 64, 64,
          false, A::kWide16),
      // fast_tma's shared writes come from the copy engine, not the LSU: its scenario counts the
      // LDS
      // reads only. Last in the bench: a copy-engine fault would end the process's CUDA context.
      // Its tensor map needs a row pitch that is a multiple of 16 bytes: n % 4 == 0.
      row("fast_tma", "candidate", "fast_tma.json", "bankscope::bench::fast_tma", 4, false, 128, 64,
          32, false, A::kWide16, 4),
  };
}

}  // namespace

const std::vector<BenchKernel>& bench_kernels() {
  static const std::vector<BenchKernel> kTable = make_table();
  return kTable;
}

const BenchKernel* find_bench_kernel(const std::string& name) {
  for (const BenchKernel& k : bench_kernels())
    if (k.name == name) return &k;
  return nullptr;
}

std::optional<BenchKernelDescription> describe_bench_kernel(const BenchKernel& k, int64_t n,
                                                            uint64_t shared_wavefronts_per_tile,
                                                            const CompiledFacts& compiled) {
  if (k.access == GlobalAccess::kNone || k.threads <= 0 || k.tile_rows <= 0 || k.tile_cols <= 0 ||
      n < 1)
    return std::nullopt;
  const uint64_t e = uint64_t(k.elem_bytes);
  const uint64_t un = uint64_t(n);
  const uint64_t tiles = ceil_div(un, uint64_t(k.tile_cols)) * ceil_div(un, uint64_t(k.tile_rows));
  const uint64_t elems = un * un;
  BenchKernelDescription d;
  d.shape.threads_per_block = k.threads;
  d.shape.smem_bytes_per_block = compiled.static_smem_bytes + compiled.dynamic_smem_bytes;
  d.shape.regs_per_thread = compiled.regs_per_thread;
  // A persistent kernel launches min(occupancy x SMs, tiles) blocks that walk the tiles; the model
  // counts tiles as its work units either way.
  d.shape.blocks = tiles;
  d.shape.work_units = tiles;
  d.work.shared_wavefronts = shared_wavefronts_per_tile * tiles;
  d.work.dram_bytes = transpose_dram_bytes(n, k.elem_bytes);
  // A tile reads a contiguous run of each input row (its columns) and writes one of each output
  // row (its input rows); a copy writes the same runs it reads.
  d.work.read_segment_bytes = k.tile_cols * k.elem_bytes;
  d.work.write_segment_bytes = (k.is_copy ? k.tile_cols : k.tile_rows) * k.elem_bytes;
  const uint64_t full_line_wf = d.work.dram_bytes / kLineBytes;  // whole lines per warp access
  switch (k.access) {
    case GlobalAccess::kNaiveStores:
      // Coalesced reads; every store lands in its own line: one partial-line request each.
      d.work.global_wavefronts = elems * e / kLineBytes;
      d.work.partial_store_requests = elems;
      d.note = "stores uncoalesced: one partial-line request per element";
      break;
    case GlobalAccess::kWide16:
      if (n % 4 != 0) {
        // The element-wise path: 4-byte accesses at a 16-byte lane stride, so each warp instruction
        // spans 4 lines (4x the load wavefronts) and its stores are partial-line requests (8
        // elements per line per instruction).
        d.work.global_wavefronts = 4 * elems * e / kLineBytes;
        d.work.partial_store_requests = elems / 8;
        d.note = "n % 4 != 0: element-wise path (4-byte accesses, 16-byte lane stride)";
      } else {
        d.work.global_wavefronts = full_line_wf;
      }
      break;
    case GlobalAccess::kWide16Shift:
      // 16-byte accesses at every n. A misaligned row (n % 4 != 0) loads two aligned chunks per
      // chunk (the second an L1 hit): the load wavefronts double, the DRAM bytes do not. The 4-row
      // halo adds 4/TR to the reads (mostly L2 hits), not modelled.
      d.work.global_wavefronts = n % 4 != 0 ? full_line_wf * 3 / 2 : full_line_wf;
      if (n % 4 != 0)
        d.note = "n % 4 != 0: two aligned 16-byte loads per chunk, shifted in registers";
      break;
    case GlobalAccess::kRowWarps: {
      // A warp moves 32 consecutive elements of a row: 32 x e bytes = L whole lines when the row
      // pitch is a multiple of 128 bytes; otherwise each warp access straddles one more line.
      const uint64_t lines = 32 * e / kLineBytes;  // 1 (float), 2 (double), 4 (float4)
      if ((un * e) % kLineBytes != 0 && lines > 0) {
        d.work.global_wavefronts = d.work.dram_bytes * (lines + 1) / (kLineBytes * lines);
        d.note = "row pitch not 128-byte aligned: " + std::to_string(lines + 1) +
                 " lines per warp access instead of " + std::to_string(lines);
      } else {
        d.work.global_wavefronts = full_line_wf;
      }
      break;
    }
    case GlobalAccess::kNone:
      break;
  }
  return d;
}

}  // namespace bankscope
