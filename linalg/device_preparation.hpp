#pragma once
// A GPU made ready before its executor is asked for: a process that can tell early which
// device it will drive (a rank, from its launcher's environment) makes the CUDA context on a
// thread while it does other start-up work (MPI's).

namespace gpufem {

/// Makes device's CUDA context and checks its kernels ahead of Executor::create_cuda(device),
/// which then finds them made; nothing without CUDA or without that device. Thread-safe.
void prepare_cuda_device(int device);

}  // namespace gpufem
