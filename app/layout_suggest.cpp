// layout_suggest.cpp: see layout_suggest.hpp.
#include "layout_suggest.hpp"

namespace bankscope {

LayoutSuggester::~LayoutSuggester() {
  stop();
}

void LayoutSuggester::stop() {
  if (!job_) return;
  job_->cancel.store(true);
  if (job_->worker.joinable()) job_->worker.join();  // stops at its next candidate's next block
  job_.reset();
}

void LayoutSuggester::start(const ScenarioSpec& spec, int which, int array, uint64_t revision) {
  stop();
  model_ = SuggestModel{};
  model_.running = true;
  model_.which = which;
  model_.array = array;
  model_.revision = revision;
  job_ = std::make_unique<Job>();
  Job* raw = job_.get();
  raw->worker = std::thread([raw, spec, array] {
    auto s = compile(spec);
    if (!s) {
      raw->result = Result<AdvisorResult>(s.error());
    } else {
      AdvisorOptions opt;
      opt.cancel = &raw->cancel;
      opt.candidates_done = &raw->done;
      raw->result = advise_layout(*s, array, opt);
    }
    raw->finished.store(true, std::memory_order_release);
  });
}

void LayoutSuggester::cancel() {
  if (job_) job_->cancel.store(true);
}

bool LayoutSuggester::poll() {
  if (!job_) return false;
  const int done = job_->done.load();
  bool changed = done != model_.searched;
  model_.searched = done;
  if (!job_->finished.load(std::memory_order_acquire)) return changed;
  job_->worker.join();
  if (job_->result && job_->result->ok()) {
    model_.result = std::move(*job_->result).value();
    if (model_.result->cancelled) {
      model_.error = "cancelled after " + std::to_string(model_.result->evaluated) + " layouts";
      model_.result.reset();
    }
  } else {
    model_.error = job_->result ? job_->result->error().message : "no result";
  }
  model_.running = false;
  job_.reset();
  return true;
}

}  // namespace bankscope
