#pragma once
// Kernels of the conversion of point values from cells with GLL nodes to VTK's equispaced
// Lagrange points (mesh/gll_output.hpp), declared once, implemented in
// cpu/equispaced_kernels.cpp and cuda/equispaced_kernels.cu.
#include "linalg/backend_kernels.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// The most points per direction of a cell the conversion takes (degree 8).
inline constexpr int equispaced_max_points = 9;

/// A mesh of cells with GLL nodes as the conversion reads it (arrays on the kernels' executor).
struct EquispacedArgs {
    const index_type* cells = nullptr;  ///< nodes_per_cell per cell
    int nodes_per_cell = 0;
    long long num_cells = 0;
    long long num_nodes = 0;
    int points = 0;  ///< k + 1 per direction
    int dim = 0;
    const double* line = nullptr;          ///< [i][j]: GLL polynomial j at equispaced point i
    const int* lexicographic = nullptr;    ///< per cell node: its place on the (k + 1)^dim lattice
    const index_type* owner = nullptr;     ///< per node: its first cell, -1 for none
};

#define GPUFEM_KERNEL_LIST "mesh/equispaced_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
