#pragma once
// Sum-factorised contractions of a hexahedron's (and a quadrilateral's) values on CUDA, shared
// by the partial-assembly kernels and the flux kernels: a cell gets a thread per point of its
// Q^3 lattice (r = r0 + Q (r1 + Q r2); Q^2 in 2D, r = r0 + Q r1), its intermediate arrays
// live in shared-memory buffers indexed like the points, and each contraction is one step in
// which a thread forms one output entry, the steps separated by block barriers. The 1D tables are B[q][i] (basis function i at point q)
// and D[q][i] (its derivative), P entries a row.
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {

/// Threads of one cell in the apply (one per quadrature point).
template <int DIM, int Q>
constexpr int points_of = DIM == 2 ? Q * Q : Q * Q * Q;
/// Cells per block of the apply: about 256 threads.
template <int DIM, int Q>
constexpr int cells_per_block = points_of<DIM, Q> >= 256 ? 1 : 256 / points_of<DIM, Q>;

/// Buffers per cell of the contractions.
template <int DIM>
constexpr int buffers_of = DIM == 2 ? 5 : 7;

/// The lexicographic node of point thread r (r0 + Q (r1 + Q r2)), or -1 past the nodes.
template <int DIM, int P, int Q>
__device__ inline int node_of_thread(int r)
{
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = DIM == 2 ? 0 : r / (Q * Q);
    return r0 < P && r1 < P && r2 < P ? r0 + P * (r1 + P * r2) : -1;
}

/// The first half of a 3D cell action: the reference gradient g (and, with LOWER, the value)
/// at this thread's point of u, the cell's values at the threads' nodes, by contractions along
/// x, y, then z through the buffers b (indexed i0 + Q (i1 + Q i2) whatever their extents, so
/// a thread's own entry is at r). Every thread of the block calls it (block barriers inside).
template <int P, int Q, bool LOWER, typename V>
__device__ void reference_gradient_3d(int r, V u, const V* sB, const V* sD, V (&b)[7][points_of<3, Q>], V (&g)[3],
                                      V& value)
{
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = r / (Q * Q);
    b[0][r] = u;
    __syncthreads();
    if (r1 < P && r2 < P) {  // along x: X = B u, Xd = D u
        V X = 0, Xd = 0;
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const V xi = b[0][i + Q * (r1 + Q * r2)];
            X += sB[r0 * P + i] * xi;
            Xd += sD[r0 * P + i] * xi;
        }
        b[1][r] = X;
        b[2][r] = Xd;
    }
    __syncthreads();
    if (r2 < P) {  // along y: XY = B X, XdY = B Xd, XYd = D X
        V XY = 0, XdY = 0, XYd = 0;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const int at = r0 + Q * (j + Q * r2);
            XY += sB[r1 * P + j] * b[1][at];
            XdY += sB[r1 * P + j] * b[2][at];
            XYd += sD[r1 * P + j] * b[1][at];
        }
        b[3][r] = XY;
        b[4][r] = XdY;
        b[5][r] = XYd;
    }
    __syncthreads();
    g[0] = g[1] = g[2] = value = 0;
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const int at = r0 + Q * (r1 + Q * k);
        g[0] += sB[r2 * P + k] * b[4][at];
        g[1] += sB[r2 * P + k] * b[5][at];
        g[2] += sD[r2 * P + k] * b[3][at];
        if constexpr (LOWER) value += sB[r2 * P + k] * b[3][at];
    }
}

/// The second half: from the point's v = G grad (and s = beta . grad + (w |det J| c) u) back to
/// this thread's node by transposed contractions along z, y, then x; 0 on threads past the
/// nodes. P: nodes per direction, the tables' row length (a compile-time constant in the
/// apply; p-multigrid's coarse tables pass theirs). Block barriers inside.
template <int Q, bool LOWER, typename V>
__device__ V transposed_contractions_3d(int r, const V (&v)[3], V s, int P, const V* sB, const V* sD,
                                        V (&b)[7][points_of<3, Q>])
{
    const int r0 = r % Q, r1 = (r / Q) % Q, r2 = r / (Q * Q);
    const bool is_node = r0 < P && r1 < P && r2 < P;
    b[0][r] = v[0];  // buffers 0-2 and 6 were last read before the first half's last barrier
    b[1][r] = v[1];
    b[2][r] = v[2];
    if constexpr (LOWER) b[6][r] = s;
    __syncthreads();
    if (r2 < P) {  // back along z
        V WXdY = 0, WXYd = 0, WXY = 0;
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            const int at = r0 + Q * (r1 + Q * qz);
            WXdY += sB[qz * P + r2] * b[0][at];
            WXYd += sB[qz * P + r2] * b[1][at];
            WXY += sD[qz * P + r2] * b[2][at];
            if constexpr (LOWER) WXY += sB[qz * P + r2] * b[6][at];
        }
        b[3][r] = WXdY;
        b[4][r] = WXYd;
        b[5][r] = WXY;
    }
    __syncthreads();
    if (r1 < P && r2 < P) {  // back along y
        V WX = 0, WXd = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) {
            const int at = r0 + Q * (qy + Q * r2);
            WX += sB[qy * P + r1] * b[5][at] + sD[qy * P + r1] * b[4][at];
            WXd += sB[qy * P + r1] * b[3][at];
        }
        b[0][r] = WX;
        b[1][r] = WXd;
    }
    __syncthreads();
    V sum = 0;
    if (is_node) {  // back along x
#pragma unroll
        for (int qx = 0; qx < Q; ++qx) {
            const int at = qx + Q * (r1 + Q * r2);
            sum += sB[qx * P + r0] * b[0][at] + sD[qx * P + r0] * b[1][at];
        }
    }
    return sum;
}

/// The first half of a 2D cell action: the reference gradient g (and, with LOWER, the value)
/// at this thread's point (r = r0 + Q r1) of u, the cell's values at the threads' nodes, by
/// contractions along x, then y through the buffers b. Every thread of the block calls it
/// (block barriers inside); buffers 0-2 are free again once the caller passes a barrier.
template <int P, int Q, bool LOWER, typename V>
__device__ void reference_gradient_2d(int r, V u, const V* sB, const V* sD, V (&b)[5][points_of<2, Q>], V (&g)[2],
                                      V& value)
{
    const int r0 = r % Q, r1 = r / Q;
    b[0][r] = u;
    __syncthreads();
    if (r1 < P) {  // along x: X = B u, Xd = D u
        V X = 0, Xd = 0;
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const V xi = b[0][i + Q * r1];
            X += sB[r0 * P + i] * xi;
            Xd += sD[r0 * P + i] * xi;
        }
        b[1][r] = X;
        b[2][r] = Xd;
    }
    __syncthreads();
    g[0] = g[1] = value = 0;
#pragma unroll
    for (int j = 0; j < P; ++j) {  // along y
        const int at = r0 + Q * j;
        g[0] += sB[r1 * P + j] * b[2][at];
        g[1] += sD[r1 * P + j] * b[1][at];
        if constexpr (LOWER) value += sB[r1 * P + j] * b[1][at];
    }
}

/// The second half in 2D: from the point's v = G grad (and s) back to this thread's node by
/// transposed contractions along y, then x; 0 on threads past the nodes. It writes buffers 0,
/// 3 and 4 before its first barrier, which reference_gradient_2d's last step does not read.
/// P: nodes per direction, the tables' row length. Block barriers inside.
template <int Q, bool LOWER, typename V>
__device__ V transposed_contractions_2d(int r, const V (&v)[2], V s, int P, const V* sB, const V* sD,
                                        V (&b)[5][points_of<2, Q>])
{
    const int r0 = r % Q, r1 = r / Q;
    const bool is_node = r0 < P && r1 < P;
    b[0][r] = v[0];
    b[3][r] = v[1];
    if constexpr (LOWER) b[4][r] = s;
    __syncthreads();
    if (r1 < P) {  // back along y
        V WX = 0, WXd = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) {
            const int at = r0 + Q * qy;
            WX += sD[qy * P + r1] * b[3][at];
            if constexpr (LOWER) WX += sB[qy * P + r1] * b[4][at];
            WXd += sB[qy * P + r1] * b[0][at];
        }
        b[1][r] = WX;
        b[2][r] = WXd;
    }
    __syncthreads();
    V sum = 0;
    if (is_node) {  // back along x
#pragma unroll
        for (int qx = 0; qx < Q; ++qx) {
            const int at = qx + Q * r1;
            sum += sB[qx * P + r0] * b[1][at] + sD[qx * P + r0] * b[2][at];
        }
    }
    return sum;
}

}  // namespace gpufem::kernels::cuda
