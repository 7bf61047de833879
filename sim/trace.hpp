// trace.hpp: the trace file format (bankscope-gpu trace writes it, everything else reads it) and its
// streaming reader. Pure C++17: a trace recorded on a GPU machine opens anywhere.
//
// A trace is what a compiled kernel actually did: per warp-level execution of a shared-memory
// instruction, the lanes that were active and the byte offset in shared memory each one touched.
//
// Format, version 4 (all integers little-endian; "varint" = unsigned LEB128, at most 10 bytes;
// "zvarint" = zigzag-encoded signed varint; "string" = varint length + bytes). Version 4 changes
// only the 'W' record and drops 'S' (see "Version 4" below); versions 1 to 3 are written out here:
//
//   file    := "BSTRACE\0" version:u32 record*
//   record  := tag:u8 length:varint payload[length]        (unknown tags are skipped)
//
//   'K' launch begin: launch:varint kernel:string grid_x,y,z:varint block_x,y,z:varint
//                     shared_bytes:varint reserved_bytes:varint blocks_traced:varint (0 = all)
//   'P' instruction (once per PC per launch, before its first execution):
//                     index:varint pc:varint kind:u8 width:varint opcode:string file:string line:varint
//                     [guard:string, only when the SASS instruction has one: "@P0", "@!P3"]
//   'W' warp executions: count:varint, then per execution
//                     block:varint warp:varint pc_index:varint mask:u32
//                     and if mask != 0: base:varint mode:u8 then
//                       mode 0: stride:zvarint            lane k's address = base + k' * stride
//                                                         (k' = rank of lane k among active lanes)
//                       mode 1: per active lane after the first, delta:zvarint from the previous one
//                       mode 2: shift:u8 (0..4), then per active lane off:u8   address = base + off << shift
//                       mode 3: shift:u8 (0..4), then per active lane off:u16  address = base + off << shift
//                       mode 4: nothing more: lane k's address = base + (lane k's address - the first
//                               active lane's) in the previous execution of the same pc index in this
//                               launch that had lanes, whose mask must be this one (version 3); the
//                               sum is exact, and every lane must be in range as in the other modes
//   'S' global sources of the next 'W' record's executions (LDGSTS: cp.async reads global memory):
//                     count:varint, then per entry exec:varint lanes
//                     exec = the execution's index within the next 'W' record (strictly increasing,
//                     below that record's count; the execution's mask is not 0), lanes = its active
//                     lanes' source addresses (the low 32 bits of each lane's global byte address)
//                     encoded as a 'W' execution's addresses are: base:varint mode:u8 ..., for the
//                     lanes of that execution's mask, aligned to its instruction's width (mode 4: as
//                     the previous entry of the same pc index in this launch). The 'W'
//                     record must follow the 'S' at once. Written only for executions that have
//                     sources (TraceWarp::has_src); a reader of version 2 without 'S' skips it.
//   'E' launch end:   launch:varint executions:varint dropped:varint status:varint (TraceStatus)
//   'Z' end of file:  launches:varint exit_code:zvarint
//
// Version 1 is version 2 without modes 2 and 3; the reader reads both. Modes 2 and 3 (version 2)
// exist for speed: a warp whose lanes are scattered (neither a row nor a column) costs in mode 1 one
// varint per lane, 2-3 bytes of unpredictable length for offsets spread over 48 KiB, and decoding
// them was most of `report`'s time (measured: 5.9 M warps/s, decoding alone). A fixed-size offset
// per lane decodes without a branch per lane, and is mostly smaller: the writer takes mode 2 or 3
// unless mode 1 is smaller by more than an eighth. shift is the largest power of two (at most 16) that
// divides every lane's distance from base, so 2-byte offsets span 1 MiB for 16-byte accesses and
// 256 KiB for 4-byte ones: all of an sm_90 block's shared memory.
//
// Version 3 adds mode 4 and nothing else (its reader read versions 1 to 3). Mode 4 exists for speed
// and size: a kernel's instruction mostly repeats one lane pattern at another base (every warp of a
// GEMM's fragment load and cp.async, every k step: 84-100% of the executions of the H200 corpus's
// cuBLAS, PyTorch and GEMM traces repeat the previous execution of their PC), and in mode 1 those
// cost a varint per lane to store and to decode. The writer takes mode 0 when the lanes are evenly
// spaced, else mode 4 when they repeat, else the smallest of modes 1-3 as above. The reader marks
// an execution whose lanes it knows repeat the previous one's offsets (TraceWarp::same_offsets), so
// that a consumer can reuse what it derived from them.
//
// Version 4 ('W' of version 4; 'S' is an error in a version 4 file, its sources are in 'W'):
//
//   'W' warp executions: count:varint widths:u8, then per execution
//                     ctl:u8 block:[b] warp:[w] pc_index:[p] [mask:u32, when ctl bit 3; else 0xffffffff]
//                     and if mask != 0: base:[a] then the lanes' mode's bytes (as above, after the
//                     mode byte), and when ctl bit 4: source:u32 then the sources' mode's bytes
//                     widths: bits 0-1, 2-3, 4-5, 6-7 = bytes - 1 of block, warp, pc_index and base
//                       (1 to 4 each, little-endian: the record's widest value of each decides)
//                     ctl: bits 0-2 the lanes' mode (0-4; 0 with a mask of 0), bit 3 the mask is
//                       stored, bit 4 sources follow (not with a mask of 0), bits 5-7 the sources'
//                       mode (0-4; 0 without sources). base and source are the mode's base (mode 0,
//                       1, 4: the first active lane's; 2, 3: the lowest). Sources' mode 4 refers to
//                       the pc index's previous execution with sources in the launch, as in 'S'.
//
// Version 4 exists for speed: in version 3 an execution's head was five varints and a u32 mask
// (about 13 bytes for a repeat), and decoding those varints, a branch on each byte's length, was
// about 60 of `report`'s 416 instructions per cuBLAS SGEMM execution; an 'S' entry was a second
// cursor, an index varint and a base varint (callgrind). Fixed widths per record decode with three
// loads and masks; a full mask, nearly every execution, costs one bit; cp.async sources sit with
// their execution. The writer takes mode 4 first in version 4 (a repeat, evenly spaced or not,
// costs nothing to store, and a sink can take it without its lanes: TraceSink::on_repeat()), then
// mode 0, then the smallest of modes 1-3; the reader reads versions 1 to 4.
//
// 'S' keeps the version at 2: it is an unknown tag to older readers, which skip it and read the
// shared addresses as before. R9 (sim/ldgsts.hpp) needs the sources to cost an LDGSTS: the cost of
// its shared side depends on the banks, lines and sectors the lanes read from (measured on the H200).
//
// Addresses are offsets in the block's shared window as the Compute Sanitizer API reports them: they
// include `reserved_bytes` (1 KiB per block on sm_90, measured on the H200) before the program's own
// shared memory. A file without its 'Z' record, or a launch without its 'E', was cut short.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bank_math.hpp"
#include "status.hpp"

namespace bankscope {

inline constexpr char kTraceMagic[8] = {'B', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint32_t kTraceVersion = 4;       // what TraceWriter writes
inline constexpr uint32_t kTraceOldestVersion = 1;  // the oldest read_trace() reads

// What a traced instruction does to shared memory.
enum class TraceOpKind : uint8_t {
  kLoad = 0,      // LDS, or a generic LD whose address is in shared memory
  kStore = 1,     // STS, or a generic ST to shared memory
  kAtomic = 2,    // ATOMS / RED to shared memory
  kLdsm = 3,      // LDSM (ldmatrix): one 16-byte row address per lane
  kStsm = 4,      // STSM (stmatrix)
  kLdgsts = 5,    // LDGSTS (cp.async): the shared side
  kOther = 6,
};
inline constexpr int kTraceOpKinds = 7;
const char* trace_op_kind_name(TraceOpKind k);
// The kinds the bank model covers (LDS/STS); the others are reported as not modelled.
inline bool is_modelled(TraceOpKind k) { return k == TraceOpKind::kLoad || k == TraceOpKind::kStore; }

enum class TraceStatus : uint8_t {
  kComplete = 0,         // every warp execution of the traced blocks is in the file
  kDropped = 1,          // the device buffer overflowed: `dropped` executions are missing
  kProgramExited = 2,    // the program ended before the launch finished
  kLaunchFailed = 3,     // the kernel returned an error
};
const char* trace_status_name(TraceStatus s);

struct TraceLaunch {
  uint64_t launch = 0;  // index among the program's kernel launches, 0-based
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint64_t shared_bytes = 0;    // static + dynamic shared memory of the launch
  uint64_t reserved_bytes = 0;  // offsets of the program's shared memory start here
  uint64_t blocks_traced = 0;   // 0 = all blocks
};

struct TracePc {
  TracePc() = default;
  // The fields in order, the guard optional (so that brace lists written before it stay complete).
  TracePc(uint32_t index_, uint64_t pc_, TraceOpKind kind_, int width_, std::string opcode_, std::string file_,
          uint32_t line_, std::string guard_ = {})
      : index(index_), pc(pc_), kind(kind_), width(width_), opcode(std::move(opcode_)), file(std::move(file_)),
        line(line_), guard(std::move(guard_)) {}
  uint32_t index = 0;
  uint64_t pc = 0;  // offset of the instruction in its function
  TraceOpKind kind = TraceOpKind::kLoad;
  int width = 4;  // bytes per lane
  std::string opcode;
  std::string file;
  uint32_t line = 0;  // 0 = unknown
  // The instruction's guard predicate as the SASS writes it ("@P0", "@!P3"), "" when it has none or
  // it is not known (set with the opcode by annotate_trace). Stored after the line, only when set,
  // so that a reader that predates it (which ignores the rest of a 'P' record) reads the file too.
  std::string guard;
};

struct TraceWarp {
  uint32_t block = 0;  // linear block index (x fastest)
  uint32_t warp = 0;   // warp in the block
  uint32_t pc_index = 0;
  uint32_t mask = 0;
  alignas(64) std::array<uint32_t, kWarpSize> addr{};  // for the lanes in mask
  // Set by the reader (ignored by the writer): all 32 lanes active and evenly spaced,
  // addr[i] = addr[0] + i * stride, |stride| < 2^26. Lets a consumer skip re-deriving it.
  bool even = false;
  int32_t stride = 0;
  // LDGSTS: each active lane's global source, the low 32 bits of its byte address (R9 reads only
  // the bank, sector and line bits). has_src: the trace carried them (an 'S' record in versions 2
  // and 3, the execution itself in version 4); a trace from an older tracer has none. The writer writes src for the lanes in mask when has_src is set.
  bool has_src = false;
  alignas(64) std::array<uint32_t, kWarpSize> src{};
  // Set by the reader (ignored by the writer), true only when the reader knows it without comparing
  // lanes (mode 4, or mode 0 with the previous stride): the active lanes sit at the same offsets
  // from the first active lane as in the previous execution of this pc index in this launch that
  // had lanes, with the same mask. src_same_offsets: the same of the sources, against the previous
  // execution of this pc index that had sources.
  bool same_offsets = false;
  bool src_same_offsets = false;
};

struct TraceLaunchEnd {
  uint64_t launch = 0;
  uint64_t executions = 0;
  uint64_t dropped = 0;
  TraceStatus status = TraceStatus::kComplete;
};

struct TraceEnd {
  uint64_t launches = 0;
  int64_t exit_code = 0;
};

// Receives a trace as it is decoded. Returning an Error stops the read with that message.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void on_launch(const TraceLaunch&) {}
  virtual void on_pc(const TracePc&) {}
  // `pc` is the instruction's record (already validated: width, alignment of every lane).
  virtual void on_warp(const TraceWarp&, const TracePc&) {}
  // A sink that says so (asked once per read) is offered first each execution that the reader knows
  // repeats the offsets of its pc index's previous execution with lanes (TraceWarp::same_offsets),
  // and whose sources, when it has any, likewise repeat (src_same_offsets), when it decodes it on
  // its fast path (mode 4 of a version 3 or 4 file): `w` with its block, warp, pc index, mask,
  // has_src and the two flags, but NOT its lanes or sources (left as they were); `first` = its first
  // active lane's address; with sources, `src_first` = that lane's source and `src_nonzero` = every
  // active lane's source is known to be above 0 (false: not known). Its lanes are valid (checked
  // as any). true = taken: counted as an execution, nothing more is sent; false = the reader writes
  // its lanes out and sends it to on_warp() as any other. For speed: a mode 4 execution's lanes are
  // its pattern's moved by one number, and a report that has costed the pattern at that residue
  // needs nothing more.
  virtual bool takes_repeats() const { return false; }
  virtual bool on_repeat(const TraceWarp& /*w*/, uint32_t /*first*/, uint32_t /*src_first*/, bool /*src_nonzero*/,
                         const TracePc&) {
    return false;
  }
  virtual void on_launch_end(const TraceLaunchEnd&) {}
  virtual void on_end(const TraceEnd&) {}
};

struct TraceSummary {
  uint64_t launches = 0;
  uint64_t executions = 0;
  uint64_t dropped = 0;
  bool complete = false;  // the 'Z' record was read
};

// Decodes a whole file held in memory. Errors are one line: "trace: byte N: what".
Result<TraceSummary> read_trace(const uint8_t* data, size_t size, TraceSink& sink);

// A trace file's bytes, read in one call (a byte-by-byte stream iterator was a quarter of
// `bankscope-cli report`'s instructions on a 6 MB trace, measured). Errors: "cannot open the trace
// file" (missing, unreadable, a directory) or "cannot read the trace file", without the path.
Result<std::vector<uint8_t>> read_trace_file(const std::string& path);

// The same bytes in a buffer that is not zero-filled before the file is read into it (a
// std::vector's is: 76 of `bankscope-cli report`'s 769 instructions per warp execution on a random
// trace, measured by callgrind, assets/results/cpu/report_profile.txt). For readers that only read.
struct TraceFileBuffer {
  std::unique_ptr<uint8_t[]> bytes;
  size_t size = 0;
  const uint8_t* data() const { return bytes.get(); }
};
Result<TraceFileBuffer> read_trace_file_buffer(const std::string& path);

// Builds the bytes of a trace (used by the tracer, the tests and the fuzz seeds).
class TraceWriter {
 public:
  // The lanes of a pc index's previous execution with lanes (or sources), for mode 4: each active
  // lane's offset from the first one, exact (not modulo 2^32: a source's low 32 bits may wrap
  // between two executions whose offsets agree modulo 2^32, and mode 4 adds exactly).
  struct LaneHistory {
    bool valid = false;
    uint32_t mask = 0;
    std::array<int64_t, kWarpSize> off{};  // 0 for inactive lanes
  };
  // Starts with the file header unless `header` is false (records appended to an existing file).
  // `version` 1 writes no mode 2 or 3, version 2 no mode 4 (for tests of the old versions' reader).
  explicit TraceWriter(bool header = true, uint32_t version = kTraceVersion);
  void launch(const TraceLaunch& l);
  void pc(const TracePc& p);
  // Buffers executions; flush() (or launch_end) writes them as one 'W' record, preceded by one 'S'
  // record when some have sources (has_src and a mask that is not 0).
  void warp(const TraceWarp& w);
  void flush();
  void launch_end(const TraceLaunchEnd& e);
  void end(const TraceEnd& e);
  // Bytes produced so far; take() hands them over and clears the buffer (for streaming to a file).
  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t> take();

 private:
  void record(uint8_t tag, const std::vector<uint8_t>& payload);
  std::vector<uint8_t> out_;
  std::vector<uint8_t> warps_;
  std::vector<uint8_t> sources_;  // the buffered executions' 'S' entries
  uint64_t source_count_ = 0;
  uint64_t warp_count_ = 0;
  uint32_t version_ = kTraceVersion;
  std::vector<LaneHistory> addr_history_, src_history_;  // per pc index of the current launch
  // Version 4: a record's executions, written when its fields' widths are known (flush()).
  struct Pending {
    uint32_t block = 0, warp = 0, pc_index = 0, mask = 0;
    uint8_t ctl = 0;
    uint32_t base = 0, src_base = 0;
    uint32_t at = 0, src_at = 0, end = 0;  // the lanes' mode bytes, then the sources', in bodies_
  };
  std::vector<Pending> pending_;
  std::vector<uint8_t> bodies_;
  void warp_v4(const TraceWarp& w);
  void flush_v4();
};

// The trace in `data` written again by this TraceWriter (the current version: mode 4 where lanes
// repeat), record for record the same launches, instructions, executions and ends; records of tags
// this reader does not know are dropped. For traces recorded by an older tracer. The result is read
// back before it is returned (an error, not a file, if it would not read).
Result<std::vector<uint8_t>> rewrite_trace(const uint8_t* data, size_t size);

}  // namespace bankscope
