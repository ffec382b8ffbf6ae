#pragma once
// Boundary data on an executor (dirichlet_data, add_neumann_load: the stack-machine programs)
// against the host reference (dirichlet_nodes, neumann_load: muParser), shared by the CPU test
// (test_boundary_conditions.cpp) and the GPU test (test_expression_gpu.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/element_data.hpp"
#include "assembly/reference_element.hpp"
#include "high_order_meshes.hpp"
#include "linalg/blas1.hpp"

namespace gpufem::test {

/// On the unit square/cube of every cell type and orders 1-3, nodes moved at random (curved
/// facets): the same Dirichlet mask and count, values and the Neumann load to 1e-14 relative
/// (of the largest load), in double and float.
inline void check_boundary_data_matches_host(const ExecPtr& exec, unsigned seed)
{
    const std::vector<BoundaryCondition> dirichlet = {{"left", "1 + y*y + sin(3*z)"},
                                                      {"bottom", "x > 0.5 ? exp(x) : -2"}};
    const std::vector<BoundaryCondition> neumann = {{"right", "cos(pi*y)*(1 + z^2)"},
                                                    {"top", "2 - x*z + atan2(y, 1 + x)"}};
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron})
        for (int order = 1; order <= 3; ++order) {
            const bool plane = element_dimension(type) == 2;
            const double h = plane ? 0.25 : 0.5;
            Mesh mesh = unit_box_mesh(type, order, h);
            jitter_nodes(mesh, 0.02 * h / order, seed + order);
            SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(order));
            const DirichletNodes host_d = dirichlet_nodes(mesh, dirichlet);
            const std::vector<double> host_load = neumann_load(mesh, neumann);
            const double load_scale =
                std::max(1.0, *std::max_element(host_load.begin(), host_load.end(),
                                                [](double a, double b) { return std::abs(a) < std::abs(b); }));
            const ReferenceElement ref = make_reference_element(mesh.cell_type, mesh.degree, 1);
            const ElementData<double> data = make_geometry_data<double>(exec, mesh, ref);
            Array<double> storage;
            const double* coordinates = double_coordinates(mesh, data, storage);
            const DirichletData<double> d = dirichlet_data<double>(exec, mesh, coordinates, dirichlet);
            EXPECT_EQ(d.count, host_d.count);
            const std::vector<std::uint8_t> mask = d.mask.to_host();
            const std::vector<double> values = d.values.to_host();
            for (index_type i = 0; i < mesh.num_nodes(); ++i) {
                ASSERT_EQ(mask[i], host_d.mask[i]) << "node " << i;
                ASSERT_NEAR(values[i], host_d.values[i], 1e-14 * (1 + std::abs(host_d.values[i])))
                    << "node " << i;
            }
            Array<double> rhs(exec, mesh.num_nodes());
            fill(rhs, 0.0);
            add_neumann_load(mesh, coordinates, neumann, rhs);
            const std::vector<double> load = rhs.to_host();
            for (index_type i = 0; i < mesh.num_nodes(); ++i)
                ASSERT_NEAR(load[i], host_load[i], 1e-14 * load_scale) << "node " << i;
            // float: coordinates uploaded in double, values rounded once.
            const ElementData<float> data_f = make_geometry_data<float>(exec, mesh, ref);
            Array<double> storage_f;
            const double* coordinates_f = double_coordinates(mesh, data_f, storage_f);
            const DirichletData<float> df = dirichlet_data<float>(exec, mesh, coordinates_f, dirichlet);
            const std::vector<float> values_f = df.values.to_host();
            for (index_type i = 0; i < mesh.num_nodes(); ++i)
                ASSERT_EQ(values_f[i], static_cast<float>(values[i])) << "node " << i;
            Array<float> rhs_f(exec, mesh.num_nodes());
            fill(rhs_f, 0.0f);
            add_neumann_load(mesh, coordinates_f, neumann, rhs_f);
            const std::vector<float> load_f = rhs_f.to_host();
            for (index_type i = 0; i < mesh.num_nodes(); ++i)
                ASSERT_NEAR(load_f[i], host_load[i], 1e-6 * load_scale) << "node " << i;
        }
}

/// A value that is not finite is named with its condition and point, as on the host.
inline void check_boundary_data_errors(const ExecPtr& exec)
{
    const Mesh mesh = unit_box_mesh(ElementType::quadrilateral, 2, 0.25);
    const ReferenceElement ref = make_reference_element(mesh.cell_type, mesh.degree, 1);
    const ElementData<double> data = make_geometry_data<double>(exec, mesh, ref);
    Array<double> storage;
    const double* coordinates = double_coordinates(mesh, data, storage);
    const auto message = [&](auto&& call) {
        try {
            call();
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // sqrt(0.5 - y) is NaN above y = 0.5 on the left side: the first such node in facet order.
    const std::string d = message([&] {
        dirichlet_data<double>(exec, mesh, coordinates, {{"left", "sqrt(0.5 - y)"}});
    });
    EXPECT_NE(d.find("problem.dirichlet.left = 'sqrt(0.5 - y)' is not finite at (0, "), std::string::npos) << d;
    Array<double> rhs(exec, mesh.num_nodes());
    const std::string n = message([&] {
        add_neumann_load(mesh, coordinates, {{"top", "log(x - 0.6)"}},
                         rhs);
    });
    EXPECT_NE(n.find("problem.neumann.top = "), std::string::npos) << n;
    EXPECT_NE(n.find("is not finite at ("), std::string::npos) << n;
    const std::string unknown = message([&] {
        dirichlet_data<double>(exec, mesh, coordinates, {{"nowhere", "1"}});
    });
    EXPECT_NE(unknown.find("no boundary physical group named 'nowhere'"), std::string::npos) << unknown;
}

}  // namespace gpufem::test
