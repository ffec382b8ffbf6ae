#include "assembly/element_data.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "assembly/coefficients.hpp"
#include "assembly/expression_kernels.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {

std::vector<double> checked_convection(const std::vector<double>& convection, int dim)
{
    if (convection.empty()) return {};
    if (dim != 2 && dim != 3)
        throw std::invalid_argument(
            fmt::format("problem.convection: needs a 2D or 3D mesh, got dimension {}", dim));
    const std::size_t n = convection.size();
    if (dim == 3 && n != 3)
        throw std::invalid_argument(fmt::format(
            "problem.convection: a 3D mesh needs 3 components [bx, by, bz], got {}", n));
    if (dim == 2 && n != 2 && n != 3)
        throw std::invalid_argument(fmt::format(
            "problem.convection: a 2D mesh needs 2 components [bx, by] (or 3 with bz = 0), got {}",
            n));
    if (dim == 2 && n == 3 && convection[2] != 0.0)
        throw std::invalid_argument(fmt::format(
            "problem.convection: a 2D mesh needs bz = 0 when 3 components are given, got bz = {}",
            convection[2]));
    for (std::size_t d = 0; d < n; ++d)
        if (!std::isfinite(convection[d]))
            throw std::invalid_argument(fmt::format(
                "problem.convection: component {} must be finite, got {}", d, convection[d]));
    return {convection.begin(), convection.begin() + dim};
}

std::array<double, 3> quadrature_point(const Mesh& mesh, const ReferenceElement& ref,
                                       index_type e, int q)
{
    const int npe = mesh.nodes_per_cell;
    std::array<double, 3> p{0.0, 0.0, 0.0};
    for (int i = 0; i < npe; ++i) {
        const double n = ref.values[q * npe + i];
        const double* x =
            &mesh.node_coordinates()[3 * static_cast<std::size_t>(
                                      mesh.cells[static_cast<std::size_t>(e) * npe + i])];
        for (int c = 0; c < 3; ++c) p[c] += n * x[c];
    }
    return p;
}

template <typename V>
ElementData<V> make_geometry_data(const ExecPtr& exec, const Mesh& mesh,
                                  const ReferenceElement& ref)
{
    if (ref.type != mesh.cell_type || ref.degree != mesh.degree ||
        ref.nodes != mesh.nodes_per_cell)
        throw std::invalid_argument(fmt::format(
            "make_geometry_data: reference element ({} of order {}, {} nodes) does not match the "
            "mesh ({} of order {}, {} nodes per cell)",
            element_type_name(ref.type), ref.degree, ref.nodes, element_type_name(mesh.cell_type),
            mesh.degree, mesh.nodes_per_cell));
    ElementData<V> data;
    data.type = mesh.cell_type;
    data.degree = mesh.degree;
    data.dim = mesh.dim;
    data.nodes_per_cell = mesh.nodes_per_cell;
    data.num_points = ref.num_points();
    data.num_cells = mesh.num_cells();
    data.num_nodes = mesh.num_nodes();
    // A mesh generated on this executor is copied there (device to device), not uploaded.
    const bool on_exec = mesh.device && mesh.device->cells.executor() == exec;
    if constexpr (std::is_same_v<V, double>)
        data.coordinates = on_exec ? mesh.device->coordinates.clone_to(exec)
                                   : upload_as<V>(exec, mesh.node_coordinates());
    else
        data.coordinates = upload_as<V>(exec, mesh.node_coordinates());
    data.cells = on_exec ? mesh.device->cells.clone_to(exec)
                         : Array<index_type>::from_host(exec, mesh.cells);
    data.weights = upload_as<V>(exec, ref.rule.weights);
    data.values = upload_as<V>(exec, ref.values);
    data.gradients = upload_as<V>(exec, ref.gradients);
    return data;
}

template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh, const ReferenceElement& ref,
                                 const ProblemSpec& problem)
{
    ElementData<V> data = make_geometry_data<V>(exec, mesh, ref);
    add_coefficients(data, mesh, ref, problem);
    return data;
}

template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh, const ReferenceElement& ref,
                                 const Expression& kappa, const Expression& f, const std::vector<double>& convection)
{
    ProblemSpec problem;
    problem.kappa = kappa.text();
    problem.f = f.text();
    problem.convection = convection;
    return make_element_data<V>(exec, mesh, ref, problem);
}

template <typename V>
void add_coefficients(ElementData<V>& data, const Mesh& mesh, const ReferenceElement& ref, const ProblemSpec& problem)
{
    const ExecPtr& exec = data.coordinates.executor();
    StageLaps laps;
    const MeshCoefficient kappa = mesh_coefficient(mesh, problem, CoefficientKind::kappa);
    const MeshCoefficient f = mesh_coefficient(mesh, problem, CoefficientKind::f);
    const MeshCoefficient reaction = mesh_coefficient(mesh, problem, CoefficientKind::reaction);
    const MeshCoefficient velocity = mesh_coefficient(mesh, problem, CoefficientKind::convection);
    // Quadrature positions in double whatever V is (the values are rounded to V once), and
    // the cells' regions, made only when some coefficient varies.
    const bool varies = !kappa.constant() || !f.constant() || (!reaction.empty() && !reaction.constant()) ||
                        (!velocity.empty() && !velocity.constant());
    std::optional<ElementData<double>> double_geometry;
    Array<int> regions;
    CoefficientPoints at;
    if (varies) {
        const ElementData<double>* geometry = nullptr;
        if constexpr (std::is_same_v<V, double>) {
            geometry = &data;
        } else {
            double_geometry = make_geometry_data<double>(exec, mesh, ref);
            geometry = &*double_geometry;
        }
        laps.lap("pieces");
        regions = cell_regions(exec, mesh);
        laps.lap_after(*exec, "regions");
        at = CoefficientPoints{geometry->args(), nullptr, mesh.num_cells(), ref.num_points(), regions.data()};
    }
    const auto place = [&](long long k) {
        const index_type e = static_cast<index_type>(k / ref.num_points());
        const int q = static_cast<int>(k % ref.num_points());
        const auto p = quadrature_point(mesh, ref, e, q);
        return PointPlace{{p[0], p[1], p[2]}, fmt::format("quadrature point {} of cell {}", q, e)};
    };
    data.kappa = evaluate_coefficient<V>(exec, kappa, at, place);
    data.kappa_components = kappa.components;
    data.f = evaluate_coefficient<V>(exec, f, at, place);
    data.reaction = reaction.empty() ? Array<V>() : evaluate_coefficient<V>(exec, reaction, at, place);
    data.velocity = velocity.empty() ? Array<V>() : evaluate_coefficient<V>(exec, velocity, at, place);
    laps.lap_after(*exec, "values");
    spdlog::debug("coefficients of {} cells: {}", mesh.num_cells(), laps.text);
}

template ElementData<float> make_geometry_data(const ExecPtr&, const Mesh&,
                                               const ReferenceElement&);
template ElementData<double> make_geometry_data(const ExecPtr&, const Mesh&,
                                                const ReferenceElement&);
template void add_coefficients(ElementData<float>&, const Mesh&, const ReferenceElement&, const ProblemSpec&);
template void add_coefficients(ElementData<double>&, const Mesh&, const ReferenceElement&, const ProblemSpec&);
template ElementData<float> make_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&, const ProblemSpec&);
template ElementData<double> make_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&, const ProblemSpec&);
template ElementData<float> make_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&,
                                              const Expression&, const Expression&,
                                              const std::vector<double>&);
template ElementData<double> make_element_data(const ExecPtr&, const Mesh&,
                                               const ReferenceElement&, const Expression&,
                                               const Expression&, const std::vector<double>&);

}  // namespace gpufem
