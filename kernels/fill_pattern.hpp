// fill_pattern.hpp: the input values every transpose is checked with, computable on host and device.
//
//   32-bit word index w -> 0x3f800000 | (mix(w) & 0x7fffff)
//
// i.e. a float in [1, 2) with pseudo-random mantissa. Never zero (zeros hide unwritten outputs) and
// never the poison pattern 0xffffffff the output is filled with before each run, so a word that a
// kernel failed to write, or wrote from the wrong place, is caught bit-exactly. Doubles and float4s
// are checked as groups of these words.
#pragma once

#include <cstdint>

#include "sim/bank_math.hpp"

namespace bankscope {

inline constexpr uint32_t kPoisonWord = 0xffffffffu;

BANKSCOPE_HD constexpr uint32_t fill_word(uint64_t w) {
  // splitmix64 finalizer: cheap, and distinct neighbours differ in many bits.
  uint64_t z = w + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 0x3f800000u | static_cast<uint32_t>(z & 0x7fffffu);
}

static_assert(fill_word(0) != kPoisonWord && fill_word(0) != 0u, "fill values are never poison or 0");

}  // namespace bankscope
