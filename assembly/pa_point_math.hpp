#pragma once
// Per-point and per-node formulas of the partial-assembly operator, written once for the host
// and the device: the stored factors of a quadrature point, a tensor-product basis value, a
// cell's load and diagonal entry at one node.
#include "assembly/element_geometry.hpp"
#include "assembly/pa_kernels.hpp"
#include "linalg/host_device.hpp"

namespace gpufem::pa {

/// Stores the factors geo of point_geometry (see store_point_factors).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void store_point_geometry(const ElementArgs<V>& a, index_type e, int q, int points,
                                                    const V* geo, V* factors, V* loads)
{
    const long long n = static_cast<long long>(a.num_cells) * points;
    const long long at = static_cast<long long>(e) * points + q;
    constexpr int packed = DIM * (DIM + 1) / 2;
    for (int c = 0; c < packed; ++c) factors[c * n + at] = geo[c];
    loads[at] = geo[geometry_load_slot<DIM>];
    if (!a.has_lower_order) return;
    for (int c = 0; c <= DIM; ++c) factors[(packed + c) * n + at] = geo[geometry_convection_slot<DIM> + c];
}

/// Writes the factors of lexicographic point q (rule point rule_q) of cell e: component c to
/// factors[c cells points + e points + q], w |det J| f to loads[e points + q].
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void store_point_factors(const ElementArgs<V>& a, index_type e, int q, int rule_q,
                                                   int points, V* factors, V* loads)
{
    V geo[geometry_stride<DIM>(true)];
    point_geometry<DIM>(a, e, rule_q, geo);
    store_point_geometry<DIM>(a, e, q, points, geo, factors, loads);
}

/// The tensor-product basis at lexicographic point q for lexicographic node l: the value
/// (derivative_dir < 0) or the reference derivative along derivative_dir.
template <typename V>
GPUFEM_HOST_DEVICE inline V tensor_basis(const PaArgs<V>& a, int l, int q, int derivative_dir)
{
    V value = 1;
    for (int c = 0; c < a.dim; ++c, l /= a.p1, q /= a.q1) {
        const V* table = c == derivative_dir ? a.derivative : a.basis;
        value *= table[(q % a.q1) * a.p1 + l % a.p1];
    }
    return value;
}

/// Whether cell e's per-point factors (a.point_weights null) are the same at all its points up
/// to the weights (see pa_cell_factors); writes its factors without the weight of point 0 to
/// cell_factors[c cells + e].
template <typename V>
GPUFEM_HOST_DEVICE inline bool cell_factors_of(const PaArgs<V>& a, const V* weights, index_type e, V* cell_factors)
{
    const int points = pa_points_per_cell(a), packed = a.dim * (a.dim + 1) / 2;
    const int components = pa_point_components(a.dim, a.lower_order);
    V largest[10], spread[10];  // per component: the largest |f / w| on the cell, the spread
    bool finite = true;
    for (int c = 0; c < components; ++c) {
        const V first = pa_factor(a, c, e, 0) / weights[0];
        cell_factors[static_cast<long long>(c) * a.cells + e] = first;
        largest[c] = spread[c] = 0;
        for (int q = 0; q < points; ++q) {
            const V f = pa_factor(a, c, e, q) / weights[q];
            finite = finite && f * 0 == 0;  // false for NaN and infinity
            largest[c] = f > largest[c] ? f : -f > largest[c] ? -f : largest[c];
            const V d = f > first ? f - first : first - f;
            spread[c] = d > spread[c] ? d : spread[c];
        }
    }
    // G's entry ab against sqrt(G_aa G_bb) (G is symmetric positive definite: its rounding is
    // relative to that, and a weak direction is not hidden behind a strong one); beta against
    // its largest component; the reaction against itself.
    const V tol = sizeof(V) == 4 ? V(1e-5) : V(1e-11);
    const auto diagonal = [&](int c) { return c * a.dim - c * (c - 1) / 2; };  // G_cc's packed slot
    bool same = finite;
    for (int c = 0, s = 0; c < a.dim; ++c)
        for (int c2 = c; c2 < a.dim; ++c2, ++s) {
            const V scale2 = largest[diagonal(c)] * largest[diagonal(c2)];
            same = same && spread[s] * spread[s] <= tol * tol * scale2;
        }
    if (a.lower_order) {
        V beta = 0;
        for (int c = packed; c < packed + a.dim; ++c) beta = largest[c] > beta ? largest[c] : beta;
        for (int c = packed; c < packed + a.dim; ++c) same = same && spread[c] <= tol * beta;
        same = same && spread[packed + a.dim] <= tol * largest[packed + a.dim];
    }
    return same;
}

/// sum_q loads[e points + q] N_l(q): the load of cell e at its local node l.
template <typename V>
GPUFEM_HOST_DEVICE inline V cell_load(const PaArgs<V>& a, const V* loads, index_type e, int l)
{
    const int points = pa_points_per_cell(a);
    V sum = 0;
    for (int q = 0; q < points; ++q) sum += loads[static_cast<long long>(e) * points + q] * tensor_basis(a, l, q, -1);
    return sum;
}

/// K_e(l, l) of cell e: sum_q dN_l^T G dN_l (+ N_l beta . dN_l + (w |det J| c) N_l^2).
template <typename V>
GPUFEM_HOST_DEVICE inline V cell_diagonal(const PaArgs<V>& a, index_type e, int l)
{
    const int points = pa_points_per_cell(a);
    const int packed = a.dim * (a.dim + 1) / 2;
    V sum = 0;
    for (int q = 0; q < points; ++q) {
        V dN[3] = {0, 0, 0};
        for (int c = 0; c < a.dim; ++c) dN[c] = tensor_basis(a, l, q, c);
        for (int c = 0, s = 0; c < a.dim; ++c)
            for (int c2 = c; c2 < a.dim; ++c2, ++s)
                sum += (c == c2 ? V(1) : V(2)) * pa_factor(a, s, e, q) * dN[c] * dN[c2];
        if (!a.lower_order) continue;
        const V N = tensor_basis(a, l, q, -1);
        for (int c = 0; c < a.dim; ++c) sum += N * pa_factor(a, packed + c, e, q) * dN[c];
        sum += pa_factor(a, packed + a.dim, e, q) * N * N;
    }
    return sum;
}

}  // namespace gpufem::pa
