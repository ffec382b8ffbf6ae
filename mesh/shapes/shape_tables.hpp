#pragma once
// Internal to mesh/shapes/: the shapes' tables, each defined in its own file and gathered by
// cell_shape.cpp, and the pieces several of them share.
#include <span>

#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {

extern const ShapeTraits line_shape;
extern const ShapeTraits triangle_shape;
extern const ShapeTraits quadrilateral_shape;
extern const ShapeTraits tetrahedron_shape;
extern const ShapeTraits hexahedron_shape;
extern const ShapeTraits prism_shape;
extern const ShapeTraits pyramid_shape;

/// The first-order basis of a box ([-1, 1]^dim, corners at +-1): the product of the line's
/// basis along each axis, at xi; values[corners], gradients[corners * dim].
inline void box_linear_basis(int dim, std::span<const double> corners, const double* xi, double* N,
                             double* dN)
{
    const int n = static_cast<int>(corners.size()) / dim;
    for (int i = 0; i < n; ++i) {
        double f[3], df[3];
        for (int c = 0; c < dim; ++c) {
            const double s = corners[static_cast<std::size_t>(i * dim + c)];
            f[c] = 0.5 * (1 + s * xi[c]);
            df[c] = 0.5 * s;
        }
        N[i] = 1.0;
        for (int c = 0; c < dim; ++c) N[i] *= f[c];
        for (int c = 0; c < dim; ++c) {
            double g = df[c];
            for (int o = 0; o < dim; ++o)
                if (o != c) g *= f[o];
            dN[i * dim + c] = g;
        }
    }
}

/// A shape's VtkLagrangeCellMaker: a new VTK Lagrange cell of class Cell (the shape's file
/// includes its header), its order set from its number of points.
template <typename Cell>
vtkCell* make_uniform_order_cell(int points)
{
    auto* cell = Cell::New();
    cell->SetUniformOrderFromNumPoints(points);
    return cell;
}

}  // namespace gpufem
