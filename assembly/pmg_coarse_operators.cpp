#include "assembly/pmg_coarse_operators.hpp"

#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "assembly/boundary_data.hpp"
#include "assembly/csr_pattern.hpp"
#include "assembly/element_galerkin_kernels.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/lma_system.hpp"
#include "assembly/phase_clock.hpp"
#include "assembly/pa_operator.hpp"
#include "mesh/grid_coarsening.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {

template <typename V>
std::vector<Csr<V>> pmg_coarse_operators(const ExecPtr& exec, const Mesh& mesh,
                                         const ProblemSpec& problem, const LinearOperator<V>* fine, bool first_given,
                                         std::span<const int> degrees)
{
    std::vector<Csr<V>> out;
    // A mesh of several cell types keeps its assembled matrix for pmg (R A P below it).
    if (mesh.is_mixed() || (mesh.degree <= 1 && !can_coarsen_grid(mesh))) return out;
    const Executor& e = *exec;
    const int npe = mesh.nodes_per_cell;
    const index_type cells = mesh.num_cells();
    const bool fine_here = fine && fine->executor()->backend() == exec->backend() &&
                           fine->executor()->device_id() == exec->device_id();
    const auto* stored = fine_here ? dynamic_cast<const LmaOperator<V>*>(fine) : nullptr;
    const auto* factors = fine_here ? dynamic_cast<const PaOperator<V>*>(fine) : nullptr;
    // pa's Galerkin products are its cells'; with Robin facets the element path below adds them.
    if (factors && (!factors->covers(mesh.dim, mesh.degree, cells) || factors->has_robin())) factors = nullptr;
    bool from_storage = stored && stored->cells_in_own_order() && stored->stored().npe == npe;
    std::optional<ElementData<V>> data;
    Array<V> ke;
    Array<std::uint8_t> mask;
    // Without a usable storage, symmetric element matrices (no convection) are stored as the lma
    // format's atomic, symmetric variant keeps them (its system, built here), read below as if
    // given: 36 instead of 64 values a hexahedron (100M Q1 cells: 29 GB instead of 51 GB beside
    // a 64-bit CSR).
    std::unique_ptr<LinearOperator<V>> own_storage;
    if (!from_storage && !factors && !has_convection(problem)) {
        own_storage = std::move(
            assemble_lma_system<V>(exec, mesh, problem, LmaOptions{LmaScatter::atomic, true, LmaKernel::automatic})
                .format.op);
        stored = dynamic_cast<const LmaOperator<V>*>(own_storage.get());
        from_storage = stored != nullptr;
    }
    if (!from_storage && !factors) {
        data.emplace(make_problem_element_data<V>(exec, mesh, problem));
        ke = Array<V>(exec, static_cast<std::size_t>(cells) * npe * npe);
        Array<V> fe(exec, static_cast<std::size_t>(cells) * npe);
        GPUFEM_DISPATCH(e, element_matrices(e, *data, ke.data(), fe.data()));
        if (!problem.robin.empty()) {  // the Robin term in the cells' matrices, as the system's
            Array<V> loads(exec, static_cast<std::size_t>(mesh.num_nodes()));
            fill(loads, V(0));
            add_robin_to_cells(located_robin_facets(mesh, problem.robin, loads), nullptr, npe, 0, false, ke);
        }
        // The system's Dirichlet nodes (every node of a Dirichlet group's facets): eliminated
        // from the element matrices as the system eliminates them.
        Array<double> coordinate_storage;
        const double* coordinates = double_coordinates(mesh, *data, coordinate_storage);
        if (!problem.dirichlet.empty())
            mask = std::move(dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet).mask);
    }
    // Each coarse level: its nodes, each cell's coarse nodes (the parent's for an h-level),
    // the reference projections and which cell and projection each cell takes.
    StepLaps laps(e);
    const auto add_level = [&](index_type n, const Array<index_type>& coarse_cells, int ncl,
                               const std::vector<double>& projections, const CellCoarsening& coarsening) {
        CsrPattern pattern = build_csr_pattern(n, coarse_cells, ncl);
        laps("pattern");
        const std::size_t nnz = pattern.nnz();
        Csr<V> a{n, n, std::move(pattern.row_ptr), std::move(pattern.col_idx), Array<V>(exec, nnz)};
        fill(a.values, V(0));
        if (factors) {  // its own copy, rows in its node order
            factors->add_element_galerkin(ncl, projections, coarsening, pattern.cell_to_csr.data(), a.values.data());
            laps("products");
            out.push_back(std::move(a));
            return;
        }
        std::vector<V> weights(projections.begin(), projections.end());
        const Array<V> p = Array<V>::from_host(exec, weights);
        if (from_storage) {
            GPUFEM_DISPATCH(e, element_galerkin_add_stored(e, cells, stored->stored(), ncl, p.data(), coarsening,
                                                           pattern.cell_to_csr.data(), a.values.data()));
        } else {
            GPUFEM_DISPATCH(e, element_galerkin_add(e, cells, npe, ncl, ke.data(), data->cells.data(),
                                                    mask.empty() ? nullptr : mask.data(), p.data(), coarsening,
                                                    pattern.cell_to_csr.data(), a.values.data()));
        }
        laps("products");
        out.push_back(std::move(a));
    };
    if (mesh.degree == 1) {  // the h-level of a generated grid
        const GridCoarsening coarse = coarsen_grid(mesh, exec);
        add_level(static_cast<index_type>(coarse.coarse_nodes), coarse.coarse_cells, coarse.nodes_per_cell,
                  coarse.weights, CellCoarsening{coarse.parent.data(), coarse.child.data()});
        spdlog::debug("pmg's first coarse operators from the elements: {}", laps.text());
        return out;
    }
    for (const int degree : pmg_degrees_or_default(mesh, degrees)) {
        if (first_given && out.empty()) {
            out.emplace_back();
            continue;
        }
        const LagrangeSpace space = lagrange_space(mesh, degree, exec);
        laps("space");
        add_level(space.size(), space.cell_dofs, space.dofs_per_cell, space.embedding.weights, CellCoarsening{});
    }
    spdlog::debug("pmg's coarse operators from the elements: {}", laps.text());
    return out;
}

template std::vector<Csr<float>> pmg_coarse_operators(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                                      const LinearOperator<float>*, bool, std::span<const int>);
template std::vector<Csr<double>> pmg_coarse_operators(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                                       const LinearOperator<double>*, bool, std::span<const int>);

}  // namespace gpufem
