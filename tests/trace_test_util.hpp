// trace_test_util.hpp: what the trace tests (test_trace.cpp, test_trace_sources.cpp) share: a sink
// that keeps every decoded warp, and the reader's one-line error for a file ("ok" when it reads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace bankscope::test {

struct Recorder : TraceSink {
  std::vector<TraceWarp> warps;
  void on_warp(const TraceWarp& w, const TracePc&) override { warps.push_back(w); }
};

inline std::string read_error(const std::vector<uint8_t>& b) {
  Recorder r;
  auto s = read_trace(b.data(), b.size(), r);
  return s.ok() ? std::string("ok") : s.error().message;
}

}  // namespace bankscope::test
