#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "assembly/csr_pattern.hpp"
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
