#pragma once
// The end of a row of a product fused with what follows it in a CG iteration, shared by the
// formats that offer it (bdia, ell): the dot x.y, or CG's direction (x = z, y = q: p = z + b p,
// q = A z + b q, the dot p.q). Each block then adds its rows' terms into one partial.
#include "linalg/types.hpp"

namespace gpufem::kernels::cuda {

/// What the product does beside y = alpha A x + beta y: nothing, the dot x.y (y = A x), or
/// CG's direction.
enum class Fused { none, dot, direction };

/// The fused products' extra arguments: one partial sum per block, CG's p and its beta.
template <typename V>
struct FusedTail {
    double* partials = nullptr;
    V* p = nullptr;
    const double* beta = nullptr;
};

/// Row row's end of a fused product whose row sum is sum: writes y (and p) and returns the
/// row's term of the dot.
template <typename V>
__device__ inline double fused_row(Fused f, const FusedTail<V>& tail, const V* __restrict__ x, V* __restrict__ y,
                                   index_type row, V sum)
{
    if (f == Fused::dot) {
        y[row] = sum;
        return double(__ldg(x + row)) * double(sum);
    }
    const V b = static_cast<V>(*tail.beta);
    const V q = b == V(0) ? sum : sum + b * y[row];
    const V p = b == V(0) ? __ldg(x + row) : __ldg(x + row) + b * tail.p[row];
    y[row] = q;
    tail.p[row] = p;
    return double(p) * double(q);
}

}  // namespace gpufem::kernels::cuda
