#include <algorithm>
#include <atomic>
#include <cmath>

#include "assembly/fv_kernels.hpp"
#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem::kernels::cpu {

long long fv_cell_geometry(const Executor&, const FvMeshView& mesh, double* centroid, double* volume)
{
    std::atomic<long long> first_bad{-1};
    chunked_for(mesh.num_cells, [&](long long c) {
        fv_cell_shape(mesh, c, centroid + 3 * c, volume[c]);
        if (!(volume[c] > 0)) {
            long long seen = first_bad.load();
            while ((seen < 0 || c < seen) && !first_bad.compare_exchange_weak(seen, c)) {
            }
        }
    });
    return first_bad.load();
}

long long fv_row_offsets(const Executor&, const FvMeshView& mesh, long long pinned, index_type* row_ptr)
{
    row_ptr[0] = 0;
    chunked_for(mesh.num_cells, [&](long long c) {
        index_type count = 1;
        if (c != pinned)
            for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
                const index_type n = mesh.neighbour[c * mesh.faces_per_cell + f];
                count += n >= 0 && n != pinned;
            }
        row_ptr[c + 1] = count;
    });
    for (long long c = 0; c < mesh.num_cells; ++c) row_ptr[c + 1] += row_ptr[c];
    return row_ptr[mesh.num_cells];
}

double fv_max_nonorthogonality(const Executor&, const FvMeshView& mesh)
{
    double largest = 0.0;
    for (long long c = 0; c < mesh.num_cells; ++c)
        for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f)
            largest = std::max(largest, fv_face_nonorthogonality(mesh, c, f));
    return largest;
}

template <typename V>
void fv_assemble(const Executor&, const FvMeshView& mesh, const FvProblemView& problem,
                 const index_type* row_ptr, index_type* cols, V* values, V* rhs)
{
    chunked_for(mesh.num_cells, [&](long long c) { fv_write_row(mesh, problem, c, row_ptr, cols, values, rhs); });
}

template <typename V>
void fv_cell_gradients(const Executor&, const FvMeshView& mesh, const FvProblemView& problem, const V* u,
                       long long cells, double* gradient)
{
    chunked_for(cells, [&](long long c) { fv_cell_gradient(mesh, problem, u, c, gradient + 3 * c); });
}

template <typename V>
void fv_corrected_rows(const Executor&, const FvMeshView& mesh, const FvProblemView& problem, const V* u,
                       const V* base, const double* gradient, long long rows, V* rhs)
{
    chunked_for(rows, [&](long long c) { rhs[c] = fv_corrected_row_rhs(mesh, problem, c, gradient, u, base); });
}

template <typename V>
void fv_face_fluxes(const Executor&, const FvMeshView& mesh, const FvProblemView& problem, const V* u,
                    const double* gradient, double* flux)
{
    chunked_for(mesh.num_cells, [&](long long c) { fv_cell_fluxes(mesh, problem, c, u, gradient, flux); });
}

template <typename V>
void fv_flux_integrals(const Executor&, long long n, const FvProblemView& problem, const double* volume, const V* u,
                       double shift_u, const double* gradient, double* flux, double* integrals)
{
    chunked_for(n, [&](long long c) {
        fv_cell_flux_integrals(problem, volume, u, shift_u, gradient, c, n, flux, integrals);
    });
}

long long fv_boundary_face_tags(const Executor&, const FvMeshView& mesh, const int* conditioned, int others,
                                const double* flux, int* tag)
{
    const long long slots = mesh.num_cells * mesh.faces_per_cell;
    long long free_faces = 0;
#pragma omp parallel for schedule(static) reduction(+ : free_faces)
    for (long long slot = 0; slot < slots; ++slot) {
        tag[slot] = fv_boundary_face_tag(mesh, conditioned, others, flux, slot);
        free_faces += tag[slot] == others;
    }
    return free_faces;
}

void fv_node_flux_sums(const Executor&, const FvMeshView& mesh, long long n, const double* flux, double* sum,
                       double* weight)
{
    for (long long c = 0; c < n; ++c)
        for (int k = 0; k < mesh.nodes_per_cell; ++k) {
            const index_type node = mesh.cells[c * mesh.nodes_per_cell + k];
            if (node < 0) continue;
            for (int d = 0; d < 3; ++d) sum[3 * node + d] += mesh.volume[c] * flux[d * n + c];
            weight[node] += mesh.volume[c];
        }
}

template <typename V>
FvErrorSums fv_errors(const Executor&, const ExprInstruction* program, const double* centroid,
                      const double* volume, long long n, const V* u, double shift_u,
                      double shift_exact, double* exact, double* error)
{
    FvErrorSums sums;
    bool nan = false;
    for (long long c = 0; c < n; ++c) {
        const auto [ue, uh, e] = fv_cell_error(program, centroid, c, u, shift_u, shift_exact);
        if (exact) exact[c] = ue;
        if (error) error[c] = e;
        sums.volume += volume[c];
        sums.u += volume[c] * uh;
        sums.exact += volume[c] * ue;
        sums.l2 += volume[c] * e * e;
        sums.l2_exact += volume[c] * ue * ue;
        nan = nan || std::isnan(e);
        sums.max_error = std::max(sums.max_error, std::abs(e));
    }
    if (nan) sums.max_error = std::nan("");
    return sums;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(fv_assemble, fv_cell_gradients, fv_corrected_rows, fv_face_fluxes,
                                  fv_flux_integrals, fv_errors)

}  // namespace gpufem::kernels::cpu
