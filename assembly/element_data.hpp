#pragma once
// ElementData: everything the element kernels read, resident on one executor.
#include <array>
#include <vector>

#include "assembly/expression.hpp"
#include "assembly/reference_element.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Raw-pointer view of ElementData passed to the element kernels (both backends).
template <typename V>
struct ElementArgs {
    int dim;
    int nodes_per_cell;
    int num_points;
    index_type num_cells;
    const V* coordinates;   ///< 3 per node
    const index_type* cells;
    const V* weights;       ///< [q]
    const V* values;        ///< [q][i]
    const V* gradients;     ///< [q][i][c]
    const V* kappa;         ///< [e][q], or one value when kappa_stride == 0
    const V* f;             ///< [e][q], or one value when f_stride == 0
    int kappa_stride;       ///< 1: per quadrature point; 0: constant
    int f_stride;
    int has_convection;     ///< 1: add the term b . grad u (convection holds b); 0: none
    V convection[3];        ///< the constant velocity b (zeros past dim, or without convection)
};

/// Mesh geometry, reference tables and coefficient values at quadrature points, on one
/// executor. Coefficients that are constant are stored once.
template <typename V>
struct ElementData {
    ElementType type;
    int degree = 1;  ///< Lagrange order of the cells (and of the reference tables)
    int dim = 0;
    int nodes_per_cell = 0;
    int num_points = 0;
    index_type num_cells = 0;
    index_type num_nodes = 0;
    Array<V> coordinates;
    Array<index_type> cells;
    Array<V> weights, values, gradients;
    Array<V> kappa, f;
    /// Constant convection velocity b (dim components), empty without a convection term.
    std::vector<double> convection;

    ElementArgs<V> args() const
    {
        ElementArgs<V> a{dim,
                         nodes_per_cell,
                         num_points,
                         num_cells,
                         coordinates.data(),
                         cells.data(),
                         weights.data(),
                         values.data(),
                         gradients.data(),
                         kappa.data(),
                         f.data(),
                         kappa.size() == 1 ? 0 : 1,
                         f.size() == 1 ? 0 : 1,
                         convection.empty() ? 0 : 1,
                         {V(0), V(0), V(0)}};
        for (std::size_t d = 0; d < convection.size() && d < 3; ++d)
            a.convection[d] = static_cast<V>(convection[d]);
        return a;
    }
};

/// The mesh geometry and the reference tables of ref on exec, without coefficients (kappa
/// and f empty): what the expression and error kernels read.
template <typename V>
ElementData<V> make_geometry_data(const ExecPtr& exec, const Mesh& mesh,
                                  const ReferenceElement& ref);

/// Physical position of quadrature point q of cell e of the mesh (host, double).
std::array<double, 3> quadrature_point(const Mesh& mesh, const ReferenceElement& ref,
                                       index_type e, int q);

/// Checks a convection velocity against the mesh dimension and returns it with dim
/// components (empty stays empty: no convection). 3D needs 3 components; 2D takes 2, or 3
/// with the third 0. Throws std::invalid_argument naming problem.convection otherwise.
std::vector<double> checked_convection(const std::vector<double>& convection, int dim);

/// Uploads the mesh and the reference tables and evaluates kappa and f at the quadrature
/// points on exec (expression programs, nothing per point crosses the bus; a constant is
/// stored once); convection is the constant velocity b of the
/// term b . grad u (empty: none; checked by checked_convection). Throws if kappa <= 0
/// anywhere or f is not finite,
/// naming the expression, the point and the cell.
template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh,
                                 const ReferenceElement& ref, const Expression& kappa,
                                 const Expression& f,
                                 const std::vector<double>& convection);

/// The second half of make_element_data: evaluates kappa and f into data (made by
/// make_geometry_data from the same mesh and ref) and sets the convection velocity.
template <typename V>
void add_coefficients(ElementData<V>& data, const Mesh& mesh, const ReferenceElement& ref,
                      const Expression& kappa, const Expression& f,
                      const std::vector<double>& convection);

}  // namespace gpufem
