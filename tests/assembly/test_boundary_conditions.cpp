#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <numeric>

#include "assembly/boundary_conditions.hpp"
#include "boundary_data_checks.hpp"
#include "random_values.hpp"
#include "high_order_meshes.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

namespace {
Mesh box(ElementType type, int n)
{
    Mesh m = test::grid_mesh(type, n);
    test::add_box_boundaries(m);
    return m;
}
}  // namespace

TEST(Neumann, LoadIntegratesTheFluxOverTheGroup)
{
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const Mesh m = box(type, 4);
        // int_{x=1} 1 ds = 1; int_{x=1} (y + 2 z) ds = 1/2 (+ 1 in 3D): exact for degree-1 data.
        const auto load1 = neumann_load(m, {{"right", "1"}});
        EXPECT_NEAR(std::accumulate(load1.begin(), load1.end(), 0.0), 1.0, 1e-13);
        const auto load2 = neumann_load(m, {{"right", "y + 2*z"}});
        EXPECT_NEAR(std::accumulate(load2.begin(), load2.end(), 0.0), m.dim == 2 ? 0.5 : 1.5, 1e-13);
        for (index_type i = 0; i < m.num_nodes(); ++i)
            if (std::abs(m.coordinates[3 * i] - 1.0) > 1e-12) EXPECT_EQ(load2[i], 0.0);
        // Whole boundary: perimeter 4 / surface area 6.
        const auto all = neumann_load(m, {{"boundary", "1"}});
        EXPECT_NEAR(std::accumulate(all.begin(), all.end(), 0.0), m.dim == 2 ? 4.0 : 6.0, 1e-12);
    }
}

TEST(Dirichlet, MarksGroupNodesWithTheirValuesLaterGroupsWin)
{
    const Mesh m = box(ElementType::quadrilateral, 5);
    const DirichletNodes d = dirichlet_nodes(m, {{"left", "1 + y"}, {"bottom", "-3"}});
    index_type expected = 0;
    for (index_type i = 0; i < m.num_nodes(); ++i) {
        const double x = m.coordinates[3 * i], y = m.coordinates[3 * i + 1];
        const bool left = std::abs(x) < 1e-12, bottom = std::abs(y) < 1e-12;
        EXPECT_EQ(d.mask[i], left || bottom ? 1 : 0);
        if (bottom) EXPECT_EQ(d.values[i], -3.0);
        else if (left) EXPECT_NEAR(d.values[i], 1 + y, 1e-15);
        expected += left || bottom;
    }
    EXPECT_EQ(d.count, expected);
}

TEST(BoundaryGroups, UnknownGroupIsNamedWithTheAvailableOnes)
{
    const Mesh m = box(ElementType::triangle, 2);
    ProblemSpec p;
    p.dirichlet = {{"lefft", "0"}};
    try {
        check_boundary_groups(m, p);
        FAIL();
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'lefft'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("left"), std::string::npos) << msg;
        EXPECT_NE(msg.find("dirichlet"), std::string::npos) << msg;
    }
}

TEST(Neumann, HighOrderFacetsIntegrateDegree2kPlus1Exactly)
{
    // Sum_i b_i = int g ds since the facet basis sums to one; g = y^(2k+1) on the straight
    // side x = 1 is integrated exactly by the rule of degree 2k+1: 1 / (2k+2).
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron})
        for (int order = 2; order <= 4; ++order) {
            const Mesh m =
                test::unit_box_mesh(type, order, element_dimension(type) == 2 ? 0.3 : 0.5);
            const std::string g = "y^" + std::to_string(2 * order + 1);
            const auto load = neumann_load(m, {{"right", g}});
            const double total = std::accumulate(load.begin(), load.end(), 0.0);
            EXPECT_NEAR(total, 1.0 / (2 * order + 2), 1e-13)
                << element_type_name(type) << " order " << order;
            for (index_type i = 0; i < m.num_nodes(); ++i)
                if (std::abs(m.coordinates[3 * i] - 1.0) > 1e-12) EXPECT_EQ(load[i], 0.0);
        }
}

TEST(Neumann, CurvedFacetsFollowTheCircle)
{
    // The unit disk's perimeter from the load of g = 1 (h = 0.5): the isoparametric facets of
    // order k follow the arcs Gmsh puts their nodes on; the length error falls with k (as
    // h^(k+1), h^(k+2) for even k: measured 4.0e-2, 1.5e-4, 2.3e-5, 5.9e-8).
    double previous = 1.0;
    for (int order = 1; order <= 4; ++order) {
        MeshSpec spec;
        spec.shape = "disk";
        spec.size = 0.5;
        spec.degree = order;
        const Mesh m = load_mesh(spec);
        const auto load = neumann_load(m, {{"boundary", "1"}});
        const double error =
            std::abs(std::accumulate(load.begin(), load.end(), 0.0) - 2 * std::numbers::pi);
        EXPECT_LT(error, previous / 5) << "order " << order;
        previous = error;
    }
    EXPECT_LT(previous, 1e-6);
}

TEST(Dirichlet, HighOrderNodesOfTheFacetsAreInterpolated)
{
    for (ElementType type : {ElementType::triangle, ElementType::hexahedron}) {
        const Mesh m = test::unit_box_mesh(type, 3, element_dimension(type) == 2 ? 0.3 : 0.5);
        const DirichletNodes d = dirichlet_nodes(m, {{"left", "1 + y*y + z"}});
        index_type expected = 0;
        for (index_type i = 0; i < m.num_nodes(); ++i) {
            const double* x = &m.coordinates[3 * i];
            const bool left = std::abs(x[0]) < 1e-12;
            EXPECT_EQ(d.mask[i], left ? 1 : 0) << element_type_name(type) << " node " << i;
            if (left) EXPECT_NEAR(d.values[i], 1 + x[1] * x[1] + x[2], 1e-15);
            expected += left;
        }
        EXPECT_EQ(d.count, expected);  // every node on x = 0, edge and face nodes included
    }
}

TEST(BoundaryData, CpuKernelsMatchTheHostReference)
{
    test::check_boundary_data_matches_host(Executor::create_cpu(), test::random_seed());
}

TEST(BoundaryData, ValuesThatAreNotFiniteAreNamed)
{
    test::check_boundary_data_errors(Executor::create_cpu());
}
