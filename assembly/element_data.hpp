#pragma once
// ElementData: everything the element kernels read, resident on one executor.
#include <array>
#include <vector>

#include "assembly/expression.hpp"
#include "assembly/reference_element.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/array.hpp"
#include "linalg/host_device.hpp"
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
    const V* kappa;         ///< [e][q][k], k < kappa_components; one point's when kappa_stride == 0
    const V* f;             ///< [e][q], or one value when f_stride == 0
    const V* reaction;      ///< c of the term c u: [e][q], or one value (reaction_stride 0); null: none
    const V* velocity;      ///< b of the term b . grad u: [e][q][d] (dim per point), or one point's
                            ///< (velocity_stride 0); null: none
    int kappa_stride;       ///< 1: per quadrature point; 0: constant
    int f_stride;
    int reaction_stride;
    int velocity_stride;
    int kappa_components;   ///< 1: a scalar; dim (dim + 1) / 2: a symmetric tensor (xx xy yy, or
                            ///< xx xy xz yy yz zz)
    int has_convection;     ///< 1: the term b . grad u (velocity); 0: none
    int has_lower_order;    ///< 1: a convection or a reaction term (the kernels' full-matrix path)
};

/// b_d at point qe (= e * num_points + q) of a, 0 without convection.
template <typename V>
GPUFEM_HOST_DEVICE inline V velocity_at(const ElementArgs<V>& a, long long qe, int d)
{
    return a.velocity ? a.velocity[a.velocity_stride * qe * a.dim + d] : V(0);
}

/// c at point qe of a, 0 without a reaction term.
template <typename V>
GPUFEM_HOST_DEVICE inline V reaction_at(const ElementArgs<V>& a, long long qe)
{
    return a.reaction ? a.reaction[a.reaction_stride * qe] : V(0);
}

/// w kappa at point qe as a full DIM x DIM matrix (a scalar kappa: w kappa times the identity).
template <int DIM, typename V>
GPUFEM_HOST_DEVICE inline void weighted_kappa(const ElementArgs<V>& a, long long qe, V w, V (&K)[DIM][DIM])
{
    const V* k = a.kappa + a.kappa_stride * qe * a.kappa_components;
    if (a.kappa_components == 1) {
        for (int r = 0; r < DIM; ++r)
            for (int c = 0; c < DIM; ++c) K[r][c] = r == c ? w * k[0] : V(0);
        return;
    }
    int s = 0;
    for (int r = 0; r < DIM; ++r)
        for (int c = r; c < DIM; ++c) K[r][c] = K[c][r] = w * k[s++];
}

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
    /// kappa (kappa_components per point), f, c (empty: no reaction term) and b (dim per
    /// point; empty: no convection term) at the quadrature points, or one point's values when
    /// constant.
    Array<V> kappa, f, reaction, velocity;
    int kappa_components = 1;

    ElementArgs<V> args() const
    {
        const auto stride = [](const Array<V>& values, std::size_t one_point) { return values.size() > one_point ? 1 : 0; };
        return ElementArgs<V>{dim,
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
                              reaction.empty() ? nullptr : reaction.data(),
                              velocity.empty() ? nullptr : velocity.data(),
                              stride(kappa, static_cast<std::size_t>(kappa_components)),
                              stride(f, 1),
                              stride(reaction, 1),
                              stride(velocity, static_cast<std::size_t>(dim)),
                              kappa_components,
                              velocity.empty() ? 0 : 1,
                              velocity.empty() && reaction.empty() ? 0 : 1};
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

/// Uploads the mesh and the reference tables and evaluates the problem's coefficients at the
/// quadrature points on exec (add_coefficients).
template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh, const ReferenceElement& ref,
                                 const ProblemSpec& problem);

/// make_element_data of a problem with only kappa, f and a constant convection velocity b
/// (empty: none; checked by checked_convection).
template <typename V>
ElementData<V> make_element_data(const ExecPtr& exec, const Mesh& mesh,
                                 const ReferenceElement& ref, const Expression& kappa,
                                 const Expression& f,
                                 const std::vector<double>& convection);

/// The second half of make_element_data: evaluates kappa (a scalar or a tensor), f, c and b
/// (assembly/coefficients.hpp: one expression or one per region) at the quadrature points of
/// data (made by make_geometry_data from the same mesh and ref) on its executor (expression
/// programs, nothing per point crosses the bus; a constant is stored once). Throws naming the
/// key, the expression, the point and the cell where kappa is not positive (a tensor: not
/// positive definite), c is negative or a value is not finite, and for regions the mesh does
/// not have or cells no region covers.
template <typename V>
void add_coefficients(ElementData<V>& data, const Mesh& mesh, const ReferenceElement& ref,
                      const ProblemSpec& problem);

}  // namespace gpufem
