#include <cuda_runtime.h>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/interval_timer.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// A pair of CUDA events per interval, recorded in the executor's stream.
class EventTimer final : public IntervalTimer {
public:
    explicit EventTimer(ExecPtr exec) : exec_(std::move(exec)) {}
    ~EventTimer() override
    {
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
    }
    void start() override { record(); }
    void stop() override { record(); }
    std::vector<double> seconds() const override
    {
        std::vector<double> result;
        if (used_ < 2) return result;
        GPUFEM_CUDA_CHECK(cudaEventSynchronize(events_[used_ - 1]));
        for (std::size_t i = 0; i + 1 < used_; i += 2) {
            float ms = 0.0f;
            GPUFEM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
            result.push_back(ms * 1e-3);
        }
        return result;
    }
    const char* clock() const override { return "CUDA events"; }

private:
    void record()
    {
        if (used_ == events_.size()) {
            cudaEvent_t e{};
            GPUFEM_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
        GPUFEM_CUDA_CHECK(
            cudaEventRecord(events_[used_++], static_cast<cudaStream_t>(exec_->stream())));
    }

    ExecPtr exec_;
    std::vector<cudaEvent_t> events_;
    std::size_t used_ = 0;
};

}  // namespace

std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr& exec)
{
    return std::make_unique<EventTimer>(exec);
}

}  // namespace gpufem::kernels::cuda
