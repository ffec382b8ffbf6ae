#include "assembly/element_kernels.hpp"

#include "assembly/element_math.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void element_matrices(const Executor&, const ElementData<V>& data, V* ke, V* fe)
{
    const ElementArgs<V> a = data.args();
    dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
#pragma omp parallel for schedule(static)
        for (index_type e = 0; e < a.num_cells; ++e) {
            element_stiffness_load<NPE, DIM>(a, e, ke + static_cast<std::size_t>(e) * NPE * NPE,
                                             fe + static_cast<std::size_t>(e) * NPE);
        }
    });
}

template <typename V>
void assemble_csr(const Executor&, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs)
{
    const ElementArgs<V> a = data.args();
    dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
        // Sequential scatter: the readable reference (no races, fixed summation order).
        V ke[NPE * NPE], fe[NPE];
        for (index_type e = 0; e < a.num_cells; ++e) {
            element_stiffness_load<NPE, DIM>(a, e, ke, fe);
            const index_type* pos = cell_to_csr + static_cast<std::size_t>(e) * NPE * NPE;
            const index_type* nodes = a.cells + static_cast<std::size_t>(e) * NPE;
            for (int k = 0; k < NPE * NPE; ++k) values[pos[k]] += ke[k];
            for (int i = 0; i < NPE; ++i) rhs[nodes[i]] += fe[i];
        }
    });
}

#define GPUFEM_INSTANTIATE(V)                                                               \
    template void element_matrices(const Executor&, const ElementData<V>&, V*, V*);        \
    template void assemble_csr(const Executor&, const ElementData<V>&, const index_type*, V*, \
                               V*);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)

}  // namespace gpufem::kernels::cpu
