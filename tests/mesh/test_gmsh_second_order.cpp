// gpufem's second-order simplex meshes (mesh/gmsh_second_order.hpp) against Gmsh's setOrder(2)
// on the same first-order meshes: every node of every element where Gmsh puts it, on a part
// with cylinders (periodic surfaces crossed at their seams), a sphere (poles, a periodic
// surface) and a disc (curves in 2D).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gmsh.h>

#include "mesh/gmsh_second_order.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

/// Each element's node coordinates by element tag, for the elements of `type`.
std::map<std::size_t, std::vector<double>> element_points(int type)
{
    std::vector<std::size_t> elements, nodes;
    gmsh::model::mesh::getElementsByType(type, elements, nodes);
    std::map<std::size_t, std::vector<double>> out;
    if (elements.empty()) return out;
    const std::size_t per = nodes.size() / elements.size();
    for (std::size_t e = 0; e < elements.size(); ++e) {
        std::vector<double>& points = out[elements[e]];
        for (std::size_t k = 0; k < per; ++k) {
            std::vector<double> x, parameters;
            gmsh::model::mesh::getNode(nodes[e * per + k], x, parameters);
            points.insert(points.end(), x.begin(), x.end());
        }
    }
    return out;
}

/// The geometry meshed at order 1 on one thread, made second-order by `elevate`: the elements'
/// points of type `type`, and how many nodes lie off their straight edge's midpoint.
std::map<std::size_t, std::vector<double>> second_order(const std::string& geo, double size, int dim, int type,
                                                        bool own)
{
    gmsh::clear();
    gmsh::option::setNumber("General.NumThreads", 1);
    gmsh::model::add("second_order");
    gmsh::open(geo);
    gmsh::option::setNumber("Mesh.MeshSizeMax", size);
    gmsh::model::mesh::generate(dim);
    if (own) {
        EXPECT_TRUE(own_second_order_applies());
        make_second_order();
    } else {
        gmsh::option::setNumber("Mesh.SecondOrderIncomplete", 0);
        gmsh::option::setNumber("Mesh.SecondOrderLinear", 0);
        gmsh::option::setNumber("Mesh.HighOrderOptimize", 0);
        gmsh::model::mesh::setOrder(2);
    }
    return element_points(type);
}

/// The corners of each edge node of Gmsh's second-order line, triangle and tetrahedron, in
/// order (Gmsh's node orders of types 8, 9 and 11).
std::vector<std::array<int, 2>> edges_of(int dim)
{
    if (dim == 1) return {{0, 1}};
    if (dim == 2) return {{0, 1}, {1, 2}, {2, 0}};
    return {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
}

TEST(GmshSecondOrder, EveryNodeWhereGmshsSetOrderPutsIt)
{
    // Every node where Gmsh's setOrder(2) puts it: the curve or surface point nearest the
    // edge's straight midpoint (on the plate's cylinders across their seams and the disc's
    // circle the arc's midpoint, on the sphere the great circle's, near its poles too), as
    // far from one end of the edge as from the other; the corners unmoved.
    test::TempFolder folder;
    const auto sphere = folder.write("sphere.geo", "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, 1};\n"
                                                   "Physical Volume(\"ball\") = {1};\nPhysical Surface(\"sphere\") = {1};\n");
    const auto disc = folder.write("disc.geo", "SetFactory(\"OpenCASCADE\");\nDisk(1) = {0, 0, 0, 1};\n"
                                               "Physical Surface(\"disc\") = {1};\nPhysical Curve(\"circle\") = {1};\n");
    const std::string plate = std::string(GPUFEM_SOURCE_DIR) + "/cases/meshes/plate_with_holes.geo";
    gmsh::initialize();
    gmsh::option::setNumber("General.Terminal", 0);
    struct Case {
        std::string geo;
        double size;
        int dim, type;
        bool uniform;  ///< parametrised uniformly along the edges (the parameters' mean is the point)
    };
    for (const Case& c : {Case{plate, 0.25, 3, 11, true}, Case{disc.string(), 0.2, 2, 9, true},
                          Case{sphere.string(), 0.3, 3, 11, false}}) {
        SCOPED_TRACE(c.geo);
        const auto gmsh = second_order(c.geo, c.size, c.dim, c.type, false);
        const auto own = second_order(c.geo, c.size, c.dim, c.type, true);
        ASSERT_EQ(gmsh.size(), own.size());
        ASSERT_FALSE(gmsh.empty());
        const std::size_t corners = static_cast<std::size_t>(c.dim + 1);
        double from_gmsh = 0, unequal = 0, off_sphere = 0;
        int curved = 0;
        for (const auto& [element, points] : gmsh) {
            const auto found = own.find(element);
            ASSERT_NE(found, own.end()) << "element " << element;
            const std::vector<double>& mine = found->second;
            ASSERT_EQ(mine.size(), points.size());
            const auto x = [](const std::vector<double>& p, std::size_t node) { return &p[3 * node]; };
            const auto distance = [](const double* a, const double* b) {
                return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
            };
            const auto radius = [](const double* a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); };
            for (std::size_t k = 0; k < corners; ++k) EXPECT_EQ(distance(x(points, k), x(mine, k)), 0.0);
            const auto edges = edges_of(c.dim);
            for (std::size_t k = 0; k < edges.size(); ++k) {
                const double* a = x(mine, static_cast<std::size_t>(edges[k][0]));
                const double* b = x(mine, static_cast<std::size_t>(edges[k][1]));
                const double* m = x(mine, corners + k);
                const double length = distance(a, b);
                from_gmsh = std::max(from_gmsh, distance(m, x(points, corners + k)) / length);
                unequal = std::max(unequal, std::abs(distance(m, a) - distance(m, b)) / length);
                double mid[3];
                for (int i = 0; i < 3; ++i) mid[i] = 0.5 * (a[i] + b[i]);
                if (distance(m, mid) > 1e-6 * length) ++curved;
                // Where Gmsh's node lies on the sphere, gpufem's does.
                if (!c.uniform && std::abs(radius(x(points, corners + k)) - 1) < 1e-12)
                    off_sphere = std::max(off_sphere, std::abs(radius(m) - 1));
            }
        }
        // Gmsh's own iterations stop at about 1e-8 of an edge on the sphere.
        EXPECT_LT(from_gmsh, c.uniform ? 1e-12 : 1e-6);
        EXPECT_LT(off_sphere, 1e-12);
        EXPECT_LT(unequal, 1e-6);
        EXPECT_GT(curved, 10) << "no edge node off its chord";
        std::cout << "[ second order ] " << c.geo << ": " << gmsh.size() << " elements, " << curved
                  << " edge nodes off their chords, largest distance from Gmsh's " << from_gmsh
                  << " of the edge, from the sphere " << off_sphere << "\n";
    }
    gmsh::finalize();
}

}  // namespace
}  // namespace gpufem
