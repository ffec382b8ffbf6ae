#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/structured_grid.hpp"

namespace gpufem::kernels::cpu {

void fill_structured_mesh(const Executor&, const StructuredGrid& grid, const int* patterns,
                          int cells_per_box, int nodes_per_cell, double* coordinates,
                          index_type* cells)
{
    // The threads write the pages first (the arrays come unwritten: HostVector).
    if (coordinates) chunked_for(grid.num_points(), [&](long long p) {
        long long at[3];
        grid.point(p, at);
        for (int axis = 0; axis < 3; ++axis) coordinates[3 * p + axis] = grid.position(axis, at[axis]);
    });
    const long long per_box = static_cast<long long>(cells_per_box) * nodes_per_cell;
    chunked_for(grid.num_boxes(), [&](long long b) {
        long long corner[3];
        grid.box(b, corner);
        index_type* out = cells + b * per_box;
        for (long long q = 0; q < per_box; ++q) {
            const int* offset = patterns + 3 * q;
            out[q] = static_cast<index_type>(grid.point_index(grid.k * corner[0] + offset[0],
                                                              grid.k * corner[1] + offset[1],
                                                              grid.k * corner[2] + offset[2]));
        }
    });
}

void nested_box_parents(const Executor&, const StructuredGrid& fine, const StructuredGrid& coarse, int cells_per_box,
                        const int* coarse_cell_of_child, index_type* parent, std::uint8_t* child)
{
    chunked_for(fine.num_boxes() * cells_per_box, [&](long long c) {
        nested_box_parent(fine, coarse, cells_per_box, coarse_cell_of_child, c, parent[c], child[c]);
    });
}

}  // namespace gpufem::kernels::cpu
