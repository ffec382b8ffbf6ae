#include <vector>

#include "assembly/geometry_check_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
JacobianSigns jacobian_signs(const Executor&, const ElementArgs<V>& a)
{
    std::vector<signed char> sign(static_cast<std::size_t>(a.num_cells));
    std::vector<int> bad_point(static_cast<std::size_t>(a.num_cells), -1);
    dispatch_dimension(a.dim, [&]<int DIM>() {
#pragma omp parallel for schedule(static)
        for (index_type e = 0; e < a.num_cells; ++e)
            sign[e] = static_cast<signed char>(cell_jacobian_sign<DIM>(a, e, bad_point[e]));
    });
    JacobianSigns out;
    for (index_type e = 0; e < a.num_cells; ++e) {
        if (sign[e] > 0) {
            if (out.positive++ == 0) out.first_positive = e;
        } else if (sign[e] < 0) {
            if (out.negative++ == 0) out.first_negative = e;
        } else if (out.first_degenerate < 0) {
            out.first_degenerate = static_cast<long long>(e) * a.num_points + bad_point[e];
        }
    }
    return out;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(jacobian_signs)

}  // namespace gpufem::kernels::cpu
