#pragma once
// The degree-1 element matrix and load of -div(kappa grad u) + b . grad u + c u = f for one cell,
// the whole element matrix in registers (small NPE only), written once for both backends
// (host loops in cpu/, one thread per cell in cuda/). Higher orders: element_geometry.hpp.
#include <stdexcept>
#include <string>

#include "assembly/element_data.hpp"
#include "linalg/host_device.hpp"
#include "assembly/jacobian.hpp"

namespace gpufem {

/// Computes ke (NPE x NPE, row-major) and fe (NPE) of cell e of a degree-1 mesh:
/// ke_ij = sum_q w_q |det J| ((J^-T dN_i) . kappa (J^-T dN_j) + N_i b . (J^-T dN_j) + c N_i N_j)
/// (test function i, trial j), fe_i = sum_q w_q |det J| f_q N_i. The lower-order terms (b, c)
/// are compiled in with LOWER (every entry computed); without them the upper triangle is
/// computed and mirrored.
template <int NPE, int DIM, bool LOWER, typename V>
GPUFEM_HOST_DEVICE inline void element_stiffness_load(const ElementArgs<V>& a, index_type e,
                                                      V* ke, V* fe)
{
    // The node coordinates stay in registers on the symmetric path; the full matrix (64
    // accumulators for hexahedra) leaves no room for them, so there they are re-read per point.
    const index_type* nodes = a.cells + static_cast<long long>(e) * NPE;
    V x[NPE][DIM];
    if constexpr (!LOWER)
        for (int i = 0; i < NPE; ++i)
            for (int d = 0; d < DIM; ++d)
                x[i][d] = a.coordinates[3 * static_cast<long long>(nodes[i]) + d];
    for (int k = 0; k < NPE * NPE; ++k) ke[k] = V(0);
    for (int i = 0; i < NPE; ++i) fe[i] = V(0);

    for (int q = 0; q < a.num_points; ++q) {
        const V* dN = a.gradients + q * NPE * DIM;
        // J[d][c] = d x_d / d xi_c
        V J[DIM][DIM];
        if constexpr (LOWER) {
            cell_jacobian<DIM>(NPE, nodes, a.coordinates, dN, J);
        } else {
            for (int d = 0; d < DIM; ++d)
                for (int c = 0; c < DIM; ++c) {
                    V s = 0;
                    for (int i = 0; i < NPE; ++i) s += x[i][d] * dN[i * DIM + c];
                    J[d][c] = s;
                }
        }
        V inv[DIM][DIM];
        const V det = invert_jacobian<DIM>(J, inv);
        const V w = a.weights[q] * (det < 0 ? -det : det);
        const long long qe = static_cast<long long>(e) * a.num_points + q;
        const V wf = w * a.f[a.f_stride * qe];

        // Physical gradients: g_i[d] = sum_c inv[c][d] dN_i[c].
        V g[NPE][DIM];
        for (int i = 0; i < NPE; ++i)
            for (int d = 0; d < DIM; ++d) {
                V s = 0;
                for (int c = 0; c < DIM; ++c) s += inv[c][d] * dN[i * DIM + c];
                g[i][d] = s;
            }
        const bool tensor = a.kappa_components > 1;
        const V wk = tensor ? V(0) : w * a.kappa[a.kappa_stride * qe];
        V K[DIM][DIM];  // w kappa, a tensor's only
        if (tensor) weighted_kappa<DIM>(a, qe, w, K);
        for (int i = 0; i < NPE; ++i) {
            const V n_i = a.values[q * NPE + i];
            V kg[DIM];  // w kappa g_i
            for (int d = 0; d < DIM; ++d) {
                if (!tensor) {
                    kg[d] = wk * g[i][d];
                    continue;
                }
                V s = 0;
                for (int c = 0; c < DIM; ++c) s += K[d][c] * g[i][c];
                kg[d] = s;
            }
            if constexpr (LOWER) {
                // ke_ij += (w kappa g_i + w N_i b) . g_j + w c N_i N_j.
                V h[DIM];
                for (int d = 0; d < DIM; ++d) h[d] = kg[d] + w * n_i * velocity_at(a, qe, d);
                const V wc = w * reaction_at(a, qe) * n_i;
                for (int j = 0; j < NPE; ++j) {
                    V s = 0;
                    for (int d = 0; d < DIM; ++d) s += h[d] * g[j][d];
                    ke[i * NPE + j] += s + wc * a.values[q * NPE + j];
                }
            } else {
                for (int j = i; j < NPE; ++j) {
                    V s = 0;
                    for (int d = 0; d < DIM; ++d) s += (tensor ? kg[d] : g[i][d]) * g[j][d];
                    ke[i * NPE + j] += tensor ? s : wk * s;
                }
            }
            fe[i] += wf * n_i;
        }
    }
    if constexpr (!LOWER)
        for (int i = 0; i < NPE; ++i)
            for (int j = 0; j < i; ++j) ke[i * NPE + j] = ke[j * NPE + i];
}

/// Calls fn.template operator()<NPE, DIM>() when a shape's corners and dimension are NPE
/// and DIM; whether it did.
template <int NPE, int DIM, typename Fn>
inline bool call_for_size(int corners, int dim, Fn& fn)
{
    if (corners != NPE || dim != DIM) return false;
    fn.template operator()<NPE, DIM>();
    return true;
}

/// Calls fn.template operator()<NPE, DIM>() for the degree-1 element of this type
/// (compile-time sizes: the shape's corners and dimension). The element kernels are compiled
/// for these sizes: a shape of new sizes adds its pair here.
template <typename Fn>
inline void dispatch_element_type(ElementType type, Fn&& fn)
{
    const int corners = element_node_count(type), dim = element_dimension(type);
    if (call_for_size<3, 2>(corners, dim, fn) || call_for_size<4, 2>(corners, dim, fn) ||
        call_for_size<4, 3>(corners, dim, fn) || call_for_size<8, 3>(corners, dim, fn) ||
        call_for_size<6, 3>(corners, dim, fn) || call_for_size<5, 3>(corners, dim, fn))
        return;
    throw std::invalid_argument(std::string("no element kernel for cell type ") +
                                element_type_name(type));
}

/// Calls fn.template operator()<LOWER>() with LOWER = lower_order != 0 (a convection or a
/// reaction term): the flag becomes a compile-time choice of kernel, taken once per launch.
template <typename Fn>
inline void dispatch_lower_order(int lower_order, Fn&& fn)
{
    if (lower_order) fn.template operator()<true>();
    else fn.template operator()<false>();
}

}  // namespace gpufem
