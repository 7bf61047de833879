// trace_annotate.cpp: see trace_annotate.hpp.
#include "trace_annotate.hpp"

#include <algorithm>

#include "trace.hpp"

namespace bankscope {

namespace {

// Re-encodes every record as it is decoded; only the 'P' records of mapped launches change.
class Annotator : public TraceSink {
 public:
  Annotator(const std::map<uint64_t, const SassFunction*>& functions, AnnotateSummary& sum)
      : functions_(functions), sum_(sum) {}
  void on_launch(const TraceLaunch& l) override {
    const auto it = functions_.find(l.launch);
    fn_ = it == functions_.end() ? nullptr : it->second;
    out.launch(l);
  }
  void on_pc(const TracePc& p) override {
    ++sum_.instructions;
    TracePc q = p;
    if (fn_ != nullptr) {
      const auto it = std::find_if(fn_->shared.begin(), fn_->shared.end(),
                                   [&](const SassSharedInst& s) { return s.address == p.pc; });
      if (it != fn_->shared.end()) {
        q.opcode = it->opcode;
        q.guard = it->guard;
        ++sum_.with_opcode;
        if (it->src_line > 0) {
          q.file = it->src_file;
          q.line = static_cast<uint32_t>(it->src_line);
          ++sum_.with_line;
        }
      }
    }
    out.pc(q);
  }
  void on_warp(const TraceWarp& w, const TracePc&) override { out.warp(w); }
  void on_launch_end(const TraceLaunchEnd& e) override { out.launch_end(e); }
  void on_end(const TraceEnd& e) override { out.end(e); }

  TraceWriter out;

 private:
  const std::map<uint64_t, const SassFunction*>& functions_;
  AnnotateSummary& sum_;
  const SassFunction* fn_ = nullptr;
};

}  // namespace

Result<std::vector<uint8_t>> annotate_trace(const std::vector<uint8_t>& trace,
                                            const std::map<uint64_t, const SassFunction*>& functions,
                                            AnnotateSummary* summary) {
  AnnotateSummary local;
  Annotator a(functions, summary != nullptr ? *summary : local);
  if (auto r = read_trace(trace.data(), trace.size(), a); !r.ok()) return r.error();
  return a.out.take();
}

}  // namespace bankscope
