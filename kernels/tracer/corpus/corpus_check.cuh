// corpus_check.cuh: the one error check the corpus drivers share. Each driver is a small, complete
// CUDA program that bankscope-gpu trace runs unmodified; it checks its own output on the CPU and
// exits non-zero when a result is wrong (tracing must never change results).
#pragma once
#include <cstdio>
#include <cstdlib>

#define CORPUS_CHECK(call)                                                                   \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)
