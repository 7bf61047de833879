// injection.cpp: libbankscope_tracer.so, loaded into an unmodified CUDA program through
// CUDA_INJECTION64_PATH (the driver calls InitializeInjection). With NVIDIA's Compute Sanitizer API it
// patches every shared-memory instruction of each loaded module (patch.cu), gives the traced launches
// a device buffer, and after each traced launch drains the buffer into the trace file (sim/trace.hpp).
//
// Configuration (set by `bankscope-gpu trace`, see trace_command.cpp):
//   BANKSCOPE_TRACE_OUT       trace file (required)
//   BANKSCOPE_TRACE_PATCH     the patch fatbin (required)
//   BANKSCOPE_TRACE_KERNEL    ECMAScript regex on the kernel's demangled name; default all
//   BANKSCOPE_TRACE_LAUNCH    first matching launch traced, 0-based; default 0
//   BANKSCOPE_TRACE_LAUNCHES  matching launches traced; default all
//   BANKSCOPE_TRACE_BLOCKS    blocks traced per launch (linear index below N); default all
//   BANKSCOPE_TRACE_RECORDS   device buffer size in warp executions; default 4 M (640 MiB)
//   BANKSCOPE_TRACE_CUBINS    a directory: the cubin of each traced kernel's module is written
//                             there (module_<k>.cubin) and index.txt gets one line per traced
//                             launch, "<launch> <cubin file> <mangled name>", so that
//                             `bankscope-gpu trace` can read the SASS's opcodes and source lines
//
// The file gets each launch's 'K' record when it starts and its 'P', 'W', 'E' records when it ends,
// flushed at once: if the program dies inside a launch, `bankscope-gpu trace` finds the open launch
// and closes the file with the status "program exited" (the end-of-file record is its job too).
#include <cxxabi.h>
#include <sanitizer.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/trace.hpp"
#include "drain.hpp"
#include "trace_buffer.hpp"

namespace bankscope::tracer {
namespace {

// Offsets the API reports include the window the driver reserves before a block's shared memory:
// 1 KiB per block on sm_90 (documented in the Hopper tuning guide; seen in the traced offsets on
// the H200, GPU_FACTS.md).
constexpr uint64_t kReservedSharedBytes = 1024;

struct Config {
  std::string out, patch, kernel_regex, cubins;
  uint64_t first = 0, count = ~0ull, blocks = 0, records = 4ull << 20;
};

struct State {
  std::mutex mu;
  Config cfg;
  std::regex kernel_re;
  bool have_re = false;
  FILE* file = nullptr;
  TraceWriter writer;
  std::set<CUcontext> patched_contexts;
  uint64_t launches = 0;  // every launch of the program
  uint64_t matching = 0;  // launches whose kernel matched
  // The buffer, one per context, grown as needed.
  std::map<CUcontext, std::pair<void*, uint64_t>> buffers;
  // The launch in flight (the API calls LAUNCH_END on the launching thread; one traced at a time).
  bool tracing = false;
  TraceLaunch current;
  uint64_t function_pc = 0;
  void* device_buffer = nullptr;
  // Cubins of the loaded modules (copied: the callback's pointer is valid only inside it), written
  // out when one of their kernels is first traced. Only with BANKSCOPE_TRACE_CUBINS.
  std::map<CUmodule, std::vector<char>> module_bytes;
  std::map<CUmodule, std::string> module_file;
  FILE* cubin_index = nullptr;
};

State& state() {
  static State* s = new State;  // never destroyed: callbacks may come during exit
  return *s;
}

void warn(const std::string& what) { std::fprintf(stderr, "bankscope-tracer: %s\n", what.c_str()); }

bool check(SanitizerResult r, const char* call) {
  if (r == SANITIZER_SUCCESS) return true;
  const char* s = nullptr;
  sanitizerGetResultString(r, &s);
  warn(std::string(call) + " failed: " + (s ? s : "unknown error"));
  return false;
}

uint64_t env_u64(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0' || std::strcmp(v, "all") == 0) return def;
  return std::strtoull(v, nullptr, 10);
}

// Kernel names as ncu prints them with --kernel-name-base demangled (what --kernel matches).
std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string r = status == 0 && d != nullptr ? d : name;
  std::free(d);
  return r;
}

void write_out(State& s) {
  const std::vector<uint8_t> bytes = s.writer.take();
  if (s.file != nullptr && !bytes.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), s.file);
    std::fflush(s.file);
  }
}

void on_module_loaded(State& s, const Sanitizer_ResourceModuleData* m) {
  if (!s.cfg.cubins.empty() && m->pCubin != nullptr && m->cubinSize != 0) {
    s.module_bytes[m->module].assign(m->pCubin, m->pCubin + m->cubinSize);
    s.module_file.erase(m->module);  // a module handle reused after an unload is a new module
  }
  if (s.patched_contexts.insert(m->context).second) {
    if (!check(sanitizerAddPatchesFromFile(s.cfg.patch.c_str(), m->context), "sanitizerAddPatchesFromFile")) return;
  }
  check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, m->module, "bankscope_shared_access"),
        "sanitizerPatchInstructions(shared)");
  check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->module, "bankscope_global_access"),
        "sanitizerPatchInstructions(global)");
  check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, m->module, "bankscope_matrix_access"),
        "sanitizerPatchInstructions(matrix)");
  check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MEMCPY_ASYNC, m->module, "bankscope_memcpy_async"),
        "sanitizerPatchInstructions(memcpy_async)");
  check(sanitizerPatchModule(m->module), "sanitizerPatchModule");
}

// Writes the module's cubin once and names it in index.txt for this launch (see the header).
void note_cubin(State& s, CUmodule module, uint64_t launch, const std::string& mangled) {
  if (s.cfg.cubins.empty()) return;
  auto f = s.module_file.find(module);
  if (f == s.module_file.end()) {
    const auto b = s.module_bytes.find(module);
    if (b == s.module_bytes.end()) return;  // loaded before the subscription, or no cubin given
    const std::string name = "module_" + std::to_string(s.module_file.size()) + ".cubin";
    FILE* out = std::fopen((s.cfg.cubins + "/" + name).c_str(), "wb");
    if (out == nullptr) {
      warn("cannot write " + s.cfg.cubins + "/" + name);
      return;
    }
    const bool ok = std::fwrite(b->second.data(), 1, b->second.size(), out) == b->second.size();
    std::fclose(out);
    if (!ok) return;
    f = s.module_file.emplace(module, name).first;
  }
  if (s.cubin_index == nullptr) s.cubin_index = std::fopen((s.cfg.cubins + "/index.txt").c_str(), "w");
  if (s.cubin_index != nullptr) {
    std::fprintf(s.cubin_index, "%llu %s %s\n", static_cast<unsigned long long>(launch), f->second.c_str(),
                 mangled.c_str());
    std::fflush(s.cubin_index);
  }
}

void on_launch_begin(State& s, const Sanitizer_LaunchData* l) {
  const uint64_t index = s.launches++;
  const std::string mangled = l->functionName ? l->functionName : "?";
  const std::string name = demangle(mangled.c_str());
  bool traced = !s.have_re || std::regex_search(name, s.kernel_re);
  if (traced) {
    const uint64_t k = s.matching++;
    traced = k >= s.cfg.first && k - s.cfg.first < s.cfg.count;
  }
  if (!traced) {
    sanitizerSetCallbackData(l->function, nullptr);
    return;
  }
  // Buffer: header + records, zeroed header each launch.
  auto& buf = s.buffers[l->context];
  const uint64_t bytes = sizeof(DeviceBufferHeader) + s.cfg.records * sizeof(DeviceRecord);
  if (buf.first == nullptr) {
    if (!check(sanitizerAlloc(l->context, &buf.first, bytes), "sanitizerAlloc (trace buffer)")) {
      buf.first = nullptr;
      sanitizerSetCallbackData(l->function, nullptr);
      return;
    }
    buf.second = bytes;
  }
  DeviceBufferHeader h{};
  h.capacity = s.cfg.records;
  h.block_limit = s.cfg.blocks == 0 ? ~0ull : s.cfg.blocks;
  h.valid_end = h.capacity;
  static DeviceBufferHeader staged;  // the async copy reads it after this function returns
  staged = h;
  check(sanitizerMemcpyHostToDeviceAsync(buf.first, &staged, sizeof staged, l->hStream), "sanitizerMemcpyHostToDeviceAsync");
  check(sanitizerSetCallbackData(l->function, buf.first), "sanitizerSetCallbackData");

  s.tracing = true;
  s.device_buffer = buf.first;
  s.current = TraceLaunch{};
  s.current.launch = index;
  s.current.kernel = name;
  s.current.grid = {l->gridDim_x, l->gridDim_y, l->gridDim_z};
  s.current.block = {l->blockDim_x, l->blockDim_y, l->blockDim_z};
  s.current.shared_bytes = 0;  // not given by the launch callback: 0 = unknown
  s.current.reserved_bytes = kReservedSharedBytes;
  s.current.blocks_traced = s.cfg.blocks;
  uint64_t size = 0;
  s.function_pc = 0;
  if (sanitizerGetFunctionPcAndSize(l->module, mangled.c_str(), &s.function_pc, &size) != SANITIZER_SUCCESS) {
    s.function_pc = 0;  // PCs stay absolute
  }
  s.writer.launch(s.current);
  write_out(s);
  note_cubin(s, l->module, index, mangled);
}

void on_launch_end(State& s, const Sanitizer_LaunchData* l) {
  if (!s.tracing) return;
  s.tracing = false;
  TraceLaunchEnd e;
  e.launch = s.current.launch;
  DeviceBufferHeader h{};
  if (sanitizerStreamSynchronize(l->hStream) != SANITIZER_SUCCESS ||
      sanitizerMemcpyDeviceToHost(&h, s.device_buffer, sizeof h, l->hStream) != SANITIZER_SUCCESS) {
    warn("launch " + std::to_string(e.launch) + " (" + s.current.kernel + "): could not read the trace buffer");
    e.status = TraceStatus::kLaunchFailed;
    s.writer.launch_end(e);
    write_out(s);
    return;
  }
  const uint64_t n = written_slots(h);
  e.dropped = h.dropped;
  std::vector<DeviceRecord> recs(n);
  // Drained in chunks so a large buffer needs no second large host copy.
  if (n != 0 && sanitizerMemcpyDeviceToHost(recs.data(), records_of(static_cast<DeviceBufferHeader*>(s.device_buffer)),
                                            n * sizeof(DeviceRecord), l->hStream) != SANITIZER_SUCCESS) {
    warn("launch " + std::to_string(e.launch) + ": could not copy the trace records");
    e.status = TraceStatus::kLaunchFailed;
    e.dropped = h.dropped + n;  // slots, an upper bound on the executions (an LDGSTS takes two)
    s.writer.launch_end(e);
    write_out(s);
    return;
  }
  const uint64_t executions = drain_records(recs, s.function_pc, s.writer, [&s] {
    if (s.writer.bytes().size() > (8u << 20)) write_out(s);
  });
  e.executions = executions;
  e.status = e.dropped != 0 ? TraceStatus::kDropped : TraceStatus::kComplete;
  if (e.dropped != 0) {
    warn("launch " + std::to_string(e.launch) + ": " + std::to_string(e.dropped) +
         " warp executions dropped (buffer of " + std::to_string(h.capacity) +
         "; raise --records or trace fewer --blocks)");
  }
  s.writer.launch_end(e);
  write_out(s);
}

void SANITIZERAPI on_callback(void* /*userdata*/, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                              const void* cbdata) {
  // Only the three callbacks below are handled. The Compute Sanitizer calls made inside them
  // (sanitizerAlloc, the memcpys, sanitizerAddPatchesFromFile loading the patch module, ...) can
  // raise further callbacks on this thread; taking the mutex again there would deadlock (the first
  // H200 run hung at the first launch), so a nested callback returns at once.
  thread_local bool inside = false;
  if (inside) return;
  const bool handled =
      (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) ||
      (domain == SANITIZER_CB_DOMAIN_LAUNCH &&
       (cbid == SANITIZER_CBID_LAUNCH_BEGIN || cbid == SANITIZER_CBID_LAUNCH_END));
  if (!handled) return;
  struct Inside {
    bool& flag;
    explicit Inside(bool& f) : flag(f) { flag = true; }
    ~Inside() { flag = false; }
  } guard(inside);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
    on_module_loaded(s, static_cast<const Sanitizer_ResourceModuleData*>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
    on_launch_begin(s, static_cast<const Sanitizer_LaunchData*>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END) {
    on_launch_end(s, static_cast<const Sanitizer_LaunchData*>(cbdata));
  }
}

}  // namespace
}  // namespace bankscope::tracer

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  using namespace bankscope::tracer;
  State& s = state();
  const char* out = std::getenv("BANKSCOPE_TRACE_OUT");
  const char* patch = std::getenv("BANKSCOPE_TRACE_PATCH");
  if (out == nullptr || patch == nullptr) {
    warn("BANKSCOPE_TRACE_OUT and BANKSCOPE_TRACE_PATCH must be set (run through bankscope-gpu trace)");
    return 0;
  }
  s.cfg.out = out;
  s.cfg.patch = patch;
  if (const char* k = std::getenv("BANKSCOPE_TRACE_KERNEL"); k != nullptr && *k != '\0') {
    try {
      s.kernel_re = std::regex(k);
      s.have_re = true;
    } catch (const std::regex_error& e) {
      warn(std::string("BANKSCOPE_TRACE_KERNEL '") + k + "': " + e.what());
      return 0;
    }
  }
  s.cfg.first = env_u64("BANKSCOPE_TRACE_LAUNCH", 0);
  s.cfg.count = env_u64("BANKSCOPE_TRACE_LAUNCHES", ~0ull);
  s.cfg.blocks = env_u64("BANKSCOPE_TRACE_BLOCKS", 0);
  s.cfg.records = env_u64("BANKSCOPE_TRACE_RECORDS", 4ull << 20);
  if (const char* c = std::getenv("BANKSCOPE_TRACE_CUBINS"); c != nullptr) s.cfg.cubins = c;
  if (s.cfg.records == 0) s.cfg.records = 1;
  s.file = std::fopen(out, "wb");
  if (s.file == nullptr) {
    warn(std::string("cannot write ") + out);
    return 0;
  }
  write_out(s);  // the file header
  Sanitizer_SubscriberHandle handle;
  if (!check(sanitizerSubscribe(&handle, on_callback, nullptr), "sanitizerSubscribe")) return 0;
  check(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE), "sanitizerEnableDomain(resource)");
  check(sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH), "sanitizerEnableDomain(launch)");
  return 1;
}
