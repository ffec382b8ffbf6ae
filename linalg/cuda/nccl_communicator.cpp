#include "linalg/nccl_communicator.hpp"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <future>
#include <stdexcept>

#include <cuda_runtime.h>
#include <nccl.h>
#include <spdlog/spdlog.h>

#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/shared_library.hpp"

namespace gpufem {
namespace {

/// The NCCL entry points gpufem calls, from libnccl.so.<major of the headers>, opened at the
/// first communicator rather than linked: a run on one process does not load it.
struct NcclLibrary {
    decltype(&ncclGetErrorString) error_string = nullptr;
    decltype(&ncclGetUniqueId) get_unique_id = nullptr;
    decltype(&ncclCommInitRank) comm_init_rank = nullptr;
    decltype(&ncclCommDestroy) comm_destroy = nullptr;
    decltype(&ncclGroupStart) group_start = nullptr;
    decltype(&ncclGroupEnd) group_end = nullptr;
    decltype(&ncclSend) send = nullptr;
    decltype(&ncclRecv) recv = nullptr;
    decltype(&ncclAllReduce) all_reduce = nullptr;
};

NcclLibrary open_nccl()
{
    const cuda::SharedLibrary library("libnccl.so." + std::to_string(NCCL_MAJOR), "the NCCL communicator");
    NcclLibrary api;
    library.find(api.error_string, "ncclGetErrorString");
    library.find(api.get_unique_id, "ncclGetUniqueId");
    library.find(api.comm_init_rank, "ncclCommInitRank");
    library.find(api.comm_destroy, "ncclCommDestroy");
    library.find(api.group_start, "ncclGroupStart");
    library.find(api.group_end, "ncclGroupEnd");
    library.find(api.send, "ncclSend");
    library.find(api.recv, "ncclRecv");
    library.find(api.all_reduce, "ncclAllReduce");
    return api;  // the library stays open for the process
}

/// The library, opened on the first call; a failure is thrown again on every later call.
const NcclLibrary& nccl() { return cuda::opened_once<NcclLibrary, open_nccl>(); }

/// Throws naming the NCCL call when it failed.
void check(ncclResult_t result, const char* call)
{
    if (result != ncclSuccess)
        throw std::runtime_error(std::string("NCCL: ") + call + " failed: " + nccl().error_string(result));
}

/// The executor's stream, after checking that it drives this rank's device.
cudaStream_t stream_of(const Executor& exec, int device)
{
    if (exec.device_id() != device)
        throw std::logic_error("NCCL communicator of device " + std::to_string(device) +
                               " used with an executor of device " + std::to_string(exec.device_id()));
    return static_cast<cudaStream_t>(exec.stream());
}

/// One NCCL group of the receives and sends on stream.
void queue_group(ncclComm_t comm, cudaStream_t stream, std::span<const ExchangeMessage> sends,
                 std::span<const ExchangeMessage> receives)
{
    check(nccl().group_start(), "ncclGroupStart");
    for (const ExchangeMessage& r : receives)
        check(nccl().recv(r.data, r.bytes, ncclUint8, r.peer, comm, stream), "ncclRecv");
    for (const ExchangeMessage& s : sends) check(nccl().send(s.data, s.bytes, ncclUint8, s.peer, comm, stream), "ncclSend");
    check(nccl().group_end(), "ncclGroupEnd");
}

/// The NCCL group on a stream of its own, forked from the executor's stream at start and
/// joined back at finish (events, so that the pattern is captured in a CUDA graph too). The
/// side stream has the device's highest priority: its send and receive kernels start as soon
/// as a multiprocessor frees up, rather than after the whole product queued beside them.
class NcclOverlappedExchange final : public OverlappedExchange {
public:
    /// comm: gives the communicator, asked for at the first start (so that making the
    /// exchange does not wait for NCCL's join).
    NcclOverlappedExchange(std::function<ncclComm_t()> comm, cudaStream_t main) : comm_(std::move(comm)), main_(main)
    {
        int least = 0, greatest = 0;
        GPUFEM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        GPUFEM_CUDA_CHECK(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, greatest));
        GPUFEM_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
        GPUFEM_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    }
    ~NcclOverlappedExchange() override
    {
        cudaEventDestroy(join_);
        cudaEventDestroy(fork_);
        cudaStreamDestroy(side_);
    }
    NcclOverlappedExchange(const NcclOverlappedExchange&) = delete;
    NcclOverlappedExchange& operator=(const NcclOverlappedExchange&) = delete;

    void start(std::span<const ExchangeMessage> sends, std::span<const ExchangeMessage> receives) override
    {
        GPUFEM_CUDA_CHECK(cudaEventRecord(fork_, main_));
        GPUFEM_CUDA_CHECK(cudaStreamWaitEvent(side_, fork_, 0));
        queue_group(comm_(), side_, sends, receives);
        GPUFEM_CUDA_CHECK(cudaEventRecord(join_, side_));
    }
    void finish() override { GPUFEM_CUDA_CHECK(cudaStreamWaitEvent(main_, join_, 0)); }

private:
    std::function<ncclComm_t()> comm_;
    cudaStream_t main_;
    cudaStream_t side_ = nullptr;
    cudaEvent_t fork_ = nullptr, join_ = nullptr;
};

}  // namespace

/// The NCCL communicator, joined on a thread of its own: ncclCommInitRank takes most of a
/// second on a node of several GPUs, which the rank spends making its part of the mesh
/// meanwhile. The first use waits for it (and rethrows its failure).
struct NcclCommunicator::Handle {
    int device = 0;
    mutable std::shared_future<ncclComm_t> joining;
    mutable bool used = false;

    /// The communicator; the first use logs how long it waited for the join (the phase it
    /// falls in pays that time).
    ncclComm_t comm() const
    {
        if (!used && joining.valid() && joining.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            const auto start = std::chrono::steady_clock::now();
            joining.wait();
            spdlog::info("NCCL: the first exchange waited {:.3f} s for the ranks to join",
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        used = true;
        return joining.get();
    }
    ~Handle()
    {
        if (!joining.valid()) return;
        try {
            if (ncclComm_t c = joining.get()) nccl().comm_destroy(c);
        } catch (const std::exception&) {
            // The join failed: there is nothing to destroy, and the failure was reported at first use.
        }
    }
};

NcclCommunicator::NcclCommunicator(const MpiCommunicator& mpi, int device)
    : mpi_(mpi), handle_(std::make_unique<Handle>())
{
    handle_->device = device;
    // NCCL's cuMem-based peer buffers made each small exchange and sum of an iteration about
    // 0.4 ms on two NVLink-connected H200s (1.48 ms per CG iteration against 0.23 ms
    // without); the classic peer path is NCCL's own default elsewhere. A user's setting wins.
    ::setenv("NCCL_CUMEM_ENABLE", "0", 0);
    ncclUniqueId id{};
    if (mpi.rank() == 0) check(nccl().get_unique_id(&id), "ncclGetUniqueId");
    mpi.broadcast(&id, sizeof(id), 0);
    const int ranks = mpi.size(), rank = mpi.rank();
    handle_->joining = std::async(std::launch::async, [device, ranks, rank, id] {
                           const auto start = std::chrono::steady_clock::now();
                           GPUFEM_CUDA_CHECK(cudaSetDevice(device));
                           ncclComm_t comm = nullptr;
                           check(nccl().comm_init_rank(&comm, ranks, id, rank), "ncclCommInitRank");
                           spdlog::info("NCCL, {} ranks, joined on a thread of its own in {:.3f} s", ranks,
                                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
                           return comm;
                       }).share();
}

NcclCommunicator::~NcclCommunicator() = default;

std::string NcclCommunicator::describe() const
{
    return "NCCL, " + std::to_string(size()) + (size() == 1 ? " rank" : " ranks") + " (one GPU each)";
}

void NcclCommunicator::all_reduce_sum(const Executor& exec, double* values, int count) const
{
    if (!exec.is_cuda()) return mpi_.all_reduce_sum(exec, values, count);
    if (count <= 0) return;
    check(nccl().all_reduce(values, values, static_cast<std::size_t>(count), ncclDouble, ncclSum, handle_->comm(),
                        stream_of(exec, handle_->device)),
          "ncclAllReduce");
}

void NcclCommunicator::exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                                std::span<const ExchangeMessage> receives) const
{
    if (!exec.is_cuda()) return mpi_.exchange(exec, sends, receives);
    queue_group(handle_->comm(), stream_of(exec, handle_->device), sends, receives);
}

std::unique_ptr<OverlappedExchange> NcclCommunicator::overlapped_exchange(const ExecPtr& exec) const
{
    if (!exec->is_cuda()) return mpi_.overlapped_exchange(exec);
    const Handle* handle = handle_.get();
    return std::make_unique<NcclOverlappedExchange>([handle] { return handle->comm(); },
                                                    stream_of(*exec, handle_->device));
}

}  // namespace gpufem
