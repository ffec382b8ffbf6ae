#include "assembly/reference_element.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/lagrange_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {

void lagrange1_basis(ElementType type, const double* xi, double* N, double* dN)
{
    cell_shape(type).linear_basis(xi, N, dN);
}

std::vector<double> reference_nodes(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    return {shape.reference_corners.begin(), shape.reference_corners.end()};
}

ReferenceElement make_reference_element(ElementType type, int order, int quadrature_degree)
{
    return make_reference_element(type, order, quadrature_rule(type, quadrature_degree));
}

ReferenceElement make_reference_element(ElementType type, int order, QuadratureRule rule)
{
    if (order < 1 || order > max_lagrange_degree(type))
        throw std::invalid_argument("make_reference_element: order of " + std::string(element_type_plural(type)) +
                                    " must be 1.." + std::to_string(max_lagrange_degree(type)) + " (got " +
                                    std::to_string(order) + ")");
    ReferenceElement ref;
    ref.type = type;
    ref.degree = order;
    ref.dim = element_dimension(type);
    ref.nodes = lagrange_node_count(type, order);
    ref.rule = std::move(rule);
    const int nq = ref.rule.size();
    if (order >= 2) {
        lagrange_basis(type, order, ref.rule.points, ref.values, ref.gradients);
        if (ref.values.size() != static_cast<std::size_t>(nq) * ref.nodes ||
            ref.gradients.size() != static_cast<std::size_t>(nq) * ref.nodes * ref.dim)
            throw std::logic_error("make_reference_element: lagrange_basis returned tables of "
                                   "the wrong size");
        return ref;
    }
    ref.values.resize(static_cast<std::size_t>(nq) * ref.nodes);
    ref.gradients.resize(static_cast<std::size_t>(nq) * ref.nodes * ref.dim);
    for (int q = 0; q < nq; ++q) {
        lagrange1_basis(type, &ref.rule.points[q * ref.dim], &ref.values[q * ref.nodes],
                        &ref.gradients[static_cast<std::size_t>(q) * ref.nodes * ref.dim]);
    }
    return ref;
}

}  // namespace gpufem
