#pragma once
// The 3D partial-assembly apply with a thread per (x, y) column of a cell's points: each
// thread holds its column's Q values along z in registers, so the contractions along z take
// no shared memory and no barrier (their table entries are the same for every thread: warp
// broadcasts), and those along x and y read Q^2 cell entries per thread from shared memory
// against the point-per-thread kernel's Q^3 threads each reading P. Included by pa_kernels.cu
// after its helpers
// (gathered, load_tables, point_step_3d); the steps' order and meaning are those of
// reference_gradient_3d and transposed_contractions_3d there.

/// Cells per block of the column apply: about 128 threads (measured faster than 256 or more
/// at every degree from 4 to 7, and level at 8); their buffers (three, four with lower-order
/// terms, of Q^3 values each) then stay within the 48 KB of static shared memory.
template <int Q>
constexpr int column_cells = Q * Q >= 128 ? 1 : 128 / (Q * Q);

/// After a block barrier (the buffers' last reads done), this thread's three columns c0, c1,
/// c2 (on threads tx < P) into buffers 0-2 at (tx, ty); then a barrier.
template <int P, int Q, typename V>
__device__ void store_three_columns(int tx, int ty, const V (&c0)[Q], const V (&c1)[Q], const V (&c2)[Q],
                                    V (*b)[Q * Q * Q])
{
    __syncthreads();
    if (tx < P) {
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            b[0][tx + Q * (ty + Q * qz)] = c0[qz];
            b[1][tx + Q * (ty + Q * qz)] = c1[qz];
            b[2][tx + Q * (ty + Q * qz)] = c2[qz];
        }
    }
    __syncthreads();
}

/// The reference gradient (and value) at the column's Q points from the cell's values:
/// along z in registers (u: the column's P node values, on threads tx, ty < P), then y and x
/// through the buffers b. Thread (tx, ty); every thread of the block calls it.
template <int P, int Q, bool LOWER, typename V>
__device__ void column_gradient(int tx, int ty, const V (&u)[P], const V* sB, const V* sD, V (*b)[Q * Q * Q],
                                V (&gx)[Q], V (&gy)[Q], V (&gz)[Q], V (&value)[Q])
{
    if (tx < P && ty < P) {  // along z: Z = B u, Zd = D u
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            V z = 0, zd = 0;
#pragma unroll
            for (int k = 0; k < P; ++k) {
                z += sB[qz * P + k] * u[k];
                zd += sD[qz * P + k] * u[k];
            }
            b[0][tx + Q * (ty + Q * qz)] = z;
            b[1][tx + Q * (ty + Q * qz)] = zd;
        }
    }
    __syncthreads();
    V zy[Q], zyd[Q], zdy[Q];  // along y at (x = tx, y = ty): ZY = B Z, ZYd = D Z, ZdY = B Zd
    if (tx < P) {
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            zy[qz] = zyd[qz] = zdy[qz] = 0;
#pragma unroll
            for (int j = 0; j < P; ++j) {
                const V z = b[0][tx + Q * (j + Q * qz)], zd = b[1][tx + Q * (j + Q * qz)];
                zy[qz] += sB[ty * P + j] * z;
                zyd[qz] += sD[ty * P + j] * z;
                zdy[qz] += sB[ty * P + j] * zd;
            }
        }
    }
    store_three_columns<P>(tx, ty, zy, zyd, zdy, b);
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {  // along x at (x = tx, y = ty)
        gx[qz] = gy[qz] = gz[qz] = value[qz] = 0;
#pragma unroll
        for (int i = 0; i < P; ++i) {
            const int at = i + Q * (ty + Q * qz);
            gx[qz] += sD[tx * P + i] * b[0][at];
            gy[qz] += sB[tx * P + i] * b[1][at];
            gz[qz] += sB[tx * P + i] * b[2][at];
            if constexpr (LOWER) value[qz] += sB[tx * P + i] * b[0][at];
        }
    }
}

/// From the column's v = G grad (and s) back to its P node values out (on threads tx, ty <
/// P): transposed along x and y through the buffers, then along z in registers.
template <int P, int Q, bool LOWER, typename V>
__device__ void column_transposed(int tx, int ty, const V (&v0)[Q], const V (&v1)[Q], const V (&v2)[Q],
                                  const V (&s)[Q], const V* sB, const V* sD, V (*b)[Q * Q * Q], V (&out)[P])
{
    __syncthreads();  // every thread has read the buffers of the gradient
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {
        const int r = tx + Q * (ty + Q * qz);
        b[0][r] = v0[qz];
        b[1][r] = v1[qz];
        b[2][r] = v2[qz];
        if constexpr (LOWER) b[3][r] = s[qz];
    }
    __syncthreads();
    V t0[Q], t1[Q], t2[Q];  // back along x at (node x = tx, point y = ty)
    if (tx < P) {
#pragma unroll
        for (int qz = 0; qz < Q; ++qz) {
            t0[qz] = t1[qz] = t2[qz] = 0;
#pragma unroll
            for (int qx = 0; qx < Q; ++qx) {
                const int at = qx + Q * (ty + Q * qz);
                t0[qz] += sD[qx * P + tx] * b[0][at];
                if constexpr (LOWER) t0[qz] += sB[qx * P + tx] * b[3][at];
                t1[qz] += sB[qx * P + tx] * b[1][at];
                t2[qz] += sB[qx * P + tx] * b[2][at];
            }
        }
    }
    store_three_columns<P>(tx, ty, t0, t1, t2, b);
#pragma unroll
    for (int k = 0; k < P; ++k) out[k] = 0;
    if (tx >= P || ty >= P) return;
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {  // back along y at node (tx, ty), then along z
        V w = 0, wd = 0;
#pragma unroll
        for (int qy = 0; qy < Q; ++qy) {
            const int at = tx + Q * (qy + Q * qz);
            w += sB[qy * P + ty] * b[0][at] + sD[qy * P + ty] * b[1][at];
            wd += sB[qy * P + ty] * b[2][at];
        }
#pragma unroll
        for (int k = 0; k < P; ++k) out[k] += sB[qz * P + k] * w + sD[qz * P + k] * wd;
    }
}

/// The 3D apply with a thread per column (see the file's comment), column_cells cells to a
/// block; y += alpha K x over the cells [begin, end), as apply_kernel.
template <int P, int Q, bool LOWER, typename V>
__global__ void __launch_bounds__(column_cells<Q> * Q * Q)
    column_apply_kernel(PaArgs<V> a, index_type begin, index_type end, V alpha, const V* __restrict__ x,
                        V* __restrict__ y, PaColumns columns)
{
    constexpr int T = Q * Q, E = column_cells<Q>, N = P * P * P;
    static_assert(E * (LOWER ? 4 : 3) * Q * Q * Q * sizeof(V) + 2 * Q * P * sizeof(V) <= 48 * 1024,
                  "the column apply's buffers exceed the static shared memory");
    __shared__ V sB[Q * P], sD[Q * P];
    __shared__ V buffers[E][LOWER ? 4 : 3][Q * Q * Q];
    load_tables(a, sB, sD, Q * P);
    const int slot = threadIdx.x / T, t = threadIdx.x % T, tx = t % Q, ty = t / Q;
    const index_type e = begin + static_cast<index_type>(blockIdx.x) * E + slot;
    const bool active = e < end;
    const bool node_column = active && tx < P && ty < P;
    // The column's first node; formed only for a column of nodes of a cell.
    const index_type* cell_nodes = node_column ? a.nodes + static_cast<long long>(e) * N + tx + P * ty : nullptr;
    V u[P];
#pragma unroll
    for (int k = 0; k < P; ++k) u[k] = node_column ? gathered(x, cell_nodes[P * P * k], columns) : V(0);
    __syncthreads();  // the tables
    V g0[Q], g1[Q], g2[Q], value[Q];
    column_gradient<P, Q, LOWER>(tx, ty, u, sB, sD, buffers[slot], g0, g1, g2, value);
    V s[Q];
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {  // the factors, in place of the gradient
        const V g[3] = {g0[qz], g1[qz], g2[qz]};
        V v[3];
        s[qz] = point_step_3d<LOWER>(a, e, tx + Q * (ty + Q * qz), active, g, value[qz], v);
        g0[qz] = v[0];
        g1[qz] = v[1];
        g2[qz] = v[2];
    }
    V out[P];
    column_transposed<P, Q, LOWER>(tx, ty, g0, g1, g2, s, sB, sD, buffers[slot], out);
    if (!node_column) return;
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const index_type stored = cell_nodes[P * P * k];
        if (stored >= 0) atomicAdd(&y[stored], alpha * out[k]);
    }
}
