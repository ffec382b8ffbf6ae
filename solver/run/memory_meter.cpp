#include "solver/run/memory_meter.hpp"

#include "linalg/host_memory.hpp"

namespace gpufem {

void MemoryMeter::start() const
{
    reset_peak_resident_host_bytes();
    exec_->reset_memory_peak();
}

void MemoryMeter::stop(const std::string& name)
{
    PhaseMemory phase;
    phase.phase = name;
    phase.host = peak_resident_host_bytes();
    if (exec_->is_cuda()) phase.device = exec_->memory_use().peak;
    phases_.push_back(std::move(phase));
}

}  // namespace gpufem
