#pragma once
// Shared by the flux tests on the CPU and the GPU: the sum-factorised flux kernels on an
// executor against the general flux kernels on the CPU (each cell's mean flux and integrals,
// the residual at the Dirichlet nodes and the flux's node sums) for quadrilaterals and
// hexahedra of orders 2 to 8.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "assembly/element_kernels.hpp"
#include "assembly/fe_fluxes.hpp"
#include "assembly/flux_kernels.hpp"
#include "assembly/tensor_flux_kernels.hpp"
#include "assembly/tensor_flux_tables.hpp"
#include "linalg/blas1.hpp"
#include "pa_test_support.hpp"
#include "random_values.hpp"

namespace gpufem::test {

/// What one flux pass gives: the cells' means and integrals, the residual, the node sums.
struct FluxPassResult {
    std::vector<double> mean_flux, integrals, residual, node_sum, node_weight;
};

/// The general or the sum-factorised (tensor) flux kernels of u on exec, residual at the nodes
/// of mask (empty: no Dirichlet nodes, no residual).
template <typename V>
FluxPassResult run_flux_pass(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                             const std::vector<V>& u, const std::vector<std::uint8_t>& mask, bool tensor)
{
    const std::size_t cells = static_cast<std::size_t>(mesh.num_cells()), n = u.size();
    const Array<V> u_on = Array<V>::from_host(exec, u);
    const Array<std::uint8_t> mask_on = Array<std::uint8_t>::from_host(exec, mask);
    const std::uint8_t* marked = mask.empty() ? nullptr : mask_on.data();
    Array<double> mean(exec, 3 * cells), integrals(exec, 5 * cells), residual(exec, n), sum(exec, 3 * n),
        weight(exec, n);
    fill(residual, 0.0), fill(sum, 0.0), fill(weight, 0.0);
    const ElementData<V> data = make_problem_element_data<V>(exec, mesh, problem);
    const ReferenceElement at_nodes = nodal_reference(mesh.cell_type, mesh.degree);
    ElementData<V> nodal = make_geometry_data<V>(exec, mesh, at_nodes);
    add_coefficients(nodal, mesh, at_nodes, problem);
    const auto c = static_cast<long long>(cells);
    if (tensor) {
        const auto tables = TensorFluxTables<V>::make(exec, mesh);
        if (!tables) {
            ADD_FAILURE() << "no tensor flux tables for the mesh";
            return {};
        }
        GPUFEM_DISPATCH(*exec, tensor_cell_fluxes(*exec, data.args(), tables->at_points(), u_on.data(), marked,
                                                  c, mean.data(), integrals.data(), residual.data()));
        GPUFEM_DISPATCH(*exec, tensor_node_fluxes(*exec, nodal.args(), tables->at_nodes(), u_on.data(), sum.data(),
                                                  weight.data()));
    } else {
        GPUFEM_DISPATCH(*exec, cell_flux_integrals(*exec, data, u_on.data(), nullptr, c, mean.data(), integrals.data()));
        if (marked) GPUFEM_DISPATCH(*exec, element_residual(*exec, data, u_on.data(), marked, residual.data()));
        GPUFEM_DISPATCH(*exec, node_flux_sums(*exec, nodal, u_on.data(), sum.data(), weight.data()));
    }
    exec->synchronize();
    return {mean.to_host(), integrals.to_host(), residual.to_host(), sum.to_host(), weight.to_host()};
}

/// The sum-factorised flux pass of u on exec against the general one on the CPU: every array
/// equal to rounding (tol), the residual zero off the marked nodes.
template <typename V>
void expect_same_flux_pass(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem, const std::vector<V>& u,
                           const std::vector<std::uint8_t>& mask, double tol, const std::string& what)
{
    const FluxPassResult general = run_flux_pass<V>(Executor::create_cpu(), mesh, problem, u, mask, false);
    const FluxPassResult tensor = run_flux_pass<V>(exec, mesh, problem, u, mask, true);
    ASSERT_EQ(tensor.residual.size(), u.size()) << what;
    EXPECT_LT(max_relative_difference(tensor.mean_flux, general.mean_flux), tol) << what;
    EXPECT_LT(max_relative_difference(tensor.integrals, general.integrals), tol) << what;
    EXPECT_LT(max_relative_difference(tensor.residual, general.residual), tol) << what;
    EXPECT_LT(max_relative_difference(tensor.node_sum, general.node_sum), tol) << what;
    EXPECT_LT(max_relative_difference(tensor.node_weight, general.node_weight), tol) << what;
    for (std::size_t i = 0; i < u.size(); ++i)
        if (mask.empty() || !mask[i]) ASSERT_EQ(tensor.residual[i], 0.0) << what << " node " << i;
}

/// The sum-factorised flux kernels on exec against the general ones on the CPU for
/// quadrilaterals and hexahedra of orders 2..8, straight and curved, with a tensor kappa,
/// convection and reaction varying in space (PaTerms::all): u random, about a third of the
/// nodes marked Dirichlet at random (fresh seed, printed). At orders 2 and 3 on 64 cells (16
/// quadrilaterals) also only the first cell's nodes marked (most blocks of cells then have
/// none) and no node marked.
template <typename V>
void check_tensor_fluxes_against_general(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    const double tol = sizeof(V) == 4 ? 2e-4 : 1e-10;
    for (const ElementType type : {ElementType::quadrilateral, ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        const ProblemSpec problem = pa_problem(dim, PaTerms::all);
        const std::string shape = std::string(element_type_name(type)) + " order ";
        for (int order = 2; order <= pa_highest_order; ++order)
            for (bool curved : {false, true}) {
                const unsigned case_seed = seed + static_cast<unsigned>(2 * order + curved);
                const Mesh mesh = pa_mesh(type, order, curved, case_seed, dim == 2 ? 0.25 : 0.5);
                const auto n = static_cast<std::size_t>(mesh.num_nodes());
                std::vector<std::uint8_t> mask(n);
                const std::vector<double> draw = random_vector<double>(n, case_seed + 7);
                for (std::size_t i = 0; i < n; ++i) mask[i] = draw[i] < -0.33;
                const std::string what = shape + std::to_string(order) + (curved ? " curved" : " straight") +
                                         " seed " + std::to_string(seed);
                expect_same_flux_pass<V>(exec, mesh, problem, random_vector<V>(n, case_seed), mask, tol, what);
            }
        for (int order = 2; order <= 3; ++order) {
            const Mesh mesh = pa_mesh(type, order, true, seed + 100 + order, 0.25);
            const auto n = static_cast<std::size_t>(mesh.num_nodes());
            const std::vector<V> u = random_vector<V>(n, seed + 200 + order);
            std::vector<std::uint8_t> first_cell(n, 0);
            for (int k = 0; k < mesh.nodes_per_cell; ++k) first_cell[static_cast<std::size_t>(mesh.cells[k])] = 1;
            const std::string what = std::to_string(mesh.num_cells()) + " cells, " + shape + std::to_string(order) +
                                     " seed " + std::to_string(seed);
            expect_same_flux_pass<V>(exec, mesh, problem, u, first_cell, tol, what + ", the first cell's nodes marked");
            expect_same_flux_pass<V>(exec, mesh, problem, u, {}, tol, what + ", none marked");
        }
    }
}

}  // namespace gpufem::test
