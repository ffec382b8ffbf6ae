#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <variant>

#include "assembly/csr_pattern.hpp"
#include "assembly/poisson_assembly.hpp"
#include "high_order_meshes.hpp"
#include "simple_meshes.hpp"
#include "tests/random_values.hpp"

using namespace gpufem;

namespace {

/// First-order grids, and order-3 meshes of the unit box with their nodes renumbered at random
/// (so that rows gather cells in no particular order, and node numbers are not banded).
std::vector<Mesh> pattern_meshes(unsigned seed)
{
    std::vector<Mesh> meshes;
    std::mt19937 rng(seed);
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const bool plane = element_dimension(type) == 2;
        meshes.push_back(test::grid_mesh(type, plane ? 7 : 3));
        Mesh high = test::unit_box_mesh(type, 3, plane ? 0.3 : 0.5);
        std::vector<index_type> renumber(high.num_nodes());
        std::iota(renumber.begin(), renumber.end(), 0);
        std::shuffle(renumber.begin(), renumber.end(), rng);
        for (index_type& node : high.cells) node = renumber[node];
        meshes.push_back(std::move(high));
    }
    return meshes;
}

}  // namespace

TEST(CsrPattern, EqualsBruteForcePairSetAndMapsEveryLocalEntry)
{
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    for (const Mesh& mesh : pattern_meshes(seed)) {
        const ElementType type = mesh.cell_type;
        SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(mesh.degree) +
                     " seed " + std::to_string(seed));
        const int npe = mesh.nodes_per_cell;
        const auto cells = Array<index_type>::from_host(exec, mesh.cells);
        const CsrPattern p = build_csr_pattern(mesh.num_nodes(), cells, npe);

        std::set<std::pair<index_type, index_type>> pairs;
        for (index_type e = 0; e < mesh.num_cells(); ++e)
            for (int i = 0; i < npe; ++i)
                for (int j = 0; j < npe; ++j)
                    pairs.emplace(mesh.cells[e * npe + i], mesh.cells[e * npe + j]);

        const auto ptr = p.row_ptr.to_host(), col = p.col_idx.to_host(), pos = p.cell_to_csr.to_host();
        ASSERT_EQ(p.nnz(), pairs.size()) << element_type_name(type);
        std::size_t k = 0;
        for (const auto& [row, c] : pairs) {  // set order = row-major sorted order
            ASSERT_GE(static_cast<index_type>(k), ptr[row]);
            ASSERT_LT(static_cast<index_type>(k), ptr[row + 1]);
            ASSERT_EQ(col[k], c);
            ++k;
        }
        for (index_type e = 0; e < mesh.num_cells(); ++e)
            for (int i = 0; i < npe; ++i)
                for (int j = 0; j < npe; ++j) {
                    const index_type at = pos[(e * npe + i) * npe + j];
                    const index_type row = mesh.cells[e * npe + i];
                    ASSERT_GE(at, ptr[row]);
                    ASSERT_LT(at, ptr[row + 1]);
                    ASSERT_EQ(col[at], mesh.cells[e * npe + j]);
                }
    }
}

TEST(CsrPattern, WideOffsetsGiveTheSamePatternAndSystem)
{
    // 64-bit offsets (what a matrix past 2^31 - 1 entries gets; asked for here on small meshes):
    // the same rows and columns as 32-bit ones, and the assembly, which searches each row
    // instead of reading a cell-to-CSR map, the same values bit for bit (sums in the same order).
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    for (const Mesh& mesh : pattern_meshes(seed)) {
        SCOPED_TRACE(std::string(element_type_name(mesh.cell_type)) + " order " + std::to_string(mesh.degree) +
                     " seed " + std::to_string(seed));
        const auto cells = Array<index_type>::from_host(exec, mesh.cells);
        const AnyCsrPattern fit = build_any_csr_pattern(mesh.num_nodes(), cells, mesh.nodes_per_cell, false);
        const AnyCsrPattern wide = build_any_csr_pattern(mesh.num_nodes(), cells, mesh.nodes_per_cell, true);
        ASSERT_TRUE(std::holds_alternative<CsrPattern>(fit));
        ASSERT_TRUE(std::holds_alternative<WideCsrPattern>(wide));
        const auto narrow_ptr = std::get<CsrPattern>(fit).row_ptr.to_host();
        EXPECT_EQ(std::get<WideCsrPattern>(wide).row_ptr.to_host(),
                  std::vector<wide_offset_type>(narrow_ptr.begin(), narrow_ptr.end()));
        EXPECT_EQ(std::get<WideCsrPattern>(wide).col_idx.to_host(), std::get<CsrPattern>(fit).col_idx.to_host());
        const AnyCsrPattern bare = build_any_csr_pattern(mesh.num_nodes(), cells, mesh.nodes_per_cell, false, false);
        EXPECT_TRUE(std::get<CsrPattern>(bare).cell_to_csr.empty()) << "no positions asked for";
        EXPECT_EQ(std::get<CsrPattern>(bare).col_idx.to_host(), std::get<CsrPattern>(fit).col_idx.to_host());
    }
    ProblemSpec problem;
    problem.kappa = "1 + x*y";
    problem.f = "x - 2*y";
    problem.dirichlet = {{"left", "x + y"}, {"bottom", "1"}};
    problem.neumann = {{"right", "y"}};
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                             ElementType::hexahedron})
        for (int order = 1; order <= 3; ++order) {
            const bool plane = element_dimension(type) == 2;
            const Mesh mesh = test::unit_box_mesh(type, order, plane ? 0.25 : 0.5);
            problem.convection = order == 2 ? std::vector<double>(mesh.dim, 0.5) : std::vector<double>{};
            const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order);
            LinearSystem<double> narrow = assemble_poisson<double>(exec, mesh, problem, CsrOffsets::fit);
            const LinearSystem<double> wide = assemble_poisson<double>(exec, mesh, problem, CsrOffsets::wide);
            ASSERT_FALSE(narrow.wide_matrix) << what;
            ASSERT_TRUE(wide.wide_matrix) << what;
            EXPECT_EQ(wide.matrix.nnz(), 0u) << what;
            EXPECT_GT(wide.dirichlet_count, 0) << what;
            EXPECT_EQ(wide.rhs.to_host(), narrow.rhs.to_host()) << what;
            EXPECT_EQ(wide.initial_guess.to_host(), narrow.initial_guess.to_host()) << what;
            widen_offsets(narrow);  // the discretisations without a wide assembly of their own
            ASSERT_TRUE(narrow.wide_matrix) << what;
            EXPECT_EQ(wide.wide_matrix->row_ptr.to_host(), narrow.wide_matrix->row_ptr.to_host()) << what;
            EXPECT_EQ(wide.wide_matrix->col_idx.to_host(), narrow.wide_matrix->col_idx.to_host()) << what;
            EXPECT_EQ(wide.wide_matrix->values.to_host(), narrow.wide_matrix->values.to_host()) << what;
        }
}
