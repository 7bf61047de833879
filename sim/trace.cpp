// trace.cpp: the trace reader and writer (format in trace.hpp). The reader treats the file as
// untrusted: every length is checked against the bytes left, every index against what was
// declared, and the first problem ends the read with one line naming the byte offset.
#include "trace.hpp"

#include <cstdio>
#include <cstring>
#include <limits>

namespace bankscope {

const char* trace_op_kind_name(TraceOpKind k) {
  switch (k) {
    case TraceOpKind::kLoad: return "ld";
    case TraceOpKind::kStore: return "st";
    case TraceOpKind::kAtomic: return "atom";
    case TraceOpKind::kLdsm: return "ldsm";
    case TraceOpKind::kStsm: return "stsm";
    case TraceOpKind::kLdgsts: return "ldgsts";
    case TraceOpKind::kOther: return "other";
  }
  return "?";
}

const char* trace_status_name(TraceStatus s) {
  switch (s) {
    case TraceStatus::kComplete: return "complete";
    case TraceStatus::kDropped: return "dropped executions (trace buffer full)";
    case TraceStatus::kProgramExited: return "program exited before the launch ended";
    case TraceStatus::kLaunchFailed: return "launch failed";
  }
  return "?";
}

namespace {

// --- encoding ---------------------------------------------------------------------------------
void put_varint(std::vector<uint8_t>& o, uint64_t v) {
  while (v >= 0x80) {
    o.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  o.push_back(static_cast<uint8_t>(v));
}
void put_zvarint(std::vector<uint8_t>& o, int64_t v) {
  put_varint(o, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void put_u32(std::vector<uint8_t>& o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_string(std::vector<uint8_t>& o, const std::string& s) {
  put_varint(o, s.size());
  o.insert(o.end(), s.begin(), s.end());
}

// --- decoding ---------------------------------------------------------------------------------
// A bounded cursor; `fail` latches the first error and makes every later read return 0.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  const uint8_t* file_begin;
  std::string error;

  size_t offset() const { return static_cast<size_t>(p - file_begin); }
  bool ok() const { return error.empty(); }
  void fail(const std::string& what) {
    if (error.empty()) error = "trace: byte " + std::to_string(offset()) + ": " + what;
    p = end;
  }
  size_t left() const { return static_cast<size_t>(end - p); }
  uint8_t u8(const char* what) {
    if (p == end) {
      fail(std::string("truncated in ") + what);
      return 0;
    }
    return *p++;
  }
  uint32_t u32(const char* what) {
    if (left() < 4) {
      fail(std::string("truncated in ") + what);
      return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
    p += 4;
    return v;
  }
  uint64_t varint(const char* what) {
    if (p != end && *p < 0x80) return *p++;  // the common one-byte case, inline
    // Up to 4 bytes (values below 2^28: every offset, delta and block index in practice) without a
    // bounds check per byte when enough bytes are left.
    if (end - p >= 4) {
      uint64_t v = p[0] & 0x7fu;
      for (int i = 1; i < 4; ++i) {
        v |= uint64_t{p[i] & 0x7fu} << (7 * i);
        if (p[i] < 0x80) {
          p += i + 1;
          return v;
        }
      }
    }
    return varint_slow(what);
  }
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  uint64_t varint_slow(const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) {
        fail(std::string("truncated in ") + what);
        return 0;
      }
      const uint8_t b = *p++;
      if (shift == 63 && b > 1) break;
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail(std::string("varint too long in ") + what);
    return 0;
  }
  int64_t zvarint(const char* what) {
    const uint64_t u = varint(what);
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  uint32_t varint32(const char* what) {
    const uint64_t v = varint(what);
    if (v > std::numeric_limits<uint32_t>::max()) fail(std::string(what) + " " + std::to_string(v) + " exceeds 2^32 - 1");
    return static_cast<uint32_t>(v);
  }
  std::string string(const char* what) {
    const uint64_t n = varint(what);
    if (n > left()) {
      fail(std::string("truncated in ") + what + " (length " + std::to_string(n) + ")");
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    return s;
  }
};

// A record tag as printed in an error: the letter when it is one, else its hex value.
std::string tag_name(uint8_t tag) {
  if ((tag >= 'A' && tag <= 'Z') || (tag >= 'a' && tag <= 'z')) return std::string("'") + char(tag) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", tag);
  return buf;
}

bool valid_width(int w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

}  // namespace

// --- writer -----------------------------------------------------------------------------------
TraceWriter::TraceWriter(bool header) {
  if (!header) return;
  out_.insert(out_.end(), kTraceMagic, kTraceMagic + 8);
  put_u32(out_, kTraceVersion);
}

void TraceWriter::record(uint8_t tag, const std::vector<uint8_t>& payload) {
  out_.push_back(tag);
  put_varint(out_, payload.size());
  out_.insert(out_.end(), payload.begin(), payload.end());
}

void TraceWriter::launch(const TraceLaunch& l) {
  flush();
  std::vector<uint8_t> b;
  put_varint(b, l.launch);
  put_string(b, l.kernel);
  for (uint32_t g : l.grid) put_varint(b, g);
  for (uint32_t t : l.block) put_varint(b, t);
  put_varint(b, l.shared_bytes);
  put_varint(b, l.reserved_bytes);
  put_varint(b, l.blocks_traced);
  record('K', b);
}

void TraceWriter::pc(const TracePc& pc) {
  flush();
  std::vector<uint8_t> b;
  put_varint(b, pc.index);
  put_varint(b, pc.pc);
  b.push_back(static_cast<uint8_t>(pc.kind));
  put_varint(b, static_cast<uint64_t>(pc.width));
  put_string(b, pc.opcode);
  put_string(b, pc.file);
  put_varint(b, pc.line);
  record('P', b);
}

void TraceWriter::warp(const TraceWarp& w) {
  put_varint(warps_, w.block);
  put_varint(warps_, w.warp);
  put_varint(warps_, w.pc_index);
  put_u32(warps_, w.mask);
  ++warp_count_;
  if (w.mask == 0) return;
  // Active lanes in lane order; a constant step between consecutive ones (the common case: rows,
  // columns, broadcasts) is stored once.
  std::array<uint32_t, kWarpSize> a{};
  int n = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (w.mask >> lane & 1u) a[n++] = w.addr[lane];
  put_varint(warps_, a[0]);
  const int64_t stride = n > 1 ? int64_t{a[1]} - int64_t{a[0]} : 0;
  bool uniform = true;
  for (int k = 2; k < n && uniform; ++k) uniform = int64_t{a[k]} - int64_t{a[k - 1]} == stride;
  warps_.push_back(uniform ? 0 : 1);
  if (uniform) {
    put_zvarint(warps_, stride);
  } else {
    for (int k = 1; k < n; ++k) put_zvarint(warps_, int64_t{a[k]} - int64_t{a[k - 1]});
  }
  // Keep records to about 1 MiB so a reader never holds much more than one.
  if (warps_.size() > (1u << 20)) flush();
}

void TraceWriter::flush() {
  if (warp_count_ == 0) return;
  std::vector<uint8_t> b;
  put_varint(b, warp_count_);
  b.insert(b.end(), warps_.begin(), warps_.end());
  record('W', b);
  warps_.clear();
  warp_count_ = 0;
}

void TraceWriter::launch_end(const TraceLaunchEnd& e) {
  flush();
  std::vector<uint8_t> b;
  put_varint(b, e.launch);
  put_varint(b, e.executions);
  put_varint(b, e.dropped);
  put_varint(b, static_cast<uint64_t>(e.status));
  record('E', b);
}

void TraceWriter::end(const TraceEnd& e) {
  flush();
  std::vector<uint8_t> b;
  put_varint(b, e.launches);
  put_zvarint(b, e.exit_code);
  record('Z', b);
}

std::vector<uint8_t> TraceWriter::take() {
  std::vector<uint8_t> r;
  r.swap(out_);
  return r;
}

// --- reader -----------------------------------------------------------------------------------
Result<TraceSummary> read_trace(const uint8_t* data, size_t size, TraceSink& sink) {
  Cursor c{data, data + size, data, {}};
  if (size < 12 || std::memcmp(data, kTraceMagic, 8) != 0) {
    return Error{"trace: not a bankscope trace (no BSTRACE header)"};
  }
  c.p += 8;
  const uint32_t version = c.u32("version");
  if (version != kTraceVersion) {
    return Error{"trace: version " + std::to_string(version) + " (this reader reads version " +
                 std::to_string(kTraceVersion) + ")"};
  }

  TraceSummary sum;
  bool in_launch = false;
  TraceLaunch cur;
  std::vector<TracePc> pcs;
  TraceWarp w;
  while (c.ok() && c.p != c.end) {
    if (sum.complete) {
      c.fail("data after the end-of-file record");
      break;
    }
    const size_t rec_at = c.offset();
    const uint8_t tag = c.u8("record tag");
    const uint64_t len = c.varint("record length");
    if (!c.ok()) break;
    if (len > c.left()) {
      c.fail("record " + tag_name(tag) + " at byte " + std::to_string(rec_at) +
             " needs " + std::to_string(len) + " bytes, " + std::to_string(c.left()) + " left (truncated file)");
      break;
    }
    Cursor r{c.p, c.p + len, data, {}};
    c.p += len;
    switch (tag) {
      case 'K': {
        if (in_launch) r.fail("launch " + std::to_string(cur.launch) + " has no end record before the next launch");
        cur = TraceLaunch{};
        cur.launch = r.varint("launch index");
        cur.kernel = r.string("kernel name");
        for (auto& g : cur.grid) g = r.varint32("grid size");
        for (auto& t : cur.block) t = r.varint32("block size");
        cur.shared_bytes = r.varint("shared bytes");
        cur.reserved_bytes = r.varint("reserved bytes");
        cur.blocks_traced = r.varint("blocks traced");
        if (r.ok()) {
          uint64_t threads = uint64_t{cur.block[0]} * cur.block[1] * cur.block[2];
          if (threads == 0 || threads > 1024) r.fail("block of " + std::to_string(threads) + " threads (1..1024)");
        }
        if (!r.ok()) break;
        in_launch = true;
        pcs.clear();
        ++sum.launches;
        sink.on_launch(cur);
        break;
      }
      case 'P': {
        if (!in_launch) {
          r.fail("instruction record outside a launch");
          break;
        }
        TracePc pc;
        pc.index = r.varint32("pc index");
        pc.pc = r.varint("pc");
        const uint8_t kind = r.u8("op kind");
        const uint64_t width = r.varint("width");
        pc.opcode = r.string("opcode");
        pc.file = r.string("source file");
        pc.line = r.varint32("source line");
        if (!r.ok()) break;
        if (pc.index != pcs.size()) {
          r.fail("pc index " + std::to_string(pc.index) + " out of order (expected " + std::to_string(pcs.size()) + ")");
          break;
        }
        if (kind >= kTraceOpKinds) {
          r.fail("op kind " + std::to_string(kind) + " unknown");
          break;
        }
        pc.kind = static_cast<TraceOpKind>(kind);
        if (width > 16 || !valid_width(static_cast<int>(width))) {
          r.fail("width " + std::to_string(width) + " at pc " + std::to_string(pc.pc) + " (1, 2, 4, 8 or 16)");
          break;
        }
        pc.width = static_cast<int>(width);
        pcs.push_back(pc);
        sink.on_pc(pcs.back());
        break;
      }
      case 'W': {
        if (!in_launch) {
          r.fail("warp record outside a launch");
          break;
        }
        const uint64_t count = r.varint("warp count");
        // Each execution takes at least 7 bytes, so a count the record cannot hold is corrupt.
        if (count > r.left() / 7 + 1) {
          r.fail("warp count " + std::to_string(count) + " larger than the record can hold");
          break;
        }
        for (uint64_t i = 0; i < count && r.ok(); ++i) {
          w.block = r.varint32("block");
          w.warp = r.varint32("warp");
          w.pc_index = r.varint32("pc index");
          w.mask = r.u32("active mask");
          if (!r.ok()) break;
          if (w.pc_index >= pcs.size()) {
            r.fail("execution refers to pc index " + std::to_string(w.pc_index) + ", " + std::to_string(pcs.size()) +
                   " declared");
            break;
          }
          const TracePc& pc = pcs[w.pc_index];
          if (w.mask != 0) {
            const uint64_t base = r.varint("base address");
            const uint8_t mode = r.u8("address mode");
            if (mode > 1) {
              r.fail("address mode " + std::to_string(mode) + " unknown");
              break;
            }
            int64_t a = static_cast<int64_t>(base > 0xffffffffu ? 0x100000000u : base);
            const int64_t stride = mode == 0 ? r.zvarint("stride") : 0;
            // width is a power of two (checked with its 'P' record): alignment is a mask test.
            const int64_t align = pc.width - 1;
            const int64_t top = int64_t{0xffffffffu} - pc.width;
            // A stride is bounded to +-2^33 so 32 steps of it cannot overflow int64.
            if (mode == 0 && (stride > (int64_t{1} << 33) || stride < -(int64_t{1} << 33))) {
              r.fail("stride " + std::to_string(stride) + " out of range");
              break;
            }
            // The common case, a full warp evenly spaced: the first and last lane bound all others.
            const int64_t last = a + 31 * stride;
            if (r.ok() && mode == 0 && w.mask == 0xffffffffu && a >= 0 && a <= top && last >= 0 && last <= top &&
                (a & align) == 0 && (stride & align) == 0) {
              for (int lane = 0; lane < kWarpSize; ++lane) w.addr[lane] = static_cast<uint32_t>(a + lane * stride);
              w.even = stride < (int64_t{1} << 26) && stride > -(int64_t{1} << 26);
              w.stride = static_cast<int32_t>(w.even ? stride : 0);
              ++sum.executions;
              sink.on_warp(w, pc);
              w.even = false;
              w.stride = 0;
              continue;
            }
            bool first = true;
            for (int lane = 0; lane < kWarpSize; ++lane) {
              if (!(w.mask >> lane & 1u)) continue;
              if (!first) {
                if (mode == 0) {
                  a += stride;
                } else {
                  const int64_t d = r.zvarint("address delta");
                  if (!r.ok()) break;
                  a = d > top || d < -top ? -1 : a + d;
                }
              }
              first = false;
              if (a < 0 || a > top || (a & align) != 0) {
                if (a < 0 || a > top) {
                  r.fail("lane " + std::to_string(lane) + " address " + std::to_string(a) + " outside 0..2^32-1");
                } else {
                  r.fail("lane " + std::to_string(lane) + " address " + std::to_string(a) +
                         " not aligned to its width " + std::to_string(pc.width) + " (pc " + std::to_string(pc.pc) + ")");
                }
                break;
              }
              w.addr[lane] = static_cast<uint32_t>(a);
            }
          }
          if (!r.ok()) break;
          ++sum.executions;
          sink.on_warp(w, pc);
        }
        if (r.ok() && r.left() != 0) r.fail("warp record has " + std::to_string(r.left()) + " bytes left over");
        break;
      }
      case 'E': {
        TraceLaunchEnd e;
        e.launch = r.varint("launch index");
        e.executions = r.varint("executions");
        e.dropped = r.varint("dropped");
        const uint64_t st = r.varint("status");
        if (!r.ok()) break;
        if (!in_launch || e.launch != cur.launch) {
          r.fail("end of launch " + std::to_string(e.launch) + " without its start");
          break;
        }
        if (st > 3) {
          r.fail("launch status " + std::to_string(st) + " unknown");
          break;
        }
        e.status = static_cast<TraceStatus>(st);
        sum.dropped += e.dropped;
        in_launch = false;
        sink.on_launch_end(e);
        break;
      }
      case 'Z': {
        TraceEnd e;
        e.launches = r.varint("launch count");
        e.exit_code = r.zvarint("exit code");
        if (!r.ok()) break;
        if (in_launch) {
          r.fail("file ends inside launch " + std::to_string(cur.launch));
          break;
        }
        sum.complete = true;
        sink.on_end(e);
        break;
      }
      default:
        break;  // a record of a later minor version: skipped whole
    }
    if (!r.ok()) return Error{r.error};
  }
  if (!c.ok()) return Error{c.error};
  if (!sum.complete) {
    return Error{"trace: truncated at byte " + std::to_string(size) + " (no end-of-file record" +
                 (in_launch ? ", inside launch " + std::to_string(cur.launch) : std::string()) +
                 "; the program or the tracer stopped early)"};
  }
  return sum;
}

}  // namespace bankscope
