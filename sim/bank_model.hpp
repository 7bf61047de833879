// bank_model.hpp: one warp-wide shared-memory instruction -> the wavefronts it costs.
//
// The model in one sentence: the active lanes are split into phases (rules.hpp decides how); within
// a phase every bank serves one distinct word per wavefront, so a phase costs as many wavefronts as
// its busiest bank has distinct words; lanes that share a word are served together (broadcast on a
// load, one writer on a store). The instruction's cost is the sum over its phases.
//
// The two numbers Nsight Compute reports for one instruction are
//   wavefronts      = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
//   bank_conflicts  = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}
//                   = wavefronts - ideal_wavefronts
// where ideal_wavefronts is what the access needs at minimum (rules.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bank_math.hpp"
#include "status.hpp"

namespace bankscope {

enum class Op : uint8_t { kLoad, kStore };

inline const char* op_name(Op op) { return op == Op::kLoad ? "ld" : "st"; }

// Bank geometry. Default: 32 banks x 4 bytes (sm_70 .. sm_90). Other values are for teaching
// (e.g. 16 banks to show an older or hypothetical part); the measured rules in rules.hpp only
// claim fidelity for the default.
struct BankConfig {
  int banks = kDefaultBanks;          // 1 .. 64
  int bank_bytes = kDefaultBankBytes;  // 4 or 8

  bool is_default() const { return banks == kDefaultBanks && bank_bytes == kDefaultBankBytes; }
};

Result<BankConfig> make_bank_config(int banks, int bank_bytes);

// One warp instruction: lane -> byte address, for the lanes in `mask`.
struct WarpAccess {
  Op op = Op::kLoad;
  int width = 4;  // bytes per lane: 1, 2, 4, 8 or 16
  uint32_t mask = 0xffffffffu;
  std::array<uint32_t, kWarpSize> addr{};  // byte offset into shared memory, lane 0 first
};

// Checks width and alignment. A misaligned address is a user error (on the GPU it faults with
// "misaligned address"), reported with the lane and the address.
Result<WarpAccess> validate(const WarpAccess& access, const BankConfig& cfg);

// What ncu counts for one instruction. Cheap to compute: used for per-launch totals.
struct AccessCost {
  int wavefronts = 0;
  int ideal_wavefronts = 0;
  int n_way = 0;  // most distinct words any bank must serve within one phase (1 = conflict-free)
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

// The whole picture for one instruction: what the visualizer draws and `explain` prints.
struct LaneDetail {
  bool active = false;
  uint32_t addr = 0;
  int words = 0;                 // bank-width words the lane touches (1 for width <= bank_bytes)
  std::array<uint32_t, 4> word{};  // word index (byte address / bank_bytes)
  std::array<int, 4> bank{};
  int phase = -1;
  int wavefront = -1;  // the wavefront (0-based, whole instruction) in which the lane has its data
};

struct WavefrontDetail {
  int phase = 0;
  uint32_t lanes = 0;   // lanes whose data is complete in this wavefront
  uint64_t banks = 0;   // banks that serve a word in this wavefront
  // (bank, word) pairs served in this wavefront.
  std::vector<std::pair<int, uint32_t>> words;
};

struct AccessReport {
  WarpAccess access;
  BankConfig cfg;
  std::array<LaneDetail, kWarpSize> lanes{};
  std::vector<uint32_t> phase_masks;             // lanes in each phase, in issue order
  std::vector<std::vector<uint32_t>> bank_words;  // per bank: distinct words over the instruction
  std::vector<WavefrontDetail> wavefronts;
  AccessCost cost;
  // Fraction of the wavefronts' bank slots that deliver requested data, as ncu's "efficiency":
  // ideal_wavefronts / wavefronts.
  double efficiency() const {
    return cost.wavefronts == 0 ? 1.0 : double(cost.ideal_wavefronts) / cost.wavefronts;
  }
};

// Both assume `access` passed validate(); they assert otherwise.
AccessCost cost(const WarpAccess& access, const BankConfig& cfg = {});
// Which implementation cost() uses for the default geometry on this CPU: "avx512" or "portable"
// (both give the same numbers; the environment variable BANKSCOPE_NO_AVX512 forces "portable").
const char* cost_implementation();
AccessReport simulate(const WarpAccess& access, const BankConfig& cfg = {});

}  // namespace bankscope
