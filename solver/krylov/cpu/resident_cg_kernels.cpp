// CG in one pass on the host: the readable reference for cuda/resident_cg_kernels.cu. The
// product is the bDIA format's own (linalg/cpu/bdia_kernels.cpp); the loops and the scalar
// steps are those of the merged CG with its direction fused into the product.
#include <vector>

#include "solver/krylov/resident_cg.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
bool cg_resident_fits(const Executor&, index_type)
{
    return true;
}

template <typename V>
void cg_resident_bdia(const Executor& exec, const MergedWorkspace& ws, const Bdia<V>& a, const V* dinv, V* x,
                      V* r, V* z)
{
    const auto n = static_cast<std::size_t>(a.rows);
    KrylovScalars& s = *ws.state;
    std::vector<V> w(n), p(n, V(0)), q(n, V(0));
    for (std::size_t i = 0; i < n; ++i) z[i] = dinv ? dinv[i] * r[i] : r[i];
    while (s.status == state_running) {
        bdia_spmv(exec, a, V(1), z, V(0), w.data(), 0);
        const V beta = static_cast<V>(s.beta);
        double pq = 0;
        for (std::size_t i = 0; i < n; ++i) {
            p[i] = z[i] + beta * p[i];
            q[i] = w[i] + beta * q[i];
            pq += double(p[i]) * double(q[i]);
        }
        merged::cg_alpha(s, pq);
        if (s.status != state_running) break;
        const V alpha = static_cast<V>(s.alpha);
        double rz = 0, rr = 0;
        for (std::size_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = dinv ? dinv[i] * r[i] : r[i];
            rz += double(r[i]) * double(z[i]);
            rr += double(r[i]) * double(r[i]);
        }
        merged::cg_finish(s, rz, rr, ws.history);
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(cg_resident_fits, cg_resident_bdia)

}  // namespace gpufem::kernels::cpu
