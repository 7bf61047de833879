// bank_math.hpp: the address arithmetic that the model and the CUDA kernels share.
//
// Everything here is constexpr and usable from host and device (BANKSCOPE_HD), so the simulator in
// sim/ and the kernels in kernels/ compute shared-memory addresses with the same code and cannot
// drift apart. No allocation, no I/O, no standard library beyond <cstdint>.
//
// Mappings defined here:
//   byte address          -> (bank, word)            bank_of(), word_of()
//   (row, col)            -> physical element offset  PhysicalLayout::offset()
//   physical offset       -> swizzled offset          Swizzle::apply()
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BANKSCOPE_HD __host__ __device__
#else
#define BANKSCOPE_HD
#endif

namespace bankscope {

// Documented by NVIDIA (CUDA C++ Programming Guide, "Shared Memory", compute capability 5.x and
// later, unchanged through 9.0): 32 banks, each 32 bits wide; successive 32-bit words map to
// successive banks.
inline constexpr int kWarpSize = 32;
inline constexpr int kDefaultBanks = 32;
inline constexpr int kDefaultBankBytes = 4;
// Documented by NVIDIA (Hopper tuning guide): a block may use up to 227 KiB of shared memory on
// sm_90 (228 KiB per SM, 1 KiB reserved per block).
inline constexpr uint32_t kMaxSharedBytesPerBlockSm90 = 227u * 1024u;

// byte address -> index of the bank-width word that holds it.
BANKSCOPE_HD constexpr uint32_t word_of(uint32_t byte_addr, int bank_bytes = kDefaultBankBytes) {
  return byte_addr / static_cast<uint32_t>(bank_bytes);
}

// byte address -> bank.
BANKSCOPE_HD constexpr int bank_of(uint32_t byte_addr, int banks = kDefaultBanks,
                                   int bank_bytes = kDefaultBankBytes) {
  return static_cast<int>(word_of(byte_addr, bank_bytes) % static_cast<uint32_t>(banks));
}

BANKSCOPE_HD constexpr int gcd_int(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// CuTe-style Swizzle<B, M, S> on an element offset:
//
//   offset bits:  ... [ YYY ][ ... ][ ZZZ ][ MMMM ]
//                       ^ S + M      ^ M    ^ 0
//   apply(o) = o ^ ((o & yyy_mask) >> S)        yyy_mask = ((1 << B) - 1) << (M + S)
//
// The B bits at position M+S are XORed into the B bits at position M; the low M bits (a unit of
// 2^M elements that stays contiguous) are untouched. B = 0 is the identity. S must be >= B so the
// two fields do not overlap (same constraint as cute::Swizzle).
struct Swizzle {
  int bits = 0;   // B
  int base = 0;   // M
  int shift = 0;  // S

  BANKSCOPE_HD constexpr bool is_identity() const { return bits == 0; }
  BANKSCOPE_HD constexpr int64_t apply(int64_t offset) const {
    if (bits == 0) return offset;
    const int64_t yyy_mask = ((int64_t{1} << bits) - 1) << (base + shift);
    return offset ^ ((offset & yyy_mask) >> shift);
  }
};

static_assert(Swizzle{}.apply(77) == 77, "default swizzle is the identity");
// Swizzle<5,0,5> on a 32-wide row is the classic tile[r][c ^ r]: (r=3, c=1) -> 3*32 + (1^3).
static_assert(Swizzle{5, 0, 5}.apply(3 * 32 + 1) == 3 * 32 + (1 ^ 3), "Swizzle<5,0,5> == c ^ r");

// Physical layout of a logical [rows][cols] tile, in elements:
//
//   (row, col) -> swizzle( row * row_stride + (col ^ (row & xor_mask)) )
//
// row_stride >= cols is the padding ("tile[32][33]": logical 32x32, row_stride 33); xor_mask is the
// hand-written XOR swizzle ("tile[r][c ^ r]": xor_mask 31); swizzle is CuTe's Swizzle<B,M,S> on the
// linear offset. Each part is the identity at its default, so any combination composes.
struct PhysicalLayout {
  int row_stride = 0;  // elements between the starts of consecutive rows
  int xor_mask = 0;    // col ^= (row & xor_mask); 0 = none
  Swizzle swizzle{};

  BANKSCOPE_HD constexpr int64_t offset(int64_t row, int64_t col) const {
    const int64_t c = col ^ (row & static_cast<int64_t>(xor_mask));
    return swizzle.apply(row * row_stride + c);
  }
};

static_assert(PhysicalLayout{33}.offset(1, 0) == 33, "padding: row 1 starts one word later");
static_assert(PhysicalLayout{32, 31}.offset(5, 0) == 5 * 32 + 5, "xor: column 0 of row 5 lands at 5");

}  // namespace bankscope
