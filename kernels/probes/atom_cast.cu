// atom_cast.cu: the shared atomics that no measured rule covered yet, on the H200. nvcc 13 for
// sm_90 emits
//   float atomicAdd(&s[i], v)                 LDS + FADD + ATOMS.CAST.SPIN     in a retry loop
//   unsigned long long atomicAdd/Or/Min(...)  LDS.64 + ATOMS.CAST.SPIN.64      in a retry loop
//   atomicAnd / atomicOr / atomicXor / atomicInc / atomicDec (32-bit)   ATOMS.AND/.OR/.XOR/.INC/.DEC
// (tests/conformance/sass_v2.txt has the 64-bit forms). The questions: how many ATOMS.CAST.SPIN
// executions a warp makes when lanes share a word (the loop retries the lanes whose swap failed),
// what each costs, and whether AND/OR/XOR/INC/DEC cost what R8 says ADD costs (every active lane
// served alone). One warp, one atomic statement per launch, so the hardware l1tex__..._op_atom
// counters are exact; `bankscope-gpu trace` of this program records every execution of the loop.
//   atom_cast [--jsonl]             the named patterns (needs a GPU); --jsonl prints each launch as
//                                   a line (kernel, mask, byte offsets) and exits
//   atom_cast --fresh SEED [--jsonl]  a random batch instead, for predictions made before it runs
// Patterns: idx[lane] = the element (4 or 8 bytes) each active lane updates.
// The runs of 2026-12-01x/y wrote the results out as floats, which rounded an AND's low bits away
// from the check; the shared-memory instructions, lanes and addresses were the same as now.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

enum Kind { kCast32, kCast64, kAnd, kOr, kXor, kInc, kDec, kAdd, kKinds };
static const char* const kKindName[kKinds] = {"cast32", "cast64", "and", "or", "xor", "inc", "dec", "add"};

struct Pattern {
  std::string name;
  Kind kind;
  uint32_t mask;
  int idx[32];
};

constexpr int kWords = 2048;  // 8 KiB of shared memory in every kernel

__global__ void cast32_kernel(const int* idx, unsigned mask, unsigned* out) {
  __shared__ float s[kWords];
  const int t = threadIdx.x;
  for (int i = t; i < kWords; i += 32) s[i] = 0.f;
  __syncthreads();
  if ((mask >> t) & 1u) atomicAdd(&s[idx[t]], 1.5f);  // LDS + ATOMS.CAST.SPIN loop
  __syncthreads();
  out[t] = __float_as_uint(s[idx[t]]);
}

__global__ void cast64_kernel(const int* idx, unsigned mask, unsigned* out) {
  __shared__ unsigned long long s[kWords / 2];
  const int t = threadIdx.x;
  for (int i = t; i < kWords / 2; i += 32) s[i] = 0;
  __syncthreads();
  if ((mask >> t) & 1u) atomicAdd(&s[idx[t]], 3ull);  // LDS.64 + ATOMS.CAST.SPIN.64 loop
  __syncthreads();
  out[t] = static_cast<unsigned>(s[idx[t]]);  // 3 per update
}

template <int K>
__global__ void atom32_kernel(const int* idx, unsigned mask, unsigned* out) {
  __shared__ unsigned s[kWords];
  const int t = threadIdx.x;
  for (int i = t; i < kWords; i += 32) s[i] = K == kAnd ? ~0u : 0u;
  __syncthreads();
  if ((mask >> t) & 1u) {
    unsigned* p = &s[idx[t]];
    const unsigned bit = 1u << (t & 15);
    if constexpr (K == kAnd) atomicAnd(p, ~bit);
    if constexpr (K == kOr) atomicOr(p, bit);
    if constexpr (K == kXor) atomicXor(p, bit);
    if constexpr (K == kInc) atomicInc(p, 1000u);
    if constexpr (K == kDec) atomicDec(p, 1000u);
    if constexpr (K == kAdd) atomicAdd(p, 7u);
  }
  __syncthreads();
  out[t] = s[idx[t]];
}

// What each lane's element holds at the end, as the 32 bits the kernel writes out (the check that
// the atomics ran; exact integers, so that every bit of AND/OR/XOR is compared).
static unsigned expected(const Pattern& p, int t) {
  int n = 0;
  unsigned bits = 0, x = 0;
  for (int u = 0; u < 32; ++u) {
    if (!((p.mask >> u) & 1u) || p.idx[u] != p.idx[t]) continue;
    ++n;
    bits |= 1u << (u & 15);
    x ^= 1u << (u & 15);
  }
  switch (p.kind) {
    case kCast32: {
      const float v = 1.5f * float(n);  // exact: the sum of n times 1.5 in any order
      unsigned u;
      std::memcpy(&u, &v, sizeof u);
      return u;
    }
    case kCast64: return 3u * unsigned(n);
    case kAnd: return ~bits;
    case kOr: return bits;
    case kXor: return x;
    case kInc: return unsigned(n);
    case kDec: return n ? unsigned(1001 - n) : 0u;  // 0 wraps to 1000 first
    case kAdd: return 7u * unsigned(n);
    default: return 0u;
  }
}

static uint64_t g_state = 0x243f6a8885a308d3ull;
static uint64_t rnd() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}

// The named patterns, in elements of the kernel's width (elems = 2048 or 1024).
static void named(std::vector<Pattern>& ps, Kind kind, bool all) {
  const int elems = kind == kCast64 ? kWords / 2 : kWords;
  const int row = kind == kCast64 ? 16 : 32;  // elements per 128-byte row of banks
  auto add = [&](const std::string& name, uint32_t mask, auto f) {
    Pattern p{std::string(kKindName[kind]) + "_" + name, kind, mask, {}};
    for (int t = 0; t < 32; ++t) p.idx[t] = f(t) % elems;
    ps.push_back(p);
  };
  add("distinct_banks", ~0u, [](int t) { return t; });
  add("same_all", ~0u, [](int) { return 0; });
  add("pairs", ~0u, [](int t) { return t / 2; });
  add("grp8_one_bank", ~0u, [&](int t) { return row * (t / 8); });
  add("one_bank_32_words", ~0u, [&](int t) { return row * t; });
  add("same_word_plus_bank", ~0u, [&](int t) { return t < 16 ? 0 : row * (t - 15); });
  if (!all) return;
  add("quads", ~0u, [](int t) { return t / 4; });
  add("mod8", ~0u, [](int t) { return t % 8; });
  add("mod16", ~0u, [](int t) { return t % 16; });
  add("half_same", 0x0000ffffu, [](int) { return 0; });
  add("two_words_one_bank_alt", ~0u, [&](int t) { return row * (t % 2); });
  add("sparse_mask_same", 0x80010001u, [](int) { return 5; });
  add("grp4_same_bank_rows", ~0u, [&](int t) { return row * (t % 8) + (t / 8); });
  add("upper_half_pairs", 0xffff0000u, [](int t) { return t / 2; });
  for (int k = 0; k < 6; ++k) {
    int v[32];
    const int range = k < 2 ? 256 : (k < 4 ? 48 : elems);
    for (int& x : v) x = int(rnd() % uint64_t(range));
    const uint32_t mask = k % 2 ? uint32_t(rnd()) | 1u : ~0u;
    add("rand" + std::to_string(k) + "_r" + std::to_string(range), mask, [&v](int t) { return v[t]; });
  }
}

static std::vector<Pattern> patterns() {
  std::vector<Pattern> ps;
  named(ps, kCast32, true);
  named(ps, kCast64, true);
  for (Kind k : {kAnd, kOr, kXor, kInc, kDec, kAdd}) named(ps, k, false);
  return ps;
}

static std::vector<Pattern> fresh(uint64_t seed) {
  g_state = seed * 0x9e3779b97f4a7c15ull + 1;
  std::vector<Pattern> ps;
  for (int k = 0; k < 48; ++k) {
    const Kind kind = k < 20 ? kCast32 : (k < 36 ? kCast64 : Kind(kAnd + (k - 36) % 5));
    const int elems = kind == kCast64 ? kWords / 2 : kWords;
    const int row = kind == kCast64 ? 16 : 32;
    Pattern p{std::string("fresh_") + kKindName[kind] + "_" + std::to_string(k), kind, ~0u, {}};
    const int shape = k % 4;
    const int pool = 1 + int(rnd() % 12);
    int words[12];
    for (int& w : words) w = int(rnd() % uint64_t(elems));
    for (int t = 0; t < 32; ++t) {
      switch (shape) {
        case 0: p.idx[t] = words[rnd() % uint64_t(pool)]; break;                       // a pool of words
        case 1: p.idx[t] = int((row * (rnd() % 8) + rnd() % 4) % elems); break;        // few banks
        case 2: p.idx[t] = int((t * (1 + rnd() % 3) * row + rnd() % 2) % elems); break;  // strided
        default: p.idx[t] = int(rnd() % 96); break;                                    // random, 3 rows
      }
    }
    if (k % 3 == 2) p.mask = uint32_t(rnd()) | 1u;
    ps.push_back(p);
  }
  return ps;
}

int main(int argc, char** argv) {
  int arg = 1;
  const bool use_fresh = argc > 2 && std::strcmp(argv[1], "--fresh") == 0;
  if (use_fresh) arg = 3;
  const std::vector<Pattern> ps = use_fresh ? fresh(std::strtoull(argv[2], nullptr, 10)) : patterns();
  if (argc > arg && std::strcmp(argv[arg], "--jsonl") == 0) {
    for (size_t i = 0; i < ps.size(); ++i) {
      const Pattern& p = ps[i];
      const int w = p.kind == kCast64 ? 8 : 4;
      std::string offs;
      for (int t = 0; t < 32; ++t) offs += (t ? "," : "") + std::to_string(w * p.idx[t]);
      std::printf("{\"launch\":%zu,\"id\":\"%s\",\"kernel\":\"%s\",\"width\":%d,\"mask\":\"0x%08x\",\"offsets\":[%s]}\n",
                  i, p.name.c_str(), kKindName[p.kind], w, p.mask, offs.c_str());
    }
    return 0;
  }
  int* idx = nullptr;
  unsigned* out = nullptr;
  if (cudaMalloc(&idx, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "atom_cast: no GPU memory\n");
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    const Pattern& p = ps[i];
    cudaMemcpy(idx, p.idx, sizeof p.idx, cudaMemcpyHostToDevice);
    switch (p.kind) {
      case kCast32: cast32_kernel<<<1, 32>>>(idx, p.mask, out); break;
      case kCast64: cast64_kernel<<<1, 32>>>(idx, p.mask, out); break;
      case kAnd: atom32_kernel<kAnd><<<1, 32>>>(idx, p.mask, out); break;
      case kOr: atom32_kernel<kOr><<<1, 32>>>(idx, p.mask, out); break;
      case kXor: atom32_kernel<kXor><<<1, 32>>>(idx, p.mask, out); break;
      case kInc: atom32_kernel<kInc><<<1, 32>>>(idx, p.mask, out); break;
      case kDec: atom32_kernel<kDec><<<1, 32>>>(idx, p.mask, out); break;
      default: atom32_kernel<kAdd><<<1, 32>>>(idx, p.mask, out); break;
    }
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::fprintf(stderr, "atom_cast: %s: %s\n", p.name.c_str(), cudaGetErrorString(e));
      return 1;
    }
    unsigned h[32];
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < 32; ++t) wrong += h[t] != expected(p, t);
    bad += wrong != 0;
    std::printf("launch %zu %s %s\n", i, p.name.c_str(), wrong ? "WRONG" : "ok");
  }
  return bad ? 2 : 0;
}
