// trace.cpp: the trace writer, the trace file's reading into memory, and read_trace(), the reader
// (trace_read.hpp) for any sink (format in trace.hpp).
#include "trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "trace_read.hpp"

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
size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}
size_t zvarint_size(int64_t v) { return varint_size((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
void put_u32(std::vector<uint8_t>& o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_string(std::vector<uint8_t>& o, const std::string& s) {
  put_varint(o, s.size());
  o.insert(o.end(), s.begin(), s.end());
}
}  // namespace


// --- writer -----------------------------------------------------------------------------------
TraceWriter::TraceWriter(bool header, uint32_t version) : version_(version) {
  if (!header) return;
  out_.reserve(12);
  out_.assign(kTraceMagic, kTraceMagic + 8);
  put_u32(out_, version);
}

void TraceWriter::record(uint8_t tag, const std::vector<uint8_t>& payload) {
  out_.push_back(tag);
  put_varint(out_, payload.size());
  out_.insert(out_.end(), payload.begin(), payload.end());
}

void TraceWriter::launch(const TraceLaunch& l) {
  flush();
  addr_history_.clear();  // pc indices are a launch's own
  src_history_.clear();
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
  if (!pc.guard.empty()) put_string(b, pc.guard);
  record('P', b);
}

namespace {
// The lanes of `mask` (at least one) as an execution stores them: their base and mode, and the
// mode's bytes into `o`. Sources are stored so too.
void encode_lanes(std::vector<uint8_t>& o, uint32_t mask, const std::array<uint32_t, kWarpSize>& addr,
                  uint32_t version, TraceWriter::LaneHistory* history, uint32_t& base, uint8_t& mode) {
  // Active lanes in lane order; a constant step between consecutive ones (the common case: rows,
  // columns, broadcasts) is stored once.
  std::array<uint32_t, kWarpSize> a{};
  int n = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (mask >> lane & 1u) a[n++] = addr[lane];
  // The offsets from the first active lane, against the previous execution's (mode 4), and kept
  // for the next one.
  bool repeat = false;
  if (history != nullptr) {
    TraceWriter::LaneHistory& h = *history;
    repeat = h.valid && h.mask == mask;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const int64_t off = mask >> lane & 1u ? int64_t{addr[lane]} - int64_t{a[0]} : 0;
      repeat = repeat && off == h.off[static_cast<size_t>(lane)];
      h.off[static_cast<size_t>(lane)] = off;
    }
    h.valid = true;
    h.mask = mask;
  }
  const int64_t stride = n > 1 ? int64_t{a[1]} - int64_t{a[0]} : 0;
  bool uniform = true;
  for (int k = 2; k < n && uniform; ++k) uniform = int64_t{a[k]} - int64_t{a[k - 1]} == stride;
  // Version 4 takes mode 4 first (a repeat costs nothing to store, and a reader takes it without
  // its lanes: TraceSink::on_repeat()); version 3 took evenly spaced lanes as mode 0 first.
  if (version >= 4 && repeat) {
    base = a[0];
    mode = 4;
    return;
  }
  if (uniform) {
    base = a[0];
    mode = 0;
    put_zvarint(o, stride);
    return;
  }
  if (version >= 3 && repeat) {
    base = a[0];
    mode = 4;
    return;
  }
  // Scattered lanes: the smallest of the deltas (mode 1) and the fixed-size offsets (modes 2, 3).
  size_t delta_bytes = varint_size(a[0]);
  uint32_t lo = a[0], hi = a[0];
  for (int k = 1; k < n; ++k) {
    delta_bytes += zvarint_size(int64_t{a[k]} - int64_t{a[k - 1]});
    lo = std::min(lo, a[k]);
    hi = std::max(hi, a[k]);
  }
  uint32_t spread = 0;  // every bit any lane's distance from lo has
  for (int k = 0; k < n; ++k) spread |= a[k] - lo;
  const int shift = std::min(__builtin_ctz(spread), 4);  // spread != 0: the lanes are not all equal
  const uint32_t span = (hi - lo) >> shift;
  const int off_bytes = span < 256 ? 1 : span < 65536 ? 2 : 0;
  const size_t packed_bytes = varint_size(lo) + 1 + static_cast<size_t>(n * off_bytes);
  // Packed unless the deltas are smaller by more than an eighth: a few bytes buy a decode without
  // a branch per lane (a GEMM's lane groups: 35 bytes packed against 33 of deltas).
  if (version >= 2 && off_bytes != 0 && packed_bytes <= delta_bytes + delta_bytes / 8) {
    base = lo;
    mode = off_bytes == 1 ? 2 : 3;
    o.push_back(static_cast<uint8_t>(shift));
    for (int k = 0; k < n; ++k) {
      const uint32_t off = (a[k] - lo) >> shift;
      o.push_back(static_cast<uint8_t>(off));
      if (off_bytes == 2) o.push_back(static_cast<uint8_t>(off >> 8));
    }
  } else {
    base = a[0];
    mode = 1;
    for (int k = 1; k < n; ++k) put_zvarint(o, int64_t{a[k]} - int64_t{a[k - 1]});
  }
}

// Versions 1 to 3: base:varint mode:u8 and the mode's bytes.
void put_lanes(std::vector<uint8_t>& o, uint32_t mask, const std::array<uint32_t, kWarpSize>& addr,
               uint32_t version, TraceWriter::LaneHistory* history) {
  std::vector<uint8_t> body;
  uint32_t base = 0;
  uint8_t mode = 0;
  encode_lanes(body, mask, addr, version, history, base, mode);
  put_varint(o, base);
  o.push_back(mode);
  o.insert(o.end(), body.begin(), body.end());
}

// A version 4 field of n bytes.
void put_fixed(std::vector<uint8_t>& o, uint32_t v, int n) {
  for (int i = 0; i < n; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
int fixed_bytes(uint32_t v) { return v < 0x100u ? 1 : v < 0x10000u ? 2 : v < 0x1000000u ? 3 : 4; }
}  // namespace

void TraceWriter::warp(const TraceWarp& w) {
  if (version_ >= 4) {
    warp_v4(w);
    return;
  }
  put_varint(warps_, w.block);
  put_varint(warps_, w.warp);
  put_varint(warps_, w.pc_index);
  put_u32(warps_, w.mask);
  ++warp_count_;
  if (w.mask == 0) return;
  // A pc index of 2^20 or more (no kernel has so many shared-memory instructions; the writer does
  // not check its indices) keeps no history: its lanes are stored in full, never as mode 4.
  LaneHistory* ah = nullptr;
  LaneHistory* sh = nullptr;
  if (w.pc_index < (1u << 20)) {
    if (w.pc_index >= addr_history_.size()) {
      addr_history_.resize(size_t{w.pc_index} + 1);
      src_history_.resize(size_t{w.pc_index} + 1);
    }
    ah = &addr_history_[w.pc_index];
    sh = &src_history_[w.pc_index];
  }
  put_lanes(warps_, w.mask, w.addr, version_, ah);
  if (w.has_src) {
    put_varint(sources_, warp_count_ - 1);
    put_lanes(sources_, w.mask, w.src, version_, sh);
    ++source_count_;
  }
  // Keep records to about 1 MiB so a reader never holds much more than one.
  if (warps_.size() + sources_.size() > (1u << 20)) flush();
}

void TraceWriter::warp_v4(const TraceWarp& w) {
  Pending e;
  e.block = w.block;
  e.warp = w.warp;
  e.pc_index = w.pc_index;
  e.mask = w.mask;
  e.at = static_cast<uint32_t>(bodies_.size());
  if (w.mask != 0xffffffffu) e.ctl |= 8;
  if (w.mask != 0) {
    LaneHistory* ah = nullptr;
    LaneHistory* sh = nullptr;
    if (w.pc_index < (1u << 20)) {  // as in version 3
      if (w.pc_index >= addr_history_.size()) {
        addr_history_.resize(size_t{w.pc_index} + 1);
        src_history_.resize(size_t{w.pc_index} + 1);
      }
      ah = &addr_history_[w.pc_index];
      sh = &src_history_[w.pc_index];
    }
    uint8_t mode = 0;
    encode_lanes(bodies_, w.mask, w.addr, version_, ah, e.base, mode);
    e.ctl |= mode;
    e.src_at = static_cast<uint32_t>(bodies_.size());
    if (w.has_src) {
      encode_lanes(bodies_, w.mask, w.src, version_, sh, e.src_base, mode);
      e.ctl |= static_cast<uint8_t>(16 | mode << 5);
    }
  } else {
    e.src_at = e.at;
  }
  e.end = static_cast<uint32_t>(bodies_.size());
  pending_.push_back(e);
  ++warp_count_;
  // Keep records to about 1 MiB, as version 3 does (an execution's fixed fields: at most 25 bytes).
  if (bodies_.size() + 25 * pending_.size() > (1u << 20)) flush();
}

void TraceWriter::flush_v4() {
  // The narrowest width of each field that holds every execution's in this record.
  uint32_t block = 0, warp = 0, pci = 0, base = 0;
  for (const Pending& e : pending_) {
    block |= e.block;
    warp |= e.warp;
    pci |= e.pc_index;
    base |= e.base;
  }
  const int bw = fixed_bytes(block), ww = fixed_bytes(warp), pw = fixed_bytes(pci), aw = fixed_bytes(base);
  std::vector<uint8_t> b;
  b.reserve(bodies_.size() + 16 * pending_.size() + 16);
  put_varint(b, pending_.size());
  b.push_back(static_cast<uint8_t>((bw - 1) | (ww - 1) << 2 | (pw - 1) << 4 | (aw - 1) << 6));
  for (const Pending& e : pending_) {
    b.push_back(e.ctl);
    put_fixed(b, e.block, bw);
    put_fixed(b, e.warp, ww);
    put_fixed(b, e.pc_index, pw);
    if (e.ctl & 8) put_u32(b, e.mask);
    if (e.mask == 0) continue;
    put_fixed(b, e.base, aw);
    b.insert(b.end(), bodies_.begin() + e.at, bodies_.begin() + e.src_at);
    if (e.ctl & 16) {
      put_u32(b, e.src_base);
      b.insert(b.end(), bodies_.begin() + e.src_at, bodies_.begin() + e.end);
    }
  }
  record('W', b);
  pending_.clear();
  bodies_.clear();
  warp_count_ = 0;
}

void TraceWriter::flush() {
  if (warp_count_ == 0) return;
  if (version_ >= 4) {
    flush_v4();
    return;
  }
  std::vector<uint8_t> b;
  if (source_count_ != 0) {  // 'S' first: the reader attaches it to the 'W' that follows
    put_varint(b, source_count_);
    b.insert(b.end(), sources_.begin(), sources_.end());
    record('S', b);
    b.clear();
    sources_.clear();
    source_count_ = 0;
  }
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
namespace {
// A growable byte buffer whose new bytes are left uninitialised (they are read into at once);
// its capacity doubles, as a vector's does, so that a pipe read in chunks is copied O(n) times.
struct RawBuffer {
  std::unique_ptr<uint8_t[]> p;
  size_t n = 0, cap = 0;
  void resize(size_t m) {
    if (m > cap) {
      const size_t c = std::max(m, 2 * cap);
      std::unique_ptr<uint8_t[]> q(new uint8_t[c]);  // default-initialised: no zero fill
      if (n > 0) std::memcpy(q.get(), p.get(), n);
      p = std::move(q);
      cap = c;
    }
    n = m;
  }
  uint8_t* data() { return p.get(); }
};

// The whole file into `Buf` (std::vector<uint8_t> or RawBuffer): one read for a regular file,
// chunks for a pipe or a device.
template <class Buf>
Result<Buf> read_whole_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{"cannot open the trace file: it is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the trace file"};
  Buf bytes;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
  if (regular && !ec) {
    bytes.resize(static_cast<size_t>(size));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (static_cast<uintmax_t>(in.gcount()) != size) return Error{"cannot read the trace file"};
    return bytes;
  }
  constexpr size_t kChunk = size_t{1} << 20;
  size_t n = 0;
  do {
    bytes.resize(n + kChunk);
    in.read(reinterpret_cast<char*>(bytes.data() + n), static_cast<std::streamsize>(kChunk));
    n += static_cast<size_t>(in.gcount());
  } while (in);
  if (in.bad()) return Error{"cannot read the trace file"};
  bytes.resize(n);
  return bytes;
}
}  // namespace

Result<std::vector<uint8_t>> read_trace_file(const std::string& path) {
  return read_whole_file<std::vector<uint8_t>>(path);
}

Result<TraceFileBuffer> read_trace_file_buffer(const std::string& path) {
  auto raw = read_whole_file<RawBuffer>(path);
  if (!raw) return raw.error();
  return TraceFileBuffer{std::move(raw->p), raw->n};
}

Result<TraceSummary> read_trace(const uint8_t* data, size_t size, TraceSink& sink) {
  return trace_read::read_trace_as(data, size, sink);
}

Result<std::vector<uint8_t>> rewrite_trace(const uint8_t* data, size_t size) {
  struct Copy : TraceSink {
    TraceWriter out;
    void on_launch(const TraceLaunch& l) override { out.launch(l); }
    void on_pc(const TracePc& p) override { out.pc(p); }
    void on_warp(const TraceWarp& w, const TracePc&) override { out.warp(w); }
    void on_launch_end(const TraceLaunchEnd& e) override { out.launch_end(e); }
    void on_end(const TraceEnd& e) override { out.end(e); }
  } copy;
  auto s = read_trace(data, size, copy);
  if (!s) return s.error();
  std::vector<uint8_t> out = copy.out.take();
  // Read back before anyone saves it (bankscope-cli upgrade may replace the original): a writer
  // bug must not turn a readable trace into one that is not.
  TraceSink none;
  auto back = read_trace(out.data(), out.size(), none);
  if (!back) return Error{"trace: the rewritten trace does not read back (" + back.error().message + ")"};
  return out;
}

}  // namespace bankscope
