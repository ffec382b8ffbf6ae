#include "solver/krylov/iteration_runner.hpp"

#include <cuda_runtime.h>

#include "linalg/cuda/cuda_check.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// Pinned two-slot mailbox with an event per slot, and one captured CUDA graph.
class DeviceRunner final : public IterationRunner {
public:
    explicit DeviceRunner(ExecPtr exec) : exec_(std::move(exec))
    {
        GPUFEM_CUDA_CHECK(cudaMallocHost(&mailbox_, 2 * sizeof(KrylovScalars)));
        for (cudaEvent_t& e : arrived_)
            GPUFEM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    ~DeviceRunner() override
    {
        if (graph_) cudaGraphExecDestroy(graph_);
        for (cudaEvent_t e : arrived_) cudaEventDestroy(e);
        cudaFreeHost(mailbox_);
    }

    void post_state(const KrylovScalars* device_state, int slot) override
    {
        GPUFEM_CUDA_CHECK(cudaMemcpyAsync(mailbox_ + slot, device_state, sizeof(KrylovScalars),
                                          cudaMemcpyDeviceToHost, stream()));
        GPUFEM_CUDA_CHECK(cudaEventRecord(arrived_[slot], stream()));
    }

    KrylovScalars wait_state(int slot) override
    {
        GPUFEM_CUDA_CHECK(cudaEventSynchronize(arrived_[slot]));
        return mailbox_[slot];
    }

    bool capture(const std::function<void()>& batch) override
    {
        if (graph_) {
            cudaGraphExecDestroy(graph_);
            graph_ = nullptr;
        }
        GPUFEM_CUDA_CHECK(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
        cudaGraph_t graph = nullptr;
        try {
            batch();
        } catch (const std::exception& error) {
            cudaStreamEndCapture(stream(), &graph);
            if (graph) cudaGraphDestroy(graph);
            cudaGetLastError();
            failure_ = std::string("capture failed: ") + error.what();
            return false;
        }
        const cudaError_t ended = cudaStreamEndCapture(stream(), &graph);
        if (ended != cudaSuccess || !graph) {
            cudaGetLastError();
            failure_ = std::string("capture failed: ") + cudaGetErrorString(ended);
            return false;
        }
        const cudaError_t made = cudaGraphInstantiate(&graph_, graph, 0);
        cudaGraphDestroy(graph);
        if (made != cudaSuccess) {
            cudaGetLastError();
            graph_ = nullptr;
            failure_ = std::string("graph instantiation failed: ") + cudaGetErrorString(made);
            return false;
        }
        return true;
    }

    void replay() override { GPUFEM_CUDA_CHECK(cudaGraphLaunch(graph_, stream())); }
    const std::string& graph_failure() const override { return failure_; }

private:
    cudaStream_t stream() const { return static_cast<cudaStream_t>(exec_->stream()); }

    ExecPtr exec_;
    KrylovScalars* mailbox_ = nullptr;
    cudaEvent_t arrived_[2]{};
    cudaGraphExec_t graph_ = nullptr;
    std::string failure_;
};

}  // namespace

std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr& exec)
{
    return std::make_unique<DeviceRunner>(exec);
}

}  // namespace gpufem::kernels::cuda
