#include "assembly/lma_system.hpp"

#include <chrono>
#include <stdexcept>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lma_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

/// Seconds since start after waiting for exec's queued work.
double elapsed(const Executor& exec, clock_type::time_point start)
{
    exec.synchronize();
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace

template <typename V>
LmaSystem<V> assemble_lma_system(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 const LmaOptions& lma)
{
    if (lma.symmetric && !problem.convection.empty())
        throw std::invalid_argument("format_options.lma.symmetric: the convection term makes the "
                                    "element matrices non-symmetric; use symmetric: false");
    check_boundary_groups(mesh, problem);
    const auto build_start = clock_type::now();
    LmaSystem<V> system;
    const index_type n = mesh.num_nodes();
    const int npe = mesh.nodes_per_cell;

    const ElementData<V> data = timed_problem_element_data<V>(exec, mesh, problem, system.times);

    auto start = clock_type::now();
    const std::size_t cells = mesh.num_cells();
    system.rhs = Array<V>(exec, n);
    fill(system.rhs, V(0));
    // The atomic scatter keeps the cells in their own order: the element kernels write
    // straight into the operator's interleaved layout (no cell-major copy: 52 GB for 100M
    // hexahedra). The colour variant orders the cells by colour first, from a cell-major copy.
    const bool interleaved = lma.scatter == LmaScatter::atomic;
    Array<V> ke;
    InterleavedElementMatrices<V> matrices;
    if (interleaved) {
        const index_type stride = lma_stride(static_cast<index_type>(cells));
        matrices.values = Array<V>(exec, static_cast<std::size_t>(stride) * lma_entries_per_cell(npe, lma.symmetric));
        fill(matrices.values, V(0));  // the padding slots past the cells
        GPUFEM_DISPATCH(*exec, element_matrices_interleaved(*exec, data, stride, lma.symmetric,
                                                            matrices.values.data(), system.rhs.data()));
    } else {
        ke = Array<V>(exec, cells * npe * npe);
        Array<V> fe(exec, cells * npe);
        GPUFEM_DISPATCH(*exec, element_matrices(*exec, data, ke.data(), fe.data()));
        GPUFEM_DISPATCH(*exec, lma_scatter_loads(*exec, static_cast<index_type>(cells), npe,
                                                 data.cells.data(), fe.data(), system.rhs.data()));
    }
    system.times.values = elapsed(*exec, start);

    start = clock_type::now();
    Array<double> coordinate_storage;
    const double* coordinates = double_coordinates(mesh, data, coordinate_storage);
    DirichletData<V> dirichlet = dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet);
    system.dirichlet_count = dirichlet.count;
    const Array<std::uint8_t> mask =
        dirichlet.count > 0 ? std::move(dirichlet.mask) : Array<std::uint8_t>();
    auto op = interleaved ? make_lma_operator<V>(exec, data.cells, npe, n, std::move(matrices), mask, lma)
                          : make_lma_operator<V>(exec, data.cells, npe, n, ke, mask, lma);
    ke = Array<V>();  // the operator holds its own interleaved copy
    system.times.pattern = elapsed(*exec, start);

    start = clock_type::now();
    add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
    system.initial_guess = std::move(dirichlet.values);
    op->eliminate_dirichlet(system.initial_guess, system.rhs);
    system.times.boundary = elapsed(*exec, start);

    system.format.op = std::move(op);
    system.format.convert_seconds = elapsed(*exec, build_start);
    if (lma.scatter == LmaScatter::colour) system.format.host_steps = "element colouring (greedy)";
    return system;
}

template LmaSystem<float> assemble_lma_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                              const LmaOptions&);
template LmaSystem<double> assemble_lma_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                               const LmaOptions&);

}  // namespace gpufem

