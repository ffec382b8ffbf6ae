// The LMA operator on the CPU: every variant against the assembled CSR SpMV, and the element
// colouring it relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "assembly/element_colouring.hpp"
#include "lma_test_support.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

namespace {

/// Expects a valid colouring (every cell once; no two cells of a colour share a node) with at
/// most max(max_colours, largest number of cells at one node) colours: the cells at one node
/// form a clique, so that number is a lower bound (44 at a vertex of Gmsh's unit-cube tets).
void expect_valid_colouring(const Mesh& mesh, int max_colours, const std::string& what)
{
    const ElementColouring c = colour_elements(mesh.cells, mesh.nodes_per_cell, mesh.num_nodes());
    ASSERT_EQ(c.cells.size(), static_cast<std::size_t>(mesh.num_cells())) << what;
    EXPECT_EQ(std::set<index_type>(c.cells.begin(), c.cells.end()).size(), c.cells.size()) << what;
    std::vector<int> valence(mesh.num_nodes(), 0);
    for (index_type node : mesh.cells) ++valence[node];
    const int clique = *std::max_element(valence.begin(), valence.end());
    EXPECT_LE(c.num_colours(), std::max(max_colours, clique)) << what;
    for (int colour = 0; colour < c.num_colours(); ++colour) {
        std::vector<char> used(mesh.num_nodes(), 0);
        for (index_type k = c.colour_offsets[colour]; k < c.colour_offsets[colour + 1]; ++k)
            for (int i = 0; i < mesh.nodes_per_cell; ++i) {
                const index_type node = mesh.cells[static_cast<std::size_t>(c.cells[k]) * mesh.nodes_per_cell + i];
                ASSERT_FALSE(used[node]) << what << ": colour " << colour << " shares node " << node;
                used[node] = 1;
            }
    }
    std::cout << "[ colours  ] " << what << ": " << c.num_colours() << " (cells " << mesh.num_cells()
              << ", most cells at one node " << clique << ")\n";
}

}  // namespace

TEST(LmaColouring, StructuredGridsUseFewColours)
{
    expect_valid_colouring(test::grid_mesh(ElementType::quadrilateral, 12), 4, "structured quads");
    expect_valid_colouring(test::grid_mesh(ElementType::hexahedron, 5), 8, "structured hexes");
}

TEST(LmaColouring, GmshMeshesOfEveryTypeAndOrderAreValid)
{
    for (ElementType type : test::lma_types)
        for (int order = 1; order <= 2; ++order) {
            const bool simplex = type == ElementType::triangle || type == ElementType::tetrahedron;
            const int max_colours = element_dimension(type) == 2 ? (simplex ? 16 : 8) : (simplex ? 30 : 16);
            expect_valid_colouring(test::lma_mesh(type, order), max_colours,
                                   std::string(element_type_name(type)) + " order " + std::to_string(order));
        }
}

TEST(LmaOperator, MatchesCsrDouble) { test::check_lma_against_csr<double>(Executor::create_cpu()); }
TEST(LmaOperator, MatchesCsrFloat) { test::check_lma_against_csr<float>(Executor::create_cpu()); }

TEST(LmaOperator, DiagonalIsTheAssembledDiagonal)
{
    const auto exec = Executor::create_cpu();
    const Mesh mesh = test::lma_mesh(ElementType::quadrilateral, 2);
    const auto p = test::make_lma_problem<double>(exec, mesh, false);
    const auto op = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask, {});
    // a_ii = e_i^T A e_i through the CSR reference.
    const std::vector<double> diag = op->diagonal().to_host();
    for (index_type i = 0; i < p.num_nodes; i += 7) {
        std::vector<double> e(p.num_nodes, 0.0);
        e[i] = 1;
        Array<double> x = Array<double>::from_host(exec, e), y(exec, p.num_nodes);
        p.csr->apply(x, y);
        EXPECT_NEAR(diag[i], y.to_host()[i], 1e-13 * std::abs(diag[i])) << "node " << i;
    }
    EXPECT_EQ(op->format(), "lma");
    EXPECT_GT(op->bytes_stored(), p.ke.bytes());
    EXPECT_GT(op->spmv_min_bytes(), p.ke.bytes());
}

TEST(LmaOperator, SymmetricStorageHalvesTheMatrices)
{
    const auto exec = Executor::create_cpu();
    const auto p = test::make_lma_problem<double>(exec, test::lma_mesh(ElementType::triangle, 3), false);
    const auto full = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                                {LmaScatter::atomic, false});
    const auto sym = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                               {LmaScatter::atomic, true});
    const std::size_t cells = p.cells.size() / p.npe;
    EXPECT_EQ(full->bytes_stored() - sym->bytes_stored(),
              cells * (p.npe * p.npe - p.npe * (p.npe + 1) / 2) * sizeof(double));
}
