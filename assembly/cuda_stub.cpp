// Stand-ins for the CUDA backend of assembly/ when gpufem is built without CUDA.
#include <stdexcept>

#include "assembly/csr_pattern.hpp"
#include "assembly/dirichlet.hpp"
#include "assembly/element_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("gpufem was built without CUDA"); }
}  // namespace

template <typename V>
void element_matrices(const Executor&, const ElementData<V>&, V*, V*) { no_cuda(); }
template <typename V>
void assemble_csr(const Executor&, const ElementData<V>&, const index_type*, V*, V*) { no_cuda(); }
template <typename V>
void apply_dirichlet(const Executor&, Csr<V>&, const std::uint8_t*, const V*, V*) { no_cuda(); }
CsrPattern build_csr_pattern(const ExecPtr&, index_type, const Array<index_type>&, int) { no_cuda(); }

#define GPUFEM_INSTANTIATE(V)                                                                \
    template void element_matrices(const Executor&, const ElementData<V>&, V*, V*);         \
    template void assemble_csr(const Executor&, const ElementData<V>&, const index_type*, V*, \
                               V*);                                                          \
    template void apply_dirichlet(const Executor&, Csr<V>&, const std::uint8_t*, const V*, V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)

}  // namespace gpufem::kernels::cuda
