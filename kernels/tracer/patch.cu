// patch.cu: the device callbacks the Compute Sanitizer API inserts before each shared-memory
// instruction of a traced kernel. Built with nvcc --fatbin --compile-as-tools-patch (a "tools
// patch": the functions are linked into the instrumented kernel by the sanitizer at load time) and
// loaded with sanitizerAddPatchesFromFile by injection.cpp.
//
// The patch runs per thread. The lanes that reach it together are the ones that execute the
// instruction (assumed from the API's per-thread model and the public memory tracker sample's use
// of __activemask(); the H200 trace check compares the resulting counts with ncu).
#include <sanitizer_patching.h>

#include "trace_buffer.hpp"

using namespace bankscope::tracer;

namespace {

__device__ __forceinline__ uint32_t lane_id() {
  uint32_t l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

__device__ __forceinline__ void fill(DeviceRecord& r, uint32_t lane, uint32_t leader, uint64_t pc, uint32_t block,
                                     uint32_t mask, uint16_t kind, uint32_t width, uint32_t count, uint32_t value) {
  r.addr[lane] = value;
  if (lane == leader) {
    const uint32_t thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    r.pc = pc;
    r.block = block;
    r.warp = thread / 32;
    r.mask = mask;
    r.kind = kind;
    r.width = static_cast<uint16_t>(width);
    r.count = count;
  }
}

// One warp execution: one slot, or two for an LDGSTS (`with_source`: its lanes' global sources in
// the second, kind kRecLdgstsSource). A reservation that does not fit writes nothing, counts one
// dropped execution and lowers valid_end, so the host reads only written slots.
__device__ __forceinline__ void record(void* userdata, uint64_t pc, uint32_t offset, uint32_t width,
                                       uint16_t kind, uint32_t count, bool with_source = false,
                                       uint32_t source = 0, bool null_source = false) {
  auto* h = static_cast<DeviceBufferHeader*>(userdata);
  if (h == nullptr) return;  // a launch that is not traced
  const uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (block >= h->block_limit) return;  // the same for the whole warp
  const uint32_t mask = __activemask();
  const uint32_t lane = lane_id();
  const uint32_t leader = __ffs(mask) - 1;
  const unsigned long long slots = with_source ? 2 : 1;
  unsigned long long slot = 0;
  if (lane == leader) {
    slot = atomicAdd(&h->head, slots);
    if (slot + slots > h->capacity) {
      atomicAdd(&h->dropped, 1ull);
      atomicMin(&h->valid_end, slot);
    }
  }
  slot = __shfl_sync(mask, slot, leader);
  if (slot + slots > h->capacity) return;
  fill(records_of(h)[slot], lane, leader, pc, block, mask, kind, width, count, offset);
  // The source slot's count: the lanes whose source pointer is null (all 64 bits), i.e. the
  // zero-fill form, so that the host can tell them from a real address whose low 32 bits are 0.
  const uint32_t nulls = __ballot_sync(mask, null_source);
  if (with_source) fill(records_of(h)[slot + 1], lane, leader, pc, block, mask, kRecLdgstsSource, width, nulls, source);
  __syncwarp(mask);
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult bankscope_shared_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t accessSize, uint32_t flags, const void* /*pData*/) {
  const bool rd = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ;
  const bool wr = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const uint16_t kind = ((rd && wr) || (flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS)) ? kRecAtomic
                        : wr                                                           ? kRecStore
                                                                                       : kRecLoad;
  record(userdata, pc, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(ptr)), accessSize, kind, 1);
  return SANITIZER_PATCH_SUCCESS;
}

// Generic loads and stores: only those whose address is in shared memory are recorded (measured on
// the H200: ncu counts a generic LD to shared as a shared load).
extern "C" __device__ __noinline__ SanitizerPatchResult bankscope_global_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t accessSize, uint32_t flags, const void* /*pData*/) {
  if (userdata == nullptr || !__isShared(ptr)) return SANITIZER_PATCH_SUCCESS;
  const bool wr = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const bool rd = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ;
  const uint16_t kind = (rd && wr) ? kRecAtomic : wr ? kRecGenericStore : kRecGenericLoad;
  record(userdata, pc, static_cast<uint32_t>(__cvta_generic_to_shared(ptr)), accessSize, kind, 1);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankscope_matrix_access(
    void* userdata, uint64_t pc, uint32_t address, uint32_t accessSize, uint32_t flags, uint32_t count,
    const void* /*pNewValue*/) {
  const uint16_t kind = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) ? kRecStsm : kRecLdsm;
  record(userdata, pc, address, accessSize, kind, count);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async: the shared side (dst) of LDGSTS, and each lane's global source (its low 32 bits: R9
// reads the source's bank, 16-byte piece and 128-byte line, sim/ldgsts.hpp). `src` is NULL for a
// zero-fill lane, a null pointer's and a real pointer's with src-size 0 alike (documented "can be
// NULL if src-size is 0"; observed on the H200, assets/results/h200/2026-12-01t).
extern "C" __device__ __noinline__ SanitizerPatchResult bankscope_memcpy_async(
    void* userdata, uint64_t pc, void* src, uint32_t dst, uint32_t accessSize) {
  record(userdata, pc, dst, accessSize, kRecLdgsts, 1, true,
         static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src)), src == nullptr);
  return SANITIZER_PATCH_SUCCESS;
}
