// atom_inc.cu: what does ATOMS.POPC.INC cost? nvcc emits it for atomicAdd(&shared[i], 1) (the
// corpus histogram's only atomic), and bankscope's R8 was measured for ATOMS.ADD/MIN/MAX/EXCH/CAS
// only. Two readings to separate: R8 (every active lane served alone, lanes on one word serialize)
// or "merge" (lanes on one word are counted once by the population count and served once: the cost
// of a 4-byte load of the same lanes, R1-R5). One warp, one instruction per launch, so the
// hardware l1tex__..._op_atom counters are exact (as for R8's suite).
//   atom_inc [--jsonl]   runs every pattern (needs a GPU); --jsonl prints them as bankscope-cli
//                        `predict --jsonl` lines (op "atom" add: R8; op "ld" 4 bytes: merge) and exits.
//   atom_inc --fresh SEED [--jsonl]   24 random patterns instead (pools of words, bank-heavy
//                        strides, masks), for a batch predicted before it is measured.
// Patterns: idx[lane] = the word each active lane increments; a few run as ATOMS.ADD too (a value
// from memory, not the constant 1) as a reference for R8.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

struct Pattern {
  std::string name;
  uint32_t mask;
  int idx[32];
  bool add;  // ATOMS.ADD instead of ATOMS.POPC.INC
};

__global__ void inc_kernel(const int* idx, unsigned mask, unsigned* out) {
  __shared__ unsigned s[2048];
  const int t = threadIdx.x;
  for (int i = t; i < 2048; i += 32) s[i] = 0;
  __syncthreads();
  if ((mask >> t) & 1u) atomicAdd(&s[idx[t]], 1u);
  __syncthreads();
  out[t] = s[idx[t]];
}

__global__ void add_kernel(const int* idx, unsigned mask, const unsigned* v, unsigned* out) {
  __shared__ unsigned s[2048];
  const int t = threadIdx.x;
  for (int i = t; i < 2048; i += 32) s[i] = 0;
  __syncthreads();
  if ((mask >> t) & 1u) atomicAdd(&s[idx[t]], v[t]);
  __syncthreads();
  out[t] = s[idx[t]];
}

static std::vector<Pattern> fresh(uint64_t seed) {
  std::vector<Pattern> ps;
  uint64_t st = seed * 0x9e3779b97f4a7c15ull + 1;
  auto rnd = [&st]() {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
  };
  for (int k = 0; k < 24; ++k) {
    Pattern p{"fresh" + std::to_string(k), ~0u, {}, false};
    const int kind = k % 4;
    const int pool = 1 + int(rnd() % 12);
    int words[12];
    for (int& w : words) w = int(rnd() % 2048);
    for (int t = 0; t < 32; ++t) {
      switch (kind) {
        case 0: p.idx[t] = words[rnd() % uint64_t(pool)]; break;                 // a pool of words
        case 1: p.idx[t] = int((32 * (rnd() % 8) + rnd() % 4) % 2048); break;    // few banks, few words
        case 2: p.idx[t] = int((t * (1 + rnd() % 3) * 32 + (rnd() % 2)) % 2048); break;  // strided
        default: p.idx[t] = int(rnd() % 128); break;                               // random, 4 rows
      }
    }
    if (k % 3 == 2) p.mask = uint32_t(rnd()) | 1u;
    ps.push_back(p);
  }
  return ps;
}

static std::vector<Pattern> patterns() {
  std::vector<Pattern> ps;
  auto add = [&](const std::string& name, uint32_t mask, auto f, bool as_add = false) {
    Pattern p{name, mask, {}, as_add};
    for (int t = 0; t < 32; ++t) p.idx[t] = f(t);
    ps.push_back(p);
  };
  add("same_all", ~0u, [](int) { return 0; });
  add("distinct_banks", ~0u, [](int t) { return t; });
  add("one_bank_32_words", ~0u, [](int t) { return 32 * t; });
  add("pairs", ~0u, [](int t) { return t / 2; });
  add("quads", ~0u, [](int t) { return t / 4; });
  add("grp8_one_bank", ~0u, [](int t) { return 32 * (t / 8); });
  add("half_same", 0x0000ffffu, [](int) { return 0; });
  add("two_words_one_bank_alt", ~0u, [](int t) { return 32 * (t % 2); });
  add("mod8", ~0u, [](int t) { return t % 8; });
  add("same_word_plus_bank", ~0u, [](int t) { return t < 16 ? 0 : 32 * (t - 15); });
  add("sparse_mask_same", 0x80010001u, [](int) { return 5; });
  uint64_t st = 0x243f6a8885a308d3ull;
  auto rnd = [&st]() {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
  };
  for (int k = 0; k < 6; ++k) {
    int v[32];
    const int range = k < 2 ? 256 : (k < 4 ? 64 : 2048);
    for (int t = 0; t < 32; ++t) v[t] = int(rnd() % uint64_t(range));
    const uint32_t mask = k % 2 ? uint32_t(rnd()) | 1u : ~0u;
    add("rand" + std::to_string(k) + "_r" + std::to_string(range), mask, [&v](int t) { return v[t]; });
  }
  // ATOMS.ADD references (R8, measured before): the same lanes
  add("ADD_same_all", ~0u, [](int) { return 0; }, true);
  add("ADD_pairs", ~0u, [](int t) { return t / 2; }, true);
  add("ADD_grp8_one_bank", ~0u, [](int t) { return 32 * (t / 8); }, true);
  return ps;
}

int main(int argc, char** argv) {
  int arg = 1;
  const bool use_fresh = argc > 2 && std::strcmp(argv[1], "--fresh") == 0;
  if (use_fresh) arg = 3;
  const std::vector<Pattern> ps = use_fresh ? fresh(std::strtoull(argv[2], nullptr, 10)) : patterns();
  if (argc > arg && std::strcmp(argv[arg], "--jsonl") == 0) {
    for (const Pattern& p : ps) {
      std::string offs;
      for (int t = 0; t < 32; ++t) offs += (t ? "," : "") + std::to_string(4 * p.idx[t]);
      char mask[16];
      std::snprintf(mask, sizeof mask, "0x%08x", p.mask);
      std::printf("{\"id\":\"%s\",\"op\":\"atom\",\"width\":4,\"atom\":\"add\",\"mask\":\"%s\",\"offsets\":[%s]}\n",
                  p.name.c_str(), mask, offs.c_str());
      std::printf("{\"id\":\"%s\",\"op\":\"ld\",\"width\":4,\"mask\":\"%s\",\"offsets\":[%s]}\n", p.name.c_str(), mask,
                  offs.c_str());
    }
    return 0;
  }
  int* idx = nullptr;
  unsigned *out = nullptr, *v = nullptr;
  if (cudaMalloc(&idx, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&v, 32 * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "atom_inc: no GPU memory\n");
    return 1;
  }
  unsigned ones[32];
  for (unsigned& o : ones) o = 1;
  cudaMemcpy(v, ones, sizeof ones, cudaMemcpyHostToDevice);
  for (size_t i = 0; i < ps.size(); ++i) {
    const Pattern& p = ps[i];
    cudaMemcpy(idx, p.idx, sizeof p.idx, cudaMemcpyHostToDevice);
    if (p.add) {
      add_kernel<<<1, 32>>>(idx, p.mask, v, out);
    } else {
      inc_kernel<<<1, 32>>>(idx, p.mask, out);
    }
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::fprintf(stderr, "atom_inc: %s: %s\n", p.name.c_str(), cudaGetErrorString(e));
      return 1;
    }
    unsigned h[32];
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    // Each active lane's word ends at the number of active lanes that increment it.
    int wrong = 0;
    for (int t = 0; t < 32; ++t) {
      unsigned want = 0;
      for (int u = 0; u < 32; ++u) want += ((p.mask >> u) & 1u) && p.idx[u] == p.idx[t];
      wrong += h[t] != want;
    }
    std::printf("launch %zu %s %s\n", i, p.name.c_str(), wrong ? "WRONG" : "ok");
  }
  return 0;
}
