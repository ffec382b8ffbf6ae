// The LMA operator on the CPU: every variant against the assembled CSR SpMV, and the element
// colouring it relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

#include "assembly/element_colouring.hpp"
#include "linalg/blas1.hpp"
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

TEST(LmaColouring, MoreThanSixtyFourCellsAroundANodeTakeWiderColourSets)
{
    // A fan of 150 triangles around node 0: they all share it, so each needs its own colour,
    // past the 64 one word of a node's colour set holds (the sets are widened twice).
    Mesh fan;
    fan.dim = 2;
    fan.cell_type = ElementType::triangle;
    fan.nodes_per_cell = 3;
    const int cells = 150;
    fan.coordinates = {0, 0, 0};
    for (int k = 0; k <= cells; ++k)
        fan.coordinates.insert(fan.coordinates.end(), {std::cos(2.0 * k / cells), std::sin(2.0 * k / cells), 0.0});
    for (int k = 0; k < cells; ++k) fan.cells.insert(fan.cells.end(), {0, k + 1, k + 2});
    fan.cell_group.assign(cells, 0);
    expect_valid_colouring(fan, cells, "fan of 150 triangles");
    EXPECT_EQ(colour_elements(fan.cells, 3, fan.num_nodes()).num_colours(), cells);
    // A node past the nodes is refused.
    EXPECT_THROW(colour_elements(fan.cells, 3, fan.num_nodes() - 1), std::out_of_range);
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

constexpr LmaKernel cpu_kernels[] = {LmaKernel::automatic};  // the CPU has one

TEST(LmaOperator, MatchesCsrDouble)
{
    test::check_lma_against_csr<double>(Executor::create_cpu(), cpu_kernels);
}
TEST(LmaOperator, MatchesCsrFloat)
{
    test::check_lma_against_csr<float>(Executor::create_cpu(), cpu_kernels);
}

TEST(LmaOperator, GivesAFloatCopyForAFloatMultigridCycle)
{
    test::check_lma_float_copies(Executor::create_cpu(), cpu_kernels);
}

TEST(LmaOperator, ColourScatterMatchesAtomicOnRandomMatrices)
{
    // Non-symmetric element matrices (full storage) and a random Dirichlet mask: the parallel
    // colour scatter against the sequential atomic one, many tiles and colours.
    const auto cpu = Executor::create_cpu();
    test::check_lma_random_against_cpu<double>(cpu, test::grid_mesh(ElementType::quadrilateral, 20),
                                               cpu_kernels, 11);
    test::check_lma_random_against_cpu<double>(cpu, test::unit_box_mesh(ElementType::hexahedron, 2, 0.25),
                                               cpu_kernels, 21);
}

TEST(LmaOperator, PaddedSlotsAndDirichletEncodingAreInvisible)
{
    // bytes_stored counts the padded interleaved arrays (every colour starts at a multiple of
    // lma_position_alignment slots), the diagonal, the mask and the Dirichlet node list.
    const auto exec = Executor::create_cpu();
    Mesh mesh = test::grid_mesh(ElementType::quadrilateral, 7);  // 49 cells, 4 colours
    test::add_box_boundaries(mesh);
    const auto p = test::make_lma_problem<double>(exec, mesh, true);
    const auto colour = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                                  {LmaScatter::colour, false});
    const auto atomic = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                                  {LmaScatter::atomic, false});
    EXPECT_EQ(colour->num_colours(), 4);
    const std::size_t per_slot = p.npe * p.npe * sizeof(double) + p.npe * sizeof(index_type);
    const std::vector<std::uint8_t> mask = p.mask.to_host();
    const std::size_t dirichlet = std::count(mask.begin(), mask.end(), 1);
    EXPECT_EQ(dirichlet, 28u);  // the boundary nodes of a 7 x 7 grid
    const std::size_t fixed = p.num_nodes * (sizeof(double) + 1) + dirichlet * sizeof(index_type);
    EXPECT_EQ(atomic->bytes_stored(), 64 * per_slot + fixed + 2 * sizeof(index_type));
    EXPECT_EQ(colour->bytes_stored(), 4 * 32 * per_slot + fixed + 8 * sizeof(index_type));
    test::expect_same_apply<double>(*colour, *p.csr, 0.5, 2.0, 5, "colour, padded");
    test::expect_same_apply<double>(*atomic, *p.csr, 0.5, 2.0, 6, "atomic, padded");
}

namespace {

/// y = sum of the element matrices of the colours [first, last) of op times x (no Dirichlet nodes).
std::vector<double> colours_times(const LmaOperator<double>& op, int first, int last, const Array<double>& x)
{
    Array<double> y(op.executor(), x.size());
    fill(y, 0.0);
    op.apply_colours(first, last, 1.0, x.data(), y.data());
    return y.to_host();
}

/// The atomic operator of the cells [first, last) alone times x.
std::vector<double> cells_times(const test::LmaProblem<double>& p, index_type first, index_type last,
                                const Array<double>& x)
{
    const ExecPtr& exec = x.executor();
    const auto npe = static_cast<std::size_t>(p.npe);
    const std::vector<index_type> cells = p.cells.to_host();
    const std::vector<double> ke = p.ke.to_host();
    const auto range = [&](const auto& all, std::size_t per_cell) {
        return std::vector(all.begin() + first * per_cell, all.begin() + last * per_cell);
    };
    const auto op = make_lma_operator<double>(exec, Array<index_type>::from_host(exec, range(cells, npe)), p.npe,
                                              p.num_nodes, Array<double>::from_host(exec, range(ke, npe * npe)), {},
                                              {LmaScatter::atomic, false});
    Array<double> y(exec, x.size());
    op->apply(x, y);
    return y.to_host();
}

}  // namespace

TEST(LmaOperator, AColourSplitColoursTheCellsOnEachSideApart)
{
    // A rank's cells before and after the halo: each group's colours hold only its cells (their
    // products equal the atomic operator of those cells alone), and all of them the whole
    // operator; a split at either end leaves one group empty.
    const auto exec = Executor::create_cpu();
    const unsigned seed = test::random_seed();
    for (const Mesh& mesh : {test::unit_box_mesh(ElementType::tetrahedron, 2, 0.3), test::grid_mesh(ElementType::quadrilateral, 9)}) {
        const auto p = test::make_lma_problem<double>(exec, mesh, false);
        const index_type cells = mesh.num_cells();
        const Array<double> x = Array<double>::from_host(exec, test::random_vector<double>(p.num_nodes, seed));
        for (const index_type split : {cells / 3 + 1, index_type(0), cells}) {
            SCOPED_TRACE(std::to_string(cells) + " cells, split " + std::to_string(split));
            const auto op = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, {},
                                                      {LmaScatter::colour, false}, split);
            const int before = op->colours_before_split();
            EXPECT_EQ(before == 0, split == 0);
            EXPECT_EQ(before == op->num_colours(), split == cells);
            EXPECT_LT(test::max_rel_diff(colours_times(*op, 0, before, x), cells_times(p, 0, split, x)), 1e-14);
            EXPECT_LT(test::max_rel_diff(colours_times(*op, before, op->num_colours(), x), cells_times(p, split, cells, x)),
                      1e-14);
            test::expect_same_apply<double>(*op, *p.csr, 0.5, 2.0, seed + 1, "split colours");
            EXPECT_THROW(colours_times(*op, before, op->num_colours() + 1, x), std::out_of_range);
            EXPECT_THROW(colours_times(*op, -1, before, x), std::out_of_range);
        }
    }
    EXPECT_THROW(make_lma_operator<double>(exec, Array<index_type>::from_host(exec, std::vector<index_type>{0, 1, 2}), 3,
                                           3, Array<double>::from_host(exec, std::vector<double>(9, 1.0)), {},
                                           {LmaScatter::colour, false}, 2),
                 std::invalid_argument);
}

TEST(LmaKernelChoice, NamesRoundTripAndAutoResolves)
{
    for (const char* name : {"auto", "cell", "tile", "twin"})
        EXPECT_STREQ(lma_kernel_name(lma_kernel_from_name(name)), name);
    EXPECT_THROW(lma_kernel_from_name("warp"), std::invalid_argument);
    EXPECT_THROW(lma_kernel_from_name("row"), std::invalid_argument);  // removed first versions
    EXPECT_THROW(lma_kernel_from_name("reg"), std::invalid_argument);
    for (int npe : {3, 4, 8, 9, 16, 25, 27, 64, 125})
        for (bool symmetric : {false, true})
            for (bool colour : {false, true}) {
                const LmaKernel k = lma_resolve_kernel(LmaKernel::automatic, npe, symmetric, colour);
                EXPECT_NE(k, LmaKernel::automatic);
                EXPECT_EQ(lma_resolve_kernel(LmaKernel::tile, npe, symmetric, colour), LmaKernel::tile);
            }
    // The measured choices: one cell per thread for small matrices, twin for large symmetric
    // ones with atomics, tile otherwise.
    EXPECT_EQ(lma_resolve_kernel(LmaKernel::automatic, 4, true, false), LmaKernel::cell);
    EXPECT_EQ(lma_resolve_kernel(LmaKernel::automatic, 16, true, false), LmaKernel::tile);
    EXPECT_EQ(lma_resolve_kernel(LmaKernel::automatic, 64, true, false), LmaKernel::twin);
    EXPECT_EQ(lma_resolve_kernel(LmaKernel::automatic, 64, true, true), LmaKernel::tile);
    EXPECT_EQ(lma_resolve_kernel(LmaKernel::automatic, 64, false, false), LmaKernel::tile);
}
