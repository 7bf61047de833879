// bench_patterns.hpp: the warp sets bankscope-bench times cost() on (tests/bench_model.cpp), and
// tests/bench_cost_ir.cpp counts it on, one definition for both.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "sim/bank_model.hpp"

namespace bankscope::bench {

enum class Mix { kStrided, kRandom, kAll };

// Strided: lane i at i * s elements for s = 0..64 (what tiled kernels issue: rows, columns,
// padded and unpadded strides). Random: 63 warps of aligned addresses drawn from 48 KiB.
inline std::vector<WarpAccess> patterns(int width, Mix mix) {
  std::vector<WarpAccess> v;
  std::mt19937 rng(12345);
  if (mix != Mix::kRandom) {
    for (uint32_t s = 0; s <= 64; ++s) {
      WarpAccess a;
      a.width = width;
      for (uint32_t i = 0; i < 32; ++i) a.addr[i] = i * s * uint32_t(width);
      v.push_back(a);
    }
  }
  if (mix != Mix::kStrided) {
    for (int k = 0; k < 63; ++k) {
      WarpAccess a;
      a.width = width;
      for (uint32_t i = 0; i < 32; ++i) {
        a.addr[i] = static_cast<uint32_t>(rng() % (49152 / uint32_t(width))) * uint32_t(width);
      }
      v.push_back(a);
    }
  }
  return v;
}

}  // namespace bankscope::bench
