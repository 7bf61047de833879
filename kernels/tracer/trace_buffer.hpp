// trace_buffer.hpp: the device buffer the patches fill and the injection library drains, shared by
// patch.cu (device) and injection.cpp (host). One record per warp-level execution of a
// shared-memory instruction: the patch runs per thread, the first active lane reserves the slot,
// every active lane writes its own offset.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BANKSCOPE_TRACER_HD __host__ __device__
#else
#define BANKSCOPE_TRACER_HD
#endif

namespace bankscope::tracer {

enum RecordKind : uint16_t {  // the values of TraceOpKind (sim/trace.hpp)
  kRecLoad = 0,
  kRecStore = 1,
  kRecAtomic = 2,
  kRecLdsm = 3,
  kRecStsm = 4,
  kRecLdgsts = 5,
  kRecGenericLoad = 0x100,   // LD/ST through a generic address that points at shared memory:
  kRecGenericStore = 0x101,  // costed as ld/st, opcode named apart
  kRecLdgstsSource = 0x200,  // the slot after each kRecLdgsts record: addr[lane] = the low 32 bits
                             // of the lane's global source address (R9 depends on it), count = the
                             // lanes whose source pointer is null (cp.async's zero-fill form)
};

struct DeviceRecord {
  uint64_t pc;       // as the Compute Sanitizer API gives it (the host subtracts the function's start)
  uint32_t block;    // linear block index, x fastest
  uint32_t warp;     // linear thread index / 32
  uint32_t mask;     // lanes that executed the instruction (__activemask() in the patch)
  uint16_t kind;     // RecordKind
  uint16_t width;    // bytes per lane (LDSM: 16, one row address per lane)
  uint32_t count;    // LDSM: matrices; otherwise 1
  uint32_t addr[32];  // shared-window offset per lane (valid for lanes in mask)
};

struct DeviceBufferHeader {
  unsigned long long head;      // slots reserved so far (may exceed capacity: the excess is dropped)
  unsigned long long capacity;  // records that fit after the header
  unsigned long long block_limit;  // trace blocks with a linear index below this (all: ~0)
  // Warp executions whose slots did not fit (an LDGSTS takes two slots, so slots beyond capacity
  // are not executions); the host reports these as dropped.
  unsigned long long dropped;
  // The first slot of the first reservation that did not fit (capacity when none): slots from here
  // on were reserved but not written. Lowered with atomicMin by the patch.
  unsigned long long valid_end;
};
static_assert(sizeof(DeviceRecord) == 160, "the host and the patch share this layout");
static_assert(sizeof(DeviceBufferHeader) % 8 == 0, "records start 8-byte aligned");

BANKSCOPE_TRACER_HD inline DeviceRecord* records_of(DeviceBufferHeader* h) { return reinterpret_cast<DeviceRecord*>(h + 1); }

}  // namespace bankscope::tracer
