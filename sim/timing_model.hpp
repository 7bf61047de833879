// timing_model.hpp: predicts a kernel's time from what bankscope knows, for tiled kernels whose
// blocks (or tiles) each run   global load -> barrier -> shared write/read -> global store.
//
//   (shared wavefronts, DRAM bytes, launch shape, occupancy, device) -> predicted ms
//
// The model: one SM is a closed queueing network; its customers are the resident blocks (tiles).
// A customer cycles through three stations and then is replaced by the next block:
//   1. memory latency   a delay of `memory_latency_ns`: a block's loads are all issued up front, so
//                       Little's law holds per SM: bytes in flight = resident blocks x bytes read
//                       per block; the latency is the only thing a block waits for when alone;
//   2. DRAM             a queue whose service per block is its bytes (read + write) at this SM's
//                       share (1/SMs) of the copy bandwidth, inflated by a per-segment overhead
//                       for each contiguous run of a matrix row the block touches (short runs
//                       waste DRAM time: 128-byte runs reach ~87% of copy, 256-byte ~94%);
//   3. the LSU pipe     a FIFO queue (the L1/shared data pipe) serving one wavefront per clock:
//                       shared wavefronts (the bank model's count) + global wavefronts (128 bytes
//                       each) + partial-line store requests (uncoalesced stores) at a fixed cost.
//                       A new block's loads enter the same LSU behind the work queued there
//                       [assumed: behind at most one block's worth; warps whose LDS finds the MIO
//                       queue full stall at issue, and the scheduler interleaves the rest], so a
//                       conflicted kernel with 2 blocks per SM runs them in lock step:
//                       round = latency + 2 x pipe time per block (the seed kernel's 32x32 case).
// Mean value analysis (MVA, exact for product-form networks) gives the SM's throughput with B
// customers; time = launch overhead + (blocks on the busiest SM) / throughput. Two extremes fall
// out of it:
//   - pure DRAM: many blocks, no shared work -> bytes / bandwidth (the copy ceiling);
//   - conflicted shared memory: the pipe saturates -> wavefronts / (SMs x clock).
// B (blocks per SM) comes from the occupancy limits (threads, blocks, registers, shared memory);
// the last partial wave is counted by taking the busiest SM's block count.
//
// The facts behind it:
//   [documented by NVIDIA] shared memory: 32 banks x 4 bytes = one wavefront per clock per SM;
//     sm_90 limits: 2048 threads, 32 blocks, 64K registers (allocated per warp in units of 256),
//     228 KiB shared memory per SM with 1 KiB reserved per block (CUDA occupancy calculator).
//   [measured here] the DRAM ceiling and the launch overhead are a line fitted to the cudaMemcpy
//     device-to-device times of the same run (H200: 4287 GB/s + 5.9 us); the copy's bandwidth at
//     one size (overhead 0) works too, a little less well for short shared-bound kernels.
//   [calibrated] three constants (kLatencyNs, kSegmentOverheadBytes, kPartialStoreCycles), fitted
//     by grid search on the N = 8192 rows of one H200 bench run (`bankscope-gpu timing-fit`,
//     scripts/timing_fit.sh -> assets/results/h200/timing_fit.txt); their error on sizes and
//     kernels the fit never saw is in assets/results/h200/timing_model.md.
//   [assumed] every SM gets the same number of blocks +-1 and the same DRAM share.
// Without a launch shape (threads_per_block == 0) the prediction is the two-ceiling roofline
// max(shared_ms, dram_ms) of the first version of this file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bankscope {

// Fitted on the H200 bench at N = 8192 (assets/results/h200/timing_fit.txt).
inline constexpr double kLatencyNs = 780.0;            // a block's load round trip, incl. launch
inline constexpr double kSegmentOverheadBytes = 17.0;  // DRAM time lost per contiguous row run
inline constexpr double kPartialStoreCycles = 3.8;     // LSU cycles per partial-line store request

struct DeviceThroughput {
  int sms = 0;
  double sm_clock_mhz = 0.0;
  double dram_gbps = 0.0;           // read + write, GB/s (1e9 bytes/s): the copy ceiling
  double launch_overhead_us = 0.0;  // fixed time per launch (launch, first-wave fill, drain): with
                                    // dram_gbps, a straight-line fit of the copy's time vs bytes
                                    // (fit_copy_ceiling); 0 when dram_gbps is the copy at this size
  double shared_wavefronts_per_clock_per_sm = 1.0;  // documented: 128 B/clk/SM
  // Occupancy limits, sm_90 [documented by NVIDIA].
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;
  int reg_alloc_unit_per_warp = 256;
  int smem_per_sm_bytes = 233472;  // 228 KiB
  int smem_reserved_per_block_bytes = 1024;
  // The model's calibrated constants (see above).
  double memory_latency_ns = kLatencyNs;
  double segment_overhead_bytes = kSegmentOverheadBytes;
  double partial_store_cycles = kPartialStoreCycles;
};

// What the launch looks like: threads and grid from the launch configuration; registers and shared
// bytes from the compiled kernel (cudaFuncGetAttributes, or cuobjdump --dump-resource-usage).
struct KernelShape {
  int threads_per_block = 0;     // 0: unknown -> the two-ceiling roofline only
  int smem_bytes_per_block = 0;  // static + dynamic shared memory
  int regs_per_thread = 0;       // 0: registers do not limit occupancy
  uint64_t blocks = 0;           // grid size
  uint64_t work_units = 0;  // tiles; 0 = one per block (a persistent kernel's blocks walk tiles)
};

// What the launch must move.
struct KernelWork {
  uint64_t shared_wavefronts = 0;  // ld + st, whole launch (the model's launch_totals)
  uint64_t dram_bytes = 0;  // bytes that must cross DRAM: each input read, each output written
  uint64_t global_wavefronts =
      0;  // L1 data-pipe wavefronts of global accesses; 0 = dram_bytes / 128
  uint64_t partial_store_requests = 0;  // uncoalesced stores: partial-line requests (one per element when every store lands in its own line)
  int read_segment_bytes = 0;   // contiguous bytes of an input row a tile reads (0 = long runs)
  int write_segment_bytes = 0;  // contiguous bytes of an output row a tile writes (0 = long runs)
};

struct Occupancy {
  int blocks_per_sm = 0;
  std::string limiter;  // "threads", "blocks", "registers", "shared memory", "unknown"
};

Occupancy occupancy(const KernelShape& shape, const DeviceThroughput& dev);

struct TimingPrediction {
  double ms = 0.0;         // the prediction; 0 when the device numbers are missing
  double shared_ms = 0.0;  // the shared-pipe ceiling: shared wavefronts / (SMs x clock)
  double dram_ms = 0.0;    // the DRAM ceiling: dram_bytes / bandwidth
  std::string bound;       // "shared", "dram", "latency" (the block's wait is mostly the memory
                           // round trip) or "unknown"
  // With a launch shape:
  int blocks_per_sm = 0;
  std::string occupancy_limiter;
  double waves = 0.0;                   // work units / (SMs x blocks per SM)
  double bytes_in_flight_per_sm = 0.0;  // resident blocks x bytes each reads
  double latency_share = 0.0;           // of a block's cycle time: waiting on memory latency
  double dram_share = 0.0;              //   queued at and served by DRAM
  double pipe_share = 0.0;              //   queued at and served by the LSU pipe
};

// The roofline when shape.threads_per_block == 0, else the queueing model.
TimingPrediction predict_time(const KernelWork& work, const DeviceThroughput& dev,
                              const KernelShape& shape = {});

// The copy ceiling as a line, ms = overhead + bytes / bandwidth, least squares over the
// cudaMemcpy device-to-device runs of one process (>= 2 distinct sizes; else nullopt).
// H200 bench.json (its five cudaMemcpy rows): 4287 GB/s and 5.9 us.
struct CopyCeiling {
  double gbps = 0.0;
  double overhead_us = 0.0;
};
std::optional<CopyCeiling> fit_copy_ceiling(
    const std::vector<std::pair<uint64_t, double>>& bytes_and_ms);

// Effective bandwidth in GB/s of `bytes` moved in `ms` (0 if ms <= 0).
double effective_gbps(uint64_t bytes, double ms);

// A square n x n transpose reads and writes every element once.
inline uint64_t transpose_dram_bytes(int64_t n, int elem_bytes) {
  return 2u * static_cast<uint64_t>(n) * static_cast<uint64_t>(n) *
         static_cast<uint64_t>(elem_bytes);
}

}  // namespace bankscope
