#include <gtest/gtest.h>

#include <set>

#include "assembly/csr_pattern.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

TEST(CsrPattern, EqualsBruteForcePairSetAndMapsEveryLocalEntry)
{
    const auto exec = Executor::create_cpu();
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 7 : 3);
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
