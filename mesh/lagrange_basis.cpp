#include "mesh/lagrange_basis.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <string>

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

/// "triangles of order 3": names the element in errors.
std::string element_text(ElementType type, int order)
{
    return gmsh_type_plural(gmsh_element_type(type, order)) +
           (order == 1 ? " of order 1" : std::string());
}

/// One Gmsh function space ("Lagrange" or "GradLagrange") of an MSH element type at points
/// given as 3 reference coordinates each; checks that Gmsh returned `expected` values.
std::vector<double> gmsh_basis(int gmsh_type, const std::vector<double>& local,
                               const std::string& space, std::size_t expected,
                               const std::string& context)
{
    int components = 0, orientations = 0;
    std::vector<double> values;
    try {
        gmsh::model::mesh::getBasisFunctions(gmsh_type, local, space, components, values,
                                             orientations);
    } catch (...) {
        rethrow_as_mesh_error(context);
    }
    if (values.size() != expected)
        throw MeshSourceError(context + ": Gmsh returned " + std::to_string(values.size()) +
                              " " + space + " values, expected " + std::to_string(expected));
    return values;
}

}  // namespace

void lagrange_basis(ElementType type, int order, const std::vector<double>& points,
                    std::vector<double>& values, std::vector<double>& gradients)
{
    const int gmsh_type = gmsh_element_type(type, order);  // checks the order
    const std::string context = "Lagrange basis of " + element_text(type, order);
    const std::size_t dim = static_cast<std::size_t>(element_dimension(type));
    if (points.size() % dim != 0)
        throw std::invalid_argument(context + ": " + std::to_string(points.size()) +
                                    " point coordinates are not a multiple of the dimension " +
                                    std::to_string(dim));
    const std::size_t count = points.size() / dim;
    const std::size_t n = static_cast<std::size_t>(lagrange_node_count(type, order));
    values.clear();
    gradients.clear();
    if (count == 0) return;

    std::vector<double> local(3 * count, 0.0);
    for (std::size_t p = 0; p < count; ++p)
        for (std::size_t c = 0; c < dim; ++c) local[3 * p + c] = points[dim * p + c];

    std::vector<double> raw_gradients;
    {
        GmshSession session;
        values = gmsh_basis(gmsh_type, local, "Lagrange", count * n, context);
        raw_gradients = gmsh_basis(gmsh_type, local, "GradLagrange", 3 * count * n, context);
    }
    // Gmsh gives 3 gradient components (u, v, w) per function; keep the first dim.
    gradients.resize(dim * count * n);
    for (std::size_t f = 0; f < count * n; ++f)
        for (std::size_t c = 0; c < dim; ++c) gradients[dim * f + c] = raw_gradients[3 * f + c];
}

namespace {

/// The reference nodes as Gmsh gives them (a Gmsh session per call).
std::vector<double> gmsh_reference_nodes(ElementType type, int order)
{
    const int gmsh_type = gmsh_element_type(type, order);  // checks the order
    std::string name;
    int dim = 0, gmsh_order = 0, nodes = 0, primary = 0;
    std::vector<double> coordinates;
    GmshSession session;
    try {
        gmsh::model::mesh::getElementProperties(gmsh_type, name, dim, gmsh_order, nodes,
                                                coordinates, primary);
    } catch (...) {
        rethrow_as_mesh_error("reference nodes of " + element_text(type, order));
    }
    if (nodes != lagrange_node_count(type, order) || dim != element_dimension(type) ||
        coordinates.size() != static_cast<std::size_t>(nodes * dim))
        throw MeshSourceError("reference nodes of " + element_text(type, order) + ": Gmsh's '" +
                              name + "' has " + std::to_string(nodes) + " nodes in " +
                              std::to_string(dim) + "D");
    return coordinates;
}

}  // namespace

std::vector<double> lagrange_reference_nodes(ElementType type, int order)
{
    // Asked for again and again (every mesh, every facet group): each shape and order is read
    // from Gmsh once per process.
    static std::mutex mutex;
    static std::map<std::pair<ElementType, int>, std::vector<double>> known;
    {
        const std::lock_guard lock(mutex);
        const auto found = known.find({type, order});
        if (found != known.end()) return found->second;
    }
    std::vector<double> nodes = gmsh_reference_nodes(type, order);
    const std::lock_guard lock(mutex);
    known.emplace(std::make_pair(type, order), nodes);
    return nodes;
}

}  // namespace gpufem
