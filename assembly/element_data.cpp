#include "assembly/element_data.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// Coefficient values at the quadrature points (one value if the expression is constant).
std::vector<double> evaluate_coefficient(const Expression& expr, const std::vector<double>& xyz)
{
    if (expr.is_constant()) return {expr.evaluate(0.0, 0.0, 0.0)};
    std::vector<double> out(xyz.size() / 3);
    expr.evaluate(xyz, out);
    return out;
}

}  // namespace

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

std::vector<double> quadrature_point_coordinates(const Mesh& mesh, const ReferenceElement& ref)
{
    const int nq = ref.num_points(), npe = mesh.nodes_per_cell;
    const index_type cells = mesh.num_cells();
    std::vector<double> xyz(static_cast<std::size_t>(cells) * nq * 3, 0.0);
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < cells; ++e) {
        for (int q = 0; q < nq; ++q) {
            double* p = &xyz[(static_cast<std::size_t>(e) * nq + q) * 3];
            for (int i = 0; i < npe; ++i) {
                const double n = ref.values[q * npe + i];
                const double* x = &mesh.coordinates[3 * static_cast<std::size_t>(
                                                            mesh.cells[static_cast<std::size_t>(e) * npe + i])];
                for (int c = 0; c < 3; ++c) p[c] += n * x[c];
            }
        }
    }
    return xyz;
}

template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh,
                                 const ReferenceElement& ref, const Expression& kappa,
                                 const Expression& f, const std::vector<double>& convection)
{
    if (ref.type != mesh.cell_type || ref.degree != mesh.degree ||
        ref.nodes != mesh.nodes_per_cell)
        throw std::invalid_argument(fmt::format(
            "make_element_data: reference element ({} of order {}, {} nodes) does not match the "
            "mesh ({} of order {}, {} nodes per cell)",
            element_type_name(ref.type), ref.degree, ref.nodes, element_type_name(mesh.cell_type),
            mesh.degree, mesh.nodes_per_cell));
    std::vector<double> velocity = checked_convection(convection, mesh.dim);
    std::vector<double> xyz;
    if (!kappa.is_constant() || !f.is_constant()) xyz = quadrature_point_coordinates(mesh, ref);
    const auto kappa_q = evaluate_coefficient(kappa, xyz);
    const auto f_q = evaluate_coefficient(f, xyz);
    for (std::size_t k = 0; k < kappa_q.size(); ++k) {
        if (!(kappa_q[k] > 0.0) || !std::isfinite(kappa_q[k])) {
            const std::size_t point = kappa.is_constant() ? 0 : k;
            throw std::runtime_error(fmt::format(
                "problem.kappa = '{}' is {} at ({:.6g}, {:.6g}, {:.6g}) (cell {}); kappa must be "
                "positive and finite",
                kappa.text(), kappa_q[k], xyz.empty() ? 0.0 : xyz[3 * point],
                xyz.empty() ? 0.0 : xyz[3 * point + 1], xyz.empty() ? 0.0 : xyz[3 * point + 2],
                kappa.is_constant() ? 0 : point / ref.num_points()));
        }
    }
    for (std::size_t k = 0; k < f_q.size(); ++k) {
        if (!std::isfinite(f_q[k]))
            throw std::runtime_error(fmt::format("problem.f = '{}' is not finite (value {}) at a "
                                                 "quadrature point of cell {}",
                                                 f.text(), f_q[k],
                                                 f.is_constant() ? 0 : k / ref.num_points()));
    }

    ElementData<V> data;
    data.type = mesh.cell_type;
    data.degree = mesh.degree;
    data.dim = mesh.dim;
    data.nodes_per_cell = mesh.nodes_per_cell;
    data.num_points = ref.num_points();
    data.num_cells = mesh.num_cells();
    data.num_nodes = mesh.num_nodes();
    data.coordinates = upload_as<V>(exec, mesh.coordinates);
    data.cells = Array<index_type>::from_host(exec, mesh.cells);
    data.weights = upload_as<V>(exec, ref.rule.weights);
    data.values = upload_as<V>(exec, ref.values);
    data.gradients = upload_as<V>(exec, ref.gradients);
    data.kappa = upload_as<V>(exec, kappa_q);
    data.f = upload_as<V>(exec, f_q);
    data.convection = std::move(velocity);
    return data;
}

template ElementData<float> make_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&,
                                              const Expression&, const Expression&,
                                              const std::vector<double>&);
template ElementData<double> make_element_data(const ExecPtr&, const Mesh&,
                                               const ReferenceElement&, const Expression&,
                                               const Expression&, const std::vector<double>&);

}  // namespace gpufem
