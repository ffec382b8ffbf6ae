#pragma once
// Cell-centred finite volumes, the arithmetic both backends share (host and device): the
// geometry of cells and faces from the mesh's corner nodes, and each face's two-point flux
// with the over-relaxed non-orthogonal split.
//
// Face f of cell P, outward area vector S (|S| = area; 2D: length, unit depth), centre x_f:
//   interior, neighbour N, d = x_N - x_P:  flux out of P = kappa_f (|S|^2 / d.S) (u_P - u_N)
//       - kappa_f k . grad_f u  with k = S - d |S|^2 / d.S (the over-relaxed split: the
//       implicit part along d, the rest explicit from the cells' gradients, interpolated to
//       the face), 1 / kappa_f = l / kappa_P + (1 - l) / kappa_N, l = (x_f - x_P).S / d.S;
//   Dirichlet, d = x_f - x_P: the same with u_N = u_b(x_f), kappa_f = kappa_P, grad_f = grad_P;
//   Neumann (and faces in no group, g = 0): flux out of P = -g(x_f) |S|;
//   Robin, -kappa du/dn = h (u - u_inf): the two-point flux to the face value u_f equals
//       h |S| (u_f - u_inf), so with c = kappa_P |S|^2 / d.S and H = h(x_f) |S| the flux out
//       of P is c H / (c + H) (u_P - u_inf) (and H / (c + H) of the explicit correction);
//   convection b (upwind): b.S u_P when b.S > 0, else b.S u_N (Dirichlet: u_b; Neumann: u_P);
//       b on a face: the mean of its cells' values at their centroids (one cell's on the
//       boundary), or the constant b;
//   reaction c: c_P V_P on the diagonal.
// The row of P: sum of the fluxes out = f(x_P) V_P.
#include <cmath>
#include <cstdint>

#include "assembly/expression_program.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"
#include "mesh/kernel_shapes.hpp"

namespace gpufem {

/// A mesh as the finite-volume kernels read it (arrays on the kernels' executor).
struct FvMeshView {
    const double* coordinates = nullptr;  ///< 3 per node
    const index_type* cells = nullptr;    ///< nodes_per_cell per cell; a cell's corners first
    long long num_cells = 0;
    int nodes_per_cell = 0;
    int dim = 2;             ///< 2 or 3
    int faces_per_cell = 0;  ///< face slots per cell: the most faces of any cell (3 to 6)
    KernelShapes shapes;       ///< corners and faces of every cell type
    const std::uint8_t* cell_types = nullptr;  ///< each cell's ElementType number, or null:
    ElementType cell_type = ElementType::triangle;  ///< every cell's type
    const index_type* neighbour = nullptr;  ///< per slot c * faces_per_cell + f, or -1
    const int* group = nullptr;           ///< per slot: boundary group index, or -1
    const double* centroid = nullptr;     ///< 3 per cell (after fv_cell_geometry)
    const double* volume = nullptr;       ///< per cell
    /// Each cell's physical tag (its region), or null: a face between two regions is an
    /// interface, across which the cell gradients take the face value of the flux.
    const int* region = nullptr;
};

/// How a boundary group's faces are treated.
enum class FvBoundaryKind : int {
    zero_flux = 0,  ///< no condition: homogeneous Neumann
    dirichlet = 1,  ///< u = value(x_f)
    neumann = 2,    ///< kappa du/dn = value(x_f), n outward
    robin = 3,      ///< -kappa du/dn = h(x_f) (u - u_inf(x_f)), n outward
};

/// The condition on one boundary group: its kind and where its expression starts in
/// FvProblemView::programs.
struct FvCondition {
    FvBoundaryKind kind = FvBoundaryKind::zero_flux;
    int program = -1;  ///< offset of the value's program (ends with ExprOp::end); Robin: h's
    int second = -1;   ///< Robin: offset of u_inf's program
};

/// The problem as the finite-volume kernels read it.
struct FvProblemView {
    const double* kappa = nullptr;   ///< per cell, at the centroid (> 0)
    const double* source = nullptr;  ///< f per cell, at the centroid
    double convection[3] = {0, 0, 0};  ///< a constant b (velocity null)
    const double* velocity = nullptr;   ///< b per cell at the centroid (dim per cell), or null
    int velocity_components = 3;        ///< b's components per cell (the mesh's dimension)
    const double* reaction = nullptr;   ///< c per cell at the centroid, or null: none
    const FvCondition* conditions = nullptr;  ///< per boundary group of the mesh
    const ExprInstruction* programs = nullptr;
    /// The cell whose value is fixed to 0 (a singular pure-Neumann problem), or -1. Its row
    /// keeps only its diagonal, other rows drop its column: the matrix stays symmetric.
    long long pinned = -1;
    /// OpenFOAM's limiter psi of the explicit correction: |correction| <= psi / (1 - psi) x
    /// |implicit part| per face; 1: unlimited, 0: no correction.
    double limit = 1.0;
};

/// The corners and faces of cell c (its faces are slots 0 to faces - 1).
GPUFEM_HOST_DEVICE inline const KernelShape& fv_shape(const FvMeshView& mesh, long long c)
{
    return shape_of_cell(mesh.shapes, mesh.cell_types, mesh.cell_type, c);
}

/// Corner k of cell c.
GPUFEM_HOST_DEVICE inline void fv_corner(const FvMeshView& mesh, long long c, int k, double* x)
{
    const index_type node = mesh.cells[c * mesh.nodes_per_cell + k];
    for (int a = 0; a < 3; ++a) x[a] = mesh.coordinates[3 * static_cast<long long>(node) + a];
}

GPUFEM_HOST_DEVICE inline double fv_dot(const double* a, const double* b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

GPUFEM_HOST_DEVICE inline void fv_cross(const double* a, const double* b, double* out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/// Area vector (orientation not fixed) and centre of local face f of cell c. Edges: the
/// normal (t_y, -t_x) times the length; triangles: half the cross product; quadrilaterals:
/// the sum and area-weighted centre of the four triangles from the corners' mean (exact for
/// planar faces, the usual choice for warped ones).
GPUFEM_HOST_DEVICE inline void fv_face_raw(const FvMeshView& mesh, long long c, int f, double* area,
                                           double* centre)
{
    const int* local = fv_shape(mesh, c).face_corners[f];
    double p[4][3];
    const int n = mesh.dim == 2 ? 2 : (local[3] >= 0 ? 4 : 3);
    for (int k = 0; k < n; ++k) fv_corner(mesh, c, local[k], p[k]);
    if (n == 2) {
        area[0] = p[1][1] - p[0][1];
        area[1] = -(p[1][0] - p[0][0]);
        area[2] = 0.0;
        for (int a = 0; a < 3; ++a) centre[a] = 0.5 * (p[0][a] + p[1][a]);
        return;
    }
    if (n == 3) {
        double u[3], v[3];
        for (int a = 0; a < 3; ++a) {
            u[a] = p[1][a] - p[0][a];
            v[a] = p[2][a] - p[0][a];
            centre[a] = (p[0][a] + p[1][a] + p[2][a]) / 3.0;
        }
        fv_cross(u, v, area);
        for (int a = 0; a < 3; ++a) area[a] *= 0.5;
        return;
    }
    double mean[3];
    for (int a = 0; a < 3; ++a) mean[a] = 0.25 * (p[0][a] + p[1][a] + p[2][a] + p[3][a]);
    double total = 0.0, weighted[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) area[a] = 0.0;
    double reference[3];  // the face's overall normal, to sign the four triangles
    {
        double d1[3], d2[3];
        for (int a = 0; a < 3; ++a) {
            d1[a] = p[2][a] - p[0][a];
            d2[a] = p[3][a] - p[1][a];
        }
        fv_cross(d1, d2, reference);
    }
    for (int k = 0; k < 4; ++k) {
        const double* a0 = p[k];
        const double* a1 = p[(k + 1) % 4];
        double u[3], v[3], s[3];
        for (int a = 0; a < 3; ++a) {
            u[a] = a0[a] - mean[a];
            v[a] = a1[a] - mean[a];
        }
        fv_cross(u, v, s);
        for (int a = 0; a < 3; ++a) area[a] += 0.5 * s[a];
        double size = 0.5 * fv_dot(s, reference);
        size = size / (fv_dot(reference, reference) > 0 ? ::sqrt(fv_dot(reference, reference)) : 1.0);
        total += size;
        for (int a = 0; a < 3; ++a) weighted[a] += size * (mean[a] + a0[a] + a1[a]) / 3.0;
    }
    for (int a = 0; a < 3; ++a) centre[a] = total != 0.0 ? weighted[a] / total : mean[a];
}

/// Volume (2D: area) and centroid of cell c: the pyramids (triangles) from the corners' mean
/// to each face.
GPUFEM_HOST_DEVICE inline void fv_cell_shape(const FvMeshView& mesh, long long c, double* centroid,
                                             double& volume)
{
    const KernelShape& shape = fv_shape(mesh, c);
    double apex[3] = {0, 0, 0};
    for (int k = 0; k < shape.corners; ++k) {
        double x[3];
        fv_corner(mesh, c, k, x);
        for (int a = 0; a < 3; ++a) apex[a] += x[a] / shape.corners;
    }
    const double to_centre = mesh.dim == 2 ? 2.0 / 3.0 : 0.75;
    volume = 0.0;
    double weighted[3] = {0, 0, 0};
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
        double area[3], centre[3], r[3];
        fv_face_raw(mesh, c, f, area, centre);
        for (int a = 0; a < 3; ++a) r[a] = centre[a] - apex[a];
        double piece = fv_dot(area, r) / mesh.dim;
        if (piece < 0) piece = -piece;
        volume += piece;
        for (int a = 0; a < 3; ++a) weighted[a] += piece * (apex[a] + to_centre * r[a]);
    }
    for (int a = 0; a < 3; ++a) centroid[a] = volume > 0 ? weighted[a] / volume : apex[a];
}

/// Outward area vector and centre of face f of cell c (centroids known).
GPUFEM_HOST_DEVICE inline void fv_face(const FvMeshView& mesh, long long c, int f, double* area,
                                       double* centre)
{
    fv_face_raw(mesh, c, f, area, centre);
    double r[3];
    for (int a = 0; a < 3; ++a) r[a] = centre[a] - mesh.centroid[3 * c + a];
    if (fv_dot(area, r) < 0)
        for (int a = 0; a < 3; ++a) area[a] = -area[a];
}

/// What face f of cell P adds to P's row, without the explicit correction: `diagonal` to
/// a_PP, `off` to a_PN (N = `neighbour`, -1: none), `rhs` (boundary data) to b_P. The face's
/// outward flux is diagonal u_P + off u_N - rhs - correction.
struct FvFaceTerms {
    double diagonal = 0;
    double off = 0;
    double rhs = 0;
    index_type neighbour = -1;
};

/// The face's value program, evaluated at x.
GPUFEM_HOST_DEVICE inline double fv_boundary_value(const FvProblemView& problem, const FvCondition& condition,
                                                   const double* x)
{
    return evaluate_program(problem.programs + condition.program, x[0], x[1], x[2]);
}

/// A Robin face's share of its two-point flux, c H / (c + H) = coefficient * robin_share,
/// robin_share = H / (c + H), H = h(x_f) |S|, c = coefficient = kappa |S|^2 / d.S.
GPUFEM_HOST_DEVICE inline double fv_robin_share(const FvProblemView& problem, const FvCondition& condition,
                                                const double* centre, double coefficient, double s2)
{
    const double transfer = evaluate_program(problem.programs + condition.program, centre[0], centre[1], centre[2]) *
                            ::sqrt(s2);
    return transfer > 0.0 ? transfer / (coefficient + transfer) : 0.0;
}

/// A Robin face's ambient value u_inf(x_f).
GPUFEM_HOST_DEVICE inline double fv_robin_ambient(const FvProblemView& problem, const FvCondition& condition,
                                                  const double* centre)
{
    return evaluate_program(problem.programs + condition.second, centre[0], centre[1], centre[2]);
}

/// The explicit non-orthogonal correction kappa_f k . grad_f (gradient: 3 per cell, or null:
/// none), limited by problem.limit against the implicit part `implicit` = coefficient *
/// (u_N - u_P) (OpenFOAM's limited scheme).
GPUFEM_HOST_DEVICE inline double fv_correction(const FvProblemView& problem, double kappa_f,
                                               const double* k, const double* grad, double implicit)
{
    double correction = kappa_f * fv_dot(k, grad);
    if (problem.limit < 1.0) {
        const double bound = problem.limit <= 0.0 ? 0.0 : problem.limit / (1.0 - problem.limit) *
                                                              (implicit < 0 ? -implicit : implicit);
        if (correction > bound) correction = bound;
        if (correction < -bound) correction = -bound;
    }
    return correction;
}

/// A face as its two-point flux sees it.
struct FvFaceGeometry {
    double area[3];        ///< outward area vector
    double centre[3];
    double d[3];           ///< x_N - x_P, or x_f - x_P on the boundary
    double ds = 0;         ///< d . area
    double s2 = 0;         ///< |area|^2
    double l = 0;          ///< (x_f - x_P) . area / ds (1 on the boundary)
    double kappa = 0;      ///< kappa_f (boundary: kappa_P)
    index_type neighbour = -1;
    FvCondition condition;  ///< boundary faces: their group's condition
};

/// The geometry of face f of cell c (centroids known) and its kappa_f.
GPUFEM_HOST_DEVICE inline FvFaceGeometry fv_face_geometry(const FvMeshView& mesh, const FvProblemView& problem,
                                                          long long c, int f)
{
    FvFaceGeometry g;
    const long long slot = c * mesh.faces_per_cell + f;
    fv_face(mesh, c, f, g.area, g.centre);
    const double* xp = mesh.centroid + 3 * c;
    g.neighbour = mesh.neighbour[slot];
    g.s2 = fv_dot(g.area, g.area);
    if (g.neighbour >= 0) {
        const double* xn = mesh.centroid + 3 * static_cast<long long>(g.neighbour);
        double from_p[3];
        for (int a = 0; a < 3; ++a) {
            g.d[a] = xn[a] - xp[a];
            from_p[a] = g.centre[a] - xp[a];
        }
        g.ds = fv_dot(g.d, g.area);
        g.l = fv_dot(from_p, g.area) / g.ds;
        g.l = g.l < 0.0 ? 0.0 : (g.l > 1.0 ? 1.0 : g.l);  // skewed cells: keep kappa_f a mean
        g.kappa = 1.0 / (g.l / problem.kappa[c] + (1.0 - g.l) / problem.kappa[g.neighbour]);
        return g;
    }
    for (int a = 0; a < 3; ++a) g.d[a] = g.centre[a] - xp[a];
    g.ds = fv_dot(g.d, g.area);
    g.l = 1.0;
    g.kappa = problem.kappa[c];
    const int group = mesh.group[slot];
    if (group >= 0) g.condition = problem.conditions[group];
    return g;
}

/// The angle (degrees) between the normal of face f of cell c and its d.
GPUFEM_HOST_DEVICE inline double fv_face_nonorthogonality(const FvMeshView& mesh, long long c, int f)
{
    double area[3], centre[3], d[3];
    fv_face(mesh, c, f, area, centre);
    const index_type n = mesh.neighbour[c * mesh.faces_per_cell + f];
    for (int a = 0; a < 3; ++a)
        d[a] = (n >= 0 ? mesh.centroid[3 * static_cast<long long>(n) + a] : centre[a]) - mesh.centroid[3 * c + a];
    double cosine = fv_dot(d, area) / ::sqrt(fv_dot(d, d) * fv_dot(area, area));
    cosine = cosine > 1.0 ? 1.0 : (cosine < -1.0 ? -1.0 : cosine);
    return ::acos(cosine) * 57.29577951308232;
}

/// b . S on the face of cell c with outward area vector `area` (neighbour: the cell across, or
/// -1): the constant b, or the mean of the two cells' b (cell c's on the boundary).
GPUFEM_HOST_DEVICE inline double fv_face_convection(const FvProblemView& problem, long long c, index_type neighbour,
                                                   const double* area)
{
    if (!problem.velocity) return fv_dot(problem.convection, area);
    const int dim = problem.velocity_components;
    const double* b = problem.velocity + dim * c;
    const double* n = neighbour < 0 ? b : problem.velocity + dim * static_cast<long long>(neighbour);
    double flux = 0.0;
    for (int a = 0; a < dim; ++a) flux += 0.5 * (b[a] + n[a]) * area[a];
    return flux;
}

/// The implicit terms and the data of face f of cell c: what it adds to the row of c.
GPUFEM_HOST_DEVICE inline FvFaceTerms fv_face_terms(const FvMeshView& mesh, const FvProblemView& problem,
                                                    long long c, int f)
{
    const FvFaceGeometry g = fv_face_geometry(mesh, problem, c, f);
    FvFaceTerms terms;
    const double convective = fv_face_convection(problem, c, g.neighbour, g.area);
    const double coefficient = g.kappa * g.s2 / g.ds;
    if (g.neighbour >= 0) {
        terms.neighbour = g.neighbour;
        terms.diagonal = coefficient + (convective > 0 ? convective : 0.0);
        terms.off = -coefficient + (convective < 0 ? convective : 0.0);
    } else if (g.condition.kind == FvBoundaryKind::dirichlet) {
        const double ub = fv_boundary_value(problem, g.condition, g.centre);
        terms.diagonal = coefficient + (convective > 0 ? convective : 0.0);
        terms.rhs = coefficient * ub - (convective < 0 ? convective * ub : 0.0);
    } else if (g.condition.kind == FvBoundaryKind::robin) {  // convection carries u_P, as Neumann's
        const double transfer = coefficient * fv_robin_share(problem, g.condition, g.centre, coefficient, g.s2);
        terms.diagonal = transfer + convective;
        terms.rhs = transfer * fv_robin_ambient(problem, g.condition, g.centre);
    } else {  // Neumann or no condition: the given flux; convection carries u_P either way
        terms.diagonal = convective;
        if (g.condition.kind == FvBoundaryKind::neumann)
            terms.rhs = fv_boundary_value(problem, g.condition, g.centre) * ::sqrt(g.s2);
    }
    return terms;
}

/// Longest row of a finite-volume matrix: a hexahedron and its 6 neighbours.
inline constexpr int fv_max_row = 7;

/// Row c of the matrix, columns increasing (length entries into cols and values; the
/// pinned cell keeps its diagonal only, other rows drop its column), and its right-hand side
/// without the correction (f V + boundary data).
GPUFEM_HOST_DEVICE inline int fv_row(const FvMeshView& mesh, const FvProblemView& problem, long long c,
                                     index_type* cols, double* values, double& rhs)
{
    int length = 1;
    cols[0] = static_cast<index_type>(c);
    values[0] = problem.reaction ? problem.reaction[c] * mesh.volume[c] : 0.0;
    rhs = problem.source[c] * mesh.volume[c];
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
        const FvFaceTerms terms = fv_face_terms(mesh, problem, c, f);
        values[0] += terms.diagonal;
        rhs += terms.rhs;
        if (terms.neighbour >= 0 && terms.neighbour != problem.pinned && c != problem.pinned) {
            cols[length] = terms.neighbour;
            values[length++] = terms.off;
        }
    }
    for (int i = 1; i < length; ++i)  // insertion sort: at most 6 entries
        for (int j = i; j > 0 && cols[j] < cols[j - 1]; --j) {
            const index_type tc = cols[j];
            cols[j] = cols[j - 1];
            cols[j - 1] = tc;
            const double tv = values[j];
            values[j] = values[j - 1];
            values[j - 1] = tv;
        }
    return length;
}

/// The explicit non-orthogonal correction of face f of cell c (added to the row's right-hand
/// side): kappa_f k . grad_f, k = S - d |S|^2 / d.S, grad_f interpolated from the cell
/// gradients (3 per cell; Dirichlet faces: grad_P), limited against the implicit part for
/// the solution u; 0 on Neumann faces.
template <typename U>
GPUFEM_HOST_DEVICE inline double fv_face_correction(const FvMeshView& mesh, const FvProblemView& problem,
                                                    long long c, int f, const double* gradient,
                                                    const U* u)
{
    const FvFaceGeometry g = fv_face_geometry(mesh, problem, c, f);
    double other, share = 1.0;  // a Robin face takes the share H / (c + H) of its correction
    const double* grad_n;
    if (g.neighbour >= 0) {
        other = static_cast<double>(u[g.neighbour]);
        grad_n = gradient + 3 * static_cast<long long>(g.neighbour);
    } else if (g.condition.kind == FvBoundaryKind::dirichlet) {
        other = fv_boundary_value(problem, g.condition, g.centre);
        grad_n = gradient + 3 * c;
    } else if (g.condition.kind == FvBoundaryKind::robin) {
        const double coefficient = g.kappa * g.s2 / g.ds;
        share = fv_robin_share(problem, g.condition, g.centre, coefficient, g.s2);
        other = (1.0 - share) * static_cast<double>(u[c]) + share * fv_robin_ambient(problem, g.condition, g.centre);
        grad_n = gradient + 3 * c;
    } else {
        return 0.0;
    }
    double k[3], grad[3];
    for (int a = 0; a < 3; ++a) {
        k[a] = g.area[a] - g.d[a] * g.s2 / g.ds;
        grad[a] = (1.0 - g.l) * gradient[3 * c + a] + g.l * grad_n[a];
    }
    const double implicit = g.kappa * g.s2 / g.ds * (other - static_cast<double>(u[c]));
    return share * fv_correction(problem, g.kappa, k, grad, implicit);
}

/// Writes row c (fv_row) into CSR arrays at row_ptr[c] and its right-hand side.
template <typename V>
GPUFEM_HOST_DEVICE inline void fv_write_row(const FvMeshView& mesh, const FvProblemView& problem, long long c,
                                            const index_type* row_ptr, index_type* cols, V* values, V* rhs)
{
    index_type row_cols[fv_max_row];
    double row_values[fv_max_row], b = 0.0;
    const int length = fv_row(mesh, problem, c, row_cols, row_values, b);
    rhs[c] = static_cast<V>(b);
    const index_type start = row_ptr[c];
    for (int i = 0; i < length; ++i) {
        cols[start + i] = row_cols[i];
        values[start + i] = static_cast<V>(row_values[i]);
    }
}

/// The right-hand side of row c with the corrections of u (gradient: its cell gradients):
/// base[c] + the faces' corrections; 0 for the pinned cell.
template <typename V>
GPUFEM_HOST_DEVICE inline V fv_corrected_row_rhs(const FvMeshView& mesh, const FvProblemView& problem, long long c,
                                                 const double* gradient, const V* u, const V* base)
{
    if (c == problem.pinned) return V(0);
    double correction = 0.0;
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) correction += fv_face_correction(mesh, problem, c, f, gradient, u);
    return static_cast<V>(static_cast<double>(base[c]) + correction);
}

/// The outward fluxes of u through the faces of cell c into flux[c * faces_per_cell + f],
/// with the corrections when gradient is not null; 0 in the slots past the cell's faces.
template <typename V>
GPUFEM_HOST_DEVICE inline void fv_cell_fluxes(const FvMeshView& mesh, const FvProblemView& problem, long long c,
                                              const V* u, const double* gradient, double* flux)
{
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
        const FvFaceTerms terms = fv_face_terms(mesh, problem, c, f);
        double out = terms.diagonal * static_cast<double>(u[c]) - terms.rhs;
        if (gradient != nullptr) out -= fv_face_correction(mesh, problem, c, f, gradient, u);
        if (terms.neighbour >= 0) out += terms.off * static_cast<double>(u[terms.neighbour]);
        flux[c * mesh.faces_per_cell + f] = out;
    }
    for (int f = fv_shape(mesh, c).faces; f < mesh.faces_per_cell; ++f) flux[c * mesh.faces_per_cell + f] = 0.0;
}

/// The step from cell c's centroid to its neighbour n's across face f, as cell c's gradient
/// sees it: d = x_N - x_P, and across a region interface (kappa may jump there, and the normal
/// derivative with it: kappa_P du/dn = kappa_N du/dn, the tangential ones continuous)
/// d + (kappa_P / kappa_N - 1) dn n, dn = n . (x_N - x_f), n the face's unit normal, so that
/// u_N - u_P = grad_P u . d holds for a solution linear on each side.
GPUFEM_HOST_DEVICE inline void fv_neighbour_step(const FvMeshView& mesh, const FvProblemView& problem, long long c,
                                                 int f, index_type n, double* d)
{
    const double* xn = mesh.centroid + 3 * static_cast<long long>(n);
    for (int a = 0; a < 3; ++a) d[a] = xn[a] - mesh.centroid[3 * c + a];
    if (!mesh.region || mesh.region[n] == mesh.region[c]) return;
    double area[3], centre[3], beyond[3];
    fv_face(mesh, c, f, area, centre);
    const double s = ::sqrt(fv_dot(area, area));
    for (int a = 0; a < 3; ++a) beyond[a] = xn[a] - centre[a];
    const double dn = fv_dot(beyond, area) / s;
    const double factor = (problem.kappa[c] / problem.kappa[n] - 1.0) * dn / s;
    for (int a = 0; a < 3; ++a) d[a] += factor * area[a];
}

/// The least-squares gradient of u in cell c (weights 1 / |d|^2) from its neighbours (the
/// steps of fv_neighbour_step), its Dirichlet faces (their boundary values) and its other
/// boundary faces (the known normal derivative: g / kappa on Neumann faces, the Robin
/// condition's, 0 on faces without a condition); 0 where the directions do not span the space
/// (a degenerate cell).
template <typename U>
GPUFEM_HOST_DEVICE inline void fv_cell_gradient(const FvMeshView& mesh, const FvProblemView& problem,
                                                const U* u, long long c, double* grad)
{
    double m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, r[3] = {0, 0, 0};
    const double* xp = mesh.centroid + 3 * c;
    const double up = static_cast<double>(u[c]);
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
        const long long slot = c * mesh.faces_per_cell + f;
        const index_type n = mesh.neighbour[slot];
        double d[3], du;
        double w = 0;
        if (n >= 0) {
            fv_neighbour_step(mesh, problem, c, f, n, d);
            for (int a = 0; a < 3; ++a) w += (mesh.centroid[3 * static_cast<long long>(n) + a] - xp[a]) *
                                             (mesh.centroid[3 * static_cast<long long>(n) + a] - xp[a]);
            du = static_cast<double>(u[n]) - up;
        } else {
            const int group = mesh.group[slot];
            const FvCondition condition = group >= 0 ? problem.conditions[group] : FvCondition{};
            double area[3], centre[3];
            fv_face(mesh, c, f, area, centre);
            for (int a = 0; a < 3; ++a) d[a] = centre[a] - xp[a];
            if (condition.kind == FvBoundaryKind::dirichlet) {
                du = fv_boundary_value(problem, condition, centre) - up;
            } else {
                // The known normal derivative g / kappa_P as the equation n . grad u = q,
                // written as a difference along the face's normal distance. Robin:
                // kappa q = -h (u_f - u_inf) with u_f = u_P + along q.
                const double s = ::sqrt(fv_dot(area, area));
                const double along = fv_dot(d, area) / s;
                double q = 0.0;
                if (condition.kind == FvBoundaryKind::neumann) {
                    q = fv_boundary_value(problem, condition, centre) / problem.kappa[c];
                } else if (condition.kind == FvBoundaryKind::robin) {
                    const double h = fv_boundary_value(problem, condition, centre);
                    q = -h * (up - fv_robin_ambient(problem, condition, centre)) / (problem.kappa[c] + h * along);
                }
                for (int a = 0; a < 3; ++a) d[a] = along * area[a] / s;
                du = along * q;
            }
        }
        w = 1.0 / (w > 0 ? w : fv_dot(d, d));
        for (int a = 0; a < 3; ++a) {
            r[a] += w * d[a] * du;
            for (int b = 0; b < 3; ++b) m[a][b] += w * d[a] * d[b];
        }
    }
    for (int a = 0; a < 3; ++a) grad[a] = 0.0;
    if (mesh.dim == 2) {
        const double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        const double scale = m[0][0] * m[1][1];
        if (!(det > 1e-8 * scale)) return;
        grad[0] = (m[1][1] * r[0] - m[0][1] * r[1]) / det;
        grad[1] = (m[0][0] * r[1] - m[1][0] * r[0]) / det;
        return;
    }
    double inv[3][3];
    inv[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    inv[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
    inv[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
    inv[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    inv[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
    inv[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
    inv[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    inv[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
    inv[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    const double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
    const double scale = m[0][0] * m[1][1] * m[2][2];
    if (!(det > 1e-8 * scale)) return;
    for (int a = 0; a < 3; ++a)
        grad[a] = (inv[a][0] * r[0] + inv[a][1] * r[1] + inv[a][2] * r[2]) / det;
}

/// The tag of face slot `slot` (fv_boundary_face_tags): the conditioned boundary group, `others`
/// for a boundary face with flux outside them, -1 otherwise.
GPUFEM_HOST_DEVICE inline int fv_boundary_face_tag(const FvMeshView& mesh, const int* conditioned, int others,
                                                   const double* flux, long long slot)
{
    if (mesh.neighbour[slot] >= 0) return -1;
    const int g = mesh.group[slot];
    if (g >= 0 && conditioned[g]) return g;
    return flux[slot] != 0.0 ? others : -1;  // padding slots and free faces without flux: none
}

/// Cell c's flux -kappa grad u (3 columns of n values at flux) and its integrals (5 columns of
/// n values at integrals): V, V (u + shift_u), V f, V c u, 0.
template <typename V>
GPUFEM_HOST_DEVICE inline void fv_cell_flux_integrals(const FvProblemView& problem, const double* volume, const V* u,
                                                      double shift_u, const double* gradient, long long c,
                                                      long long n, double* flux, double* integrals)
{
    for (int d = 0; d < 3; ++d) flux[d * n + c] = -problem.kappa[c] * gradient[3 * c + d];
    const double value = static_cast<double>(u[c]);
    const double v = volume[c];
    integrals[c] = v;
    integrals[n + c] = v * (value + shift_u);
    integrals[2 * n + c] = v * problem.source[c];
    integrals[3 * n + c] = problem.reaction ? v * problem.reaction[c] * value : 0.0;
    integrals[4 * n + c] = 0.0;
}

/// The exact and computed values at cell c's centroid and their difference, each shifted
/// (pure-Neumann solutions are compared at zero mean); the exact value is 0 without a program.
struct FvCellError {
    double exact, computed, error;
};

template <typename V>
GPUFEM_HOST_DEVICE inline FvCellError fv_cell_error(const ExprInstruction* program, const double* centroid,
                                                     long long c, const V* u, double shift_u, double shift_exact)
{
    const double* x = centroid + 3 * c;
    const double ue = (program ? evaluate_program(program, x[0], x[1], x[2]) : 0.0) + shift_exact;
    const double uh = static_cast<double>(u[c]) + shift_u;
    return {ue, uh, uh - ue};
}

}  // namespace gpufem