// A probe kernel built for sm_80 machine code alone (no PTX; see tests/linalg/CMakeLists.txt),
// which a GPU of another family cannot run: the build for a missing architecture.
#include "tests/linalg/mismatched_probe.hpp"

#include "linalg/cuda/architecture_probe.hpp"

namespace gpufem::test {
namespace {

__global__ void mismatched_probe_kernel() {}

}  // namespace

cudaError_t probe_mismatched_image(int device) { return cuda::probe_image_of(device, mismatched_probe_kernel); }

}  // namespace gpufem::test
