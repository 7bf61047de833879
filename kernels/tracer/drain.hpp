// drain.hpp: what the injection library does with a launch's device records (trace_buffer.hpp) once
// they are on the host: which slots were written, and the 'P' and 'W' records made from them. Pure
// C++ (no Compute Sanitizer API), so that tests/test_tracer_drain.cpp checks it without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/trace.hpp"
#include "trace_buffer.hpp"

namespace bankscope::tracer {

// Slots written: up to the first reservation that did not fit (an LDGSTS takes two slots, and a
// reservation that does not fit writes nothing and lowers valid_end).
inline uint64_t written_slots(const DeviceBufferHeader& h) { return std::min({h.head, h.capacity, h.valid_end}); }

inline std::string opcode_of(uint16_t kind, uint16_t width, uint32_t count) {
  // Named from what the callback reports (the API gives no opcode): the SASS mnemonic it implies.
  std::string op;
  switch (kind) {
    case kRecLoad: op = "LDS"; break;
    case kRecStore: op = "STS"; break;
    case kRecAtomic: op = "ATOMS"; break;
    case kRecLdsm: return "LDSM.x" + std::to_string(count);
    case kRecStsm: return "STSM.x" + std::to_string(count);
    case kRecLdgsts: op = "LDGSTS"; break;
    case kRecGenericLoad: op = "LD(shared)"; break;
    case kRecGenericStore: op = "ST(shared)"; break;
    default: op = "?"; break;
  }
  if (width == 1) return op + ".U8";
  if (width == 2) return op + ".U16";
  if (width == 8) return op + ".64";
  if (width == 16) return op + ".128";
  return op;
}

// Writes the PC table (first-seen order) and then one 'W' execution per record of `recs` (the
// written slots) into `writer`; an LDGSTS record takes its lanes' sources from the source slot after
// it. PCs are made relative to `function_pc` when they are above it. Calls flush() after each
// execution (the caller writes the buffer out when it has grown). Returns the executions written.
template <class Flush>
uint64_t drain_records(const std::vector<DeviceRecord>& recs, uint64_t function_pc, TraceWriter& writer, Flush flush) {
  std::map<std::pair<uint64_t, uint16_t>, uint32_t> pcs;
  for (const DeviceRecord& r : recs) {
    const auto key = std::make_pair(r.pc, r.kind);
    if (r.kind == kRecLdgstsSource || pcs.count(key)) continue;
    const uint32_t idx = static_cast<uint32_t>(pcs.size());
    pcs[key] = idx;
    TracePc p;
    p.index = idx;
    p.pc = r.pc >= function_pc ? r.pc - function_pc : r.pc;
    p.kind = r.kind == kRecGenericLoad ? TraceOpKind::kLoad
             : r.kind == kRecGenericStore ? TraceOpKind::kStore
             : r.kind <= kRecLdgsts       ? static_cast<TraceOpKind>(r.kind)
                                          : TraceOpKind::kOther;
    p.width = (r.width == 1 || r.width == 2 || r.width == 4 || r.width == 8 || r.width == 16) ? r.width : 4;
    p.opcode = opcode_of(r.kind, r.width, r.count);
    writer.pc(p);
  }
  TraceWarp w;
  uint64_t executions = 0;
  for (uint64_t i = 0; i < recs.size(); ++i) {
    const DeviceRecord& r = recs[i];
    if (r.kind == kRecLdgstsSource) continue;  // read with the LDGSTS record before it
    w.block = r.block;
    w.warp = r.warp;
    w.pc_index = pcs[std::make_pair(r.pc, r.kind)];
    w.mask = r.mask;
    for (int lane = 0; lane < 32; ++lane) {
      // A misaligned offset would be refused by the reader; the GPU faults on those, so none should
      // arrive. Lanes outside the mask are not written.
      w.addr[lane] = r.addr[lane];
    }
    // The patch writes an LDGSTS's sources into the next slot of the same reservation. A source of 0
    // in the trace means a null pointer (the zero-fill form: sim/ldgsts.hpp reads nothing for it);
    // a real address whose low 32 bits are 0 cannot be told from it, so such an execution is
    // written without sources (never costed) rather than as a zero-fill.
    const DeviceRecord* src = i + 1 < recs.size() ? &recs[i + 1] : nullptr;
    w.has_src = r.kind == kRecLdgsts && src != nullptr && src->kind == kRecLdgstsSource && src->pc == r.pc &&
                src->block == r.block && src->warp == r.warp && src->mask == r.mask;
    for (int lane = 0; lane < 32; ++lane) {
      const bool active = (r.mask >> lane) & 1u;
      w.src[lane] = w.has_src && active ? src->addr[lane] : 0;
      if (w.has_src && active && src->addr[lane] == 0 && !((src->count >> lane) & 1u)) w.has_src = false;
    }
    writer.warp(w);
    ++executions;
    flush();
  }
  return executions;
}

}  // namespace bankscope::tracer
