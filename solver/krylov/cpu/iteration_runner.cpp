#include "solver/krylov/iteration_runner.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Host memory is the device memory: copies are immediate, no graphs.
class HostRunner final : public IterationRunner {
public:
    void post_state(const KrylovScalars* device_state, int slot) override
    {
        mailbox_[slot] = *device_state;
    }
    KrylovScalars wait_state(int slot) override { return mailbox_[slot]; }
    bool capture(const std::function<void()>&) override { return false; }
    void replay() override {}
    const std::string& graph_failure() const override { return failure_; }

private:
    KrylovScalars mailbox_[2];
    std::string failure_ = "no graphs on the CPU";
};

}  // namespace

std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr&)
{
    return std::make_unique<HostRunner>();
}

}  // namespace gpufem::kernels::cpu
