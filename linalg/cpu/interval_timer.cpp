#include <chrono>
#include <stdexcept>

#include "linalg/interval_timer.hpp"

namespace gpufem::kernels::cpu {
namespace {

class SteadyClockTimer final : public IntervalTimer {
public:
    void start() override { begin_ = clock_type::now(); }
    void stop() override
    {
        seconds_.push_back(std::chrono::duration<double>(clock_type::now() - begin_).count());
    }
    std::vector<double> seconds() const override { return seconds_; }
    const char* clock() const override { return "steady clock"; }

private:
    using clock_type = std::chrono::steady_clock;
    clock_type::time_point begin_{};
    std::vector<double> seconds_;
};

}  // namespace

std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr&)
{
    return std::make_unique<SteadyClockTimer>();
}

}  // namespace gpufem::kernels::cpu
