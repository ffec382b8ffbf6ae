#include "assembly/lma_system.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/phase_clock.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/cell_blocks.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lma_kernels.hpp"
#include "assembly/mixed_lma_operator.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {

template <typename V>
LmaSystem<V> assemble_lma_system(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 const LmaOptions& lma, const DirichletAdjustment<V>& adjust,
                                 index_type colour_split)
{
    if (lma.symmetric && has_convection(problem))
        throw std::invalid_argument("format_options.lma.symmetric: the convection term makes the "
                                    "element matrices non-symmetric; use symmetric: false");
    check_boundary_groups(mesh, problem);
    const auto build_start = phase_clock::now();
    LmaSystem<V> system;
    const index_type n = mesh.num_nodes();
    system.rhs = Array<V>(exec, n);
    fill(system.rhs, V(0));
    Array<std::uint8_t> mask;
    std::vector<std::unique_ptr<LmaOperator<V>>> operators;
    std::vector<ElementType> types;
    // The Robin facets' matrices (their loads into rhs), added to their cells' element matrices.
    auto start = phase_clock::now();
    const RobinFacets robin = located_robin_facets(mesh, problem.robin, system.rhs);
    system.times.boundary += phase_seconds(*exec, start);

    // One operator per cell type's block (a mesh of one type: the mesh itself), all adding
    // their loads into the one right-hand side; the boundary data with the first block's
    // geometry on the executor.
    const auto add_block = [&](const Mesh& cells_mesh, const index_type* cell_map, index_type block_split) {
        const int npe = cells_mesh.nodes_per_cell;
        AssemblyTimes times;
        const ElementData<V> data = timed_problem_element_data<V>(exec, cells_mesh, problem, times);
        system.times.geometry += times.geometry;
        system.times.coefficients += times.coefficients;

        start = phase_clock::now();
        const std::size_t cells = cells_mesh.num_cells();
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
            add_robin_to_cells(robin, cell_map, npe, stride, lma.symmetric, matrices.values);
        } else {
            ke = Array<V>(exec, cells * npe * npe);
            Array<V> fe(exec, cells * npe);
            GPUFEM_DISPATCH(*exec, element_matrices(*exec, data, ke.data(), fe.data()));
            add_robin_to_cells(robin, cell_map, npe, 0, false, ke);
            GPUFEM_DISPATCH(*exec, lma_scatter_loads(*exec, static_cast<index_type>(cells), npe,
                                                     data.cells.data(), fe.data(), system.rhs.data()));
        }
        system.times.values += phase_seconds(*exec, start);

        if (operators.empty()) {
            start = phase_clock::now();
            Array<double> coordinate_storage;
            const double* coordinates = double_coordinates(mesh, data, coordinate_storage);
            DirichletData<V> dirichlet = dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet);
            if (adjust) adjust(dirichlet);
            system.dirichlet_count = dirichlet.count;
            if (dirichlet.count > 0) mask = std::move(dirichlet.mask);
            system.initial_guess = std::move(dirichlet.values);
            add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
            system.times.boundary += phase_seconds(*exec, start);
        }
        start = phase_clock::now();
        operators.push_back(interleaved
                                ? make_lma_operator<V>(exec, data.cells, npe, n, std::move(matrices), mask, lma)
                                : make_lma_operator<V>(exec, data.cells, npe, n, ke, mask, lma, block_split));
        types.push_back(cells_mesh.cell_type);
        system.times.pattern += phase_seconds(*exec, start);
    };
    if (!mesh.is_mixed()) {
        add_block(mesh, nullptr, colour_split);
    } else {
        for (CellBlock& block : cell_blocks(mesh)) {
            const BlockDeviceCopy on_device(block.mesh, mesh, exec);
            const Array<index_type> cell_map = robin.empty() ? Array<index_type>() : block_cell_map(exec, mesh, block);
            // The block's cells keep the mesh's order: those before the split come first.
            const index_type block_split =
                colour_split < 0 ? -1
                                 : static_cast<index_type>(std::lower_bound(block.cells.begin(), block.cells.end(),
                                                                            colour_split) - block.cells.begin());
            add_block(block.mesh, cell_map.data(), block_split);
        }
    }

    start = phase_clock::now();
    if (operators.size() == 1) {
        operators.front()->eliminate_dirichlet(system.initial_guess, system.rhs);
        system.format.op = std::move(operators.front());
    } else {
        auto op = std::make_unique<MixedLmaOperator<V>>(std::move(operators), std::move(types), mask.clone_to(exec));
        op->eliminate_dirichlet(system.initial_guess, system.rhs);
        system.format.op = std::move(op);
    }
    system.times.boundary += phase_seconds(*exec, start);

    system.format.convert_seconds = phase_seconds(*exec, build_start);
    if (lma.scatter == LmaScatter::colour) system.format.host_steps = "element colouring (greedy)";
    return system;
}

template LmaSystem<float> assemble_lma_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                              const LmaOptions&, const DirichletAdjustment<float>&, index_type);
template LmaSystem<double> assemble_lma_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                               const LmaOptions&, const DirichletAdjustment<double>&, index_type);

}  // namespace gpufem

