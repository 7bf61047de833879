// counters.cpp: CUPTI range profiler (auto range, kernel replay) behind CounterSession.
//
// Sequence (CUPTI 13 range-profiling sample): cuptiProfilerInitialize -> chip name + counter
// availability -> host object + config image for the metrics -> per batch: range profiler enable,
// counter-data image, set config, start, launches, stop, decode, evaluate each range, disable.
// Enabling per batch costs a little time but leaves no profiler state behind between batches
// (ncu may profile a child process afterwards).
#include "counters.hpp"

#include <algorithm>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

#if BANKSCOPE_HAVE_CUPTI
#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#endif

namespace bankscope {

#if BANKSCOPE_HAVE_CUPTI

namespace {

struct CuptiError : std::runtime_error {
  CUptiResult code;
  CuptiError(CUptiResult c, const std::string& w) : std::runtime_error(w), code(c) {}
};

[[noreturn]] void throw_cupti(CUptiResult r, const char* call, const char* file, int line) {
  const char* s = "unknown";
  cuptiGetResultString(r, &s);
  throw CuptiError(r, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + s);
}

#define BANKSCOPE_CUPTI_CHECK(call)                                              \
  do {                                                                           \
    const CUptiResult bankscope_r_ = (call);                                     \
    if (bankscope_r_ != CUPTI_SUCCESS) throw_cupti(bankscope_r_, #call, __FILE__, __LINE__); \
  } while (0)

// Batches larger than this are split; each range needs room in the counter-data image.
constexpr size_t kMaxRangesPerBatch = 64;

}  // namespace

struct CounterSession::Impl {
  CUcontext ctx = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config;
  std::vector<const char*> names;
  ~Impl() {
    if (host != nullptr) {
      CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
      p.pHostObject = host;
      cuptiProfilerHostDeinitialize(&p);
    }
    // Leaves the device free for another profiler (validate runs ncu on a child afterwards).
    CUpti_Profiler_DeInitialize_Params d{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    cuptiProfilerDeInitialize(&d);
  }
};

CounterSession::CounterSession(std::unique_ptr<Impl> impl, std::vector<std::string> metrics)
    : impl_(std::move(impl)), metrics_(std::move(metrics)) {
  for (const std::string& m : metrics_) impl_->names.push_back(m.c_str());
}

CounterSession::~CounterSession() = default;

std::unique_ptr<CounterSession> CounterSession::create(const std::vector<std::string>& metrics,
                                                       std::string* why, bool* not_permitted) {
  *not_permitted = false;
  try {
    BANKSCOPE_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context
    int dev = 0;
    BANKSCOPE_CUDA_CHECK(cudaGetDevice(&dev));
    auto impl = std::make_unique<Impl>();
    // cuCtxGetCurrent through the runtime's driver entry point: linking libcuda directly would
    // stop the binary from starting at all on a machine without a driver.
    using CtxGetCurrentFn = CUresult (*)(CUcontext*);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    BANKSCOPE_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q));
    if (fn == nullptr || reinterpret_cast<CtxGetCurrentFn>(fn)(&impl->ctx) != CUDA_SUCCESS ||
        impl->ctx == nullptr) {
      *why = "no current CUDA context for CUPTI";
      return nullptr;
    }
    CUpti_Profiler_Initialize_Params ip{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerInitialize(&ip));

    CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = static_cast<size_t>(dev);
    BANKSCOPE_CUPTI_CHECK(cuptiDeviceGetChipName(&cn));

    CUpti_Profiler_GetCounterAvailability_Params ca{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = impl->ctx;
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&ca));
    std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = avail.data();
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&ca));

    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    hi.pCounterAvailabilityImage = avail.data();
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerHostInitialize(&hi));
    impl->host = hi.pHostObject;

    std::vector<const char*> names;
    for (const std::string& m : metrics) names.push_back(m.c_str());
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = impl->host;
    am.ppMetricNames = names.data();
    am.numMetrics = names.size();
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&am));

    CUpti_Profiler_Host_GetConfigImageSize_Params cs{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = impl->host;
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&cs));
    impl->config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = impl->host;
    ci.configImageSize = impl->config.size();
    ci.pConfigImage = impl->config.data();
    BANKSCOPE_CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&ci));

    // Try enabling once here so a permission problem shows up now, not in the middle of a run.
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = impl->ctx;
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerEnable(&en));
    CUpti_RangeProfiler_Disable_Params dis{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerDisable(&dis));

    return std::unique_ptr<CounterSession>(new CounterSession(std::move(impl), metrics));
  } catch (const CuptiError& e) {
    if (e.code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      *not_permitted = true;
      *why = "GPU performance counters are not permitted for this user "
             "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): run as root, or load the driver with "
             "NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    } else {
      *why = e.what();
    }
  } catch (const std::exception& e) {
    *why = e.what();
  }
  return nullptr;
}

std::vector<std::vector<double>> CounterSession::measure(
    const std::vector<std::function<void()>>& launches) {
  std::vector<std::vector<double>> rows;
  rows.reserve(launches.size());
  const std::vector<const char*>& names = impl_->names;
  for (size_t first = 0; first < launches.size(); first += kMaxRangesPerBatch) {
    const size_t count = std::min(kMaxRangesPerBatch, launches.size() - first);

    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = impl_->ctx;
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerEnable(&en));
    CUpti_RangeProfiler_Object* obj = en.pRangeProfilerObject;
    // Disables the profiler on every way out, so a failed batch leaves no session behind.
    struct DisableOnExit {
      CUpti_RangeProfiler_Object* obj;
      ~DisableOnExit() {
        CUpti_RangeProfiler_Disable_Params dis{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dis.pRangeProfilerObject = obj;
        cuptiRangeProfilerDisable(&dis);
      }
    } disable_on_exit{obj};

    CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = obj;
    ds.pMetricNames = const_cast<const char**>(names.data());
    ds.numMetrics = names.size();
    ds.maxNumOfRanges = count;
    ds.maxNumRangeTreeNodes = static_cast<uint32_t>(count);
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&ds));
    std::vector<uint8_t> data(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = obj;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&di));

    CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = obj;
    sc.configSize = impl_->config.size();
    sc.pConfig = impl_->config.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = count;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&sc));

    // Kernel replay runs every pass inside each launch; the loop is a guard for a CUPTI that
    // reports passes still outstanding (then the whole batch is launched again).
    for (int attempt = 0;; ++attempt) {
      CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      st.pRangeProfilerObject = obj;
      BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerStart(&st));
      for (size_t i = first; i < first + count; ++i) {
        launches[i]();
        BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      }
      CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      sp.pRangeProfilerObject = obj;
      BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerStop(&sp));
      if (sp.isAllPassSubmitted) break;
      if (attempt > 16) throw std::runtime_error("CUPTI range profiler: passes never complete");
    }
    CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = obj;
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&dd));

    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    BANKSCOPE_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));
    if (info.numTotalRanges != count || dd.numOfRangeDropped != 0) {
      throw std::runtime_error("CUPTI range profiler: expected " + std::to_string(count) +
                               " ranges (one per launch), got " + std::to_string(info.numTotalRanges) +
                               " with " + std::to_string(dd.numOfRangeDropped) + " dropped");
    }
    for (size_t r = 0; r < count; ++r) {
      std::vector<double> values(names.size(), 0.0);
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      ev.pHostObject = impl_->host;
      ev.pCounterDataImage = data.data();
      ev.counterDataImageSize = data.size();
      ev.rangeIndex = r;
      ev.ppMetricNames = const_cast<const char**>(names.data());
      ev.numMetrics = names.size();
      ev.pMetricValues = values.data();
      BANKSCOPE_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&ev));
      rows.push_back(std::move(values));
    }
  }
  return rows;
}

#else  // !BANKSCOPE_HAVE_CUPTI

struct CounterSession::Impl {};
CounterSession::CounterSession(std::unique_ptr<Impl> impl, std::vector<std::string> metrics)
    : impl_(std::move(impl)), metrics_(std::move(metrics)) {}
CounterSession::~CounterSession() = default;
std::unique_ptr<CounterSession> CounterSession::create(const std::vector<std::string>&,
                                                       std::string* why, bool* not_permitted) {
  *not_permitted = false;
  *why = "built without CUPTI (CUDA::cupti was not found at configure time)";
  return nullptr;
}
std::vector<std::vector<double>> CounterSession::measure(const std::vector<std::function<void()>>&) {
  return {};
}

#endif

}  // namespace bankscope
