#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "mesh/structured_grid.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// One thread per lattice point.
__global__ void coordinates_kernel(StructuredGrid grid, double* __restrict__ coordinates)
{
    const long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (p >= grid.num_points()) return;
    long long at[3];
    grid.point(p, at);
    for (int axis = 0; axis < 3; ++axis) coordinates[3 * p + axis] = grid.position(axis, at[axis]);
}

/// One thread per cell node entry (box b, entry q of its cells_per_box * nodes_per_cell).
__global__ void cells_kernel(StructuredGrid grid, const int* __restrict__ patterns, long long per_box,
                             index_type* __restrict__ cells)
{
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= grid.num_boxes() * per_box) return;
    const long long b = t / per_box, q = t % per_box;
    long long corner[3];
    grid.box(b, corner);
    const int* offset = patterns + 3 * q;
    cells[t] = static_cast<index_type>(grid.point_index(grid.k * corner[0] + offset[0],
                                                        grid.k * corner[1] + offset[1],
                                                        grid.k * corner[2] + offset[2]));
}

__global__ void nested_box_parents_kernel(StructuredGrid fine, StructuredGrid coarse, int cells_per_box,
                                          const int* __restrict__ coarse_cell_of_child,
                                          index_type* __restrict__ parent, std::uint8_t* __restrict__ child)
{
    const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (c < fine.num_boxes() * cells_per_box)
        nested_box_parent(fine, coarse, cells_per_box, coarse_cell_of_child, c, parent[c], child[c]);
}

}  // namespace

void fill_structured_mesh(const Executor& exec, const StructuredGrid& grid, const int* patterns,
                          int cells_per_box, int nodes_per_cell, double* coordinates,
                          index_type* cells)
{
    auto stream = stream_of(exec);
    const long long points = grid.num_points();
    const long long per_box = static_cast<long long>(cells_per_box) * nodes_per_cell;
    const long long entries = grid.num_boxes() * per_box;
    if (points > 0 && coordinates) {
        coordinates_kernel<<<grid_for(points), block_size, 0, stream>>>(grid, coordinates);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
    if (entries > 0) {
        cells_kernel<<<grid_for(entries), block_size, 0, stream>>>(grid, patterns, per_box, cells);
        GPUFEM_CUDA_CHECK_LAUNCH();
    }
}

void nested_box_parents(const Executor& exec, const StructuredGrid& fine, const StructuredGrid& coarse,
                        int cells_per_box, const int* coarse_cell_of_child, index_type* parent, std::uint8_t* child)
{
    const long long cells = fine.num_boxes() * cells_per_box;
    if (cells == 0) return;
    nested_box_parents_kernel<<<grid_for(cells), block_size, 0, stream_of(exec)>>>(
        fine, coarse, cells_per_box, coarse_cell_of_child, parent, child);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

}  // namespace gpufem::kernels::cuda
