// realworld.cuh: what the real-kernel drivers of assets/scenarios/realworld/ share. Each driver is
// a small complete CUDA program: `prog N [NAME=VALUE ...]` launches its kernel exactly once at
// size N (the scenario's `n`; NAME=VALUE are the scenario's `params`, as `bankscope-cli predict
// --n N --param NAME=VALUE` takes them), checks the result against a CPU reference and exits 1 on
// a mismatch, so a kernel that computes nothing cannot pass for measured.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>

#define RW_CHECK(call)                                                                        \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

namespace rw {

// argv[1] = N (1 .. max_n); argv[2..] = NAME=VALUE, read by the caller when `has_params` (a
// kernel parameter of the scenario), else an error: a size line must not mean something else.
inline long parse_n(int argc, char** argv, long max_n, bool has_params = false) {
  if (argc > 2 && !has_params) {
    std::fprintf(stderr, "%s: '%s': this kernel has no parameters\n", argv[0], argv[2]);
    std::exit(2);
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s N [NAME=VALUE ...]\n", argv[0]);
    std::exit(2);
  }
  char* end = nullptr;
  const long n = std::strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || n < 1 || n > max_n) {
    std::fprintf(stderr, "%s: N '%s': expected 1 .. %ld\n", argv[0], argv[1], max_n);
    std::exit(2);
  }
  return n;
}

// Deterministic inputs: a small-integer hash of the index, exact in float sums.
inline int value_at(long i, int range) { return int((uint32_t(i) * 2654435761u >> 16) % uint32_t(range)) - range / 2; }

inline int report(const char* name, long n, long bad, long checked) {
  if (bad != 0) {
    std::printf("%s N=%ld: MISMATCH in %ld of %ld outputs\n", name, n, bad, checked);
    return 1;
  }
  std::printf("%s N=%ld: %ld outputs equal the CPU reference\n", name, n, checked);
  return 0;
}

}  // namespace rw
