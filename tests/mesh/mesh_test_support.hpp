#pragma once
// Helpers shared by the mesh tests: a temporary folder and cell/facet measures.
#include <array>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"

namespace gpufem::test {

/// A fresh empty folder under the system's temporary folder, removed with its contents on
/// destruction.
class TempFolder {
public:
    TempFolder()
    {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("gpufem_mesh_test_" + std::to_string(::getpid()) + "_" +
                 std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempFolder()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }
    /// A path inside the folder.
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
    /// Writes `text` into the folder as `name`; its path.
    std::filesystem::path write(const std::string& name, const std::string& text) const
    {
        const auto path = path_ / name;
        std::ofstream(path) << text;
        return path;
    }

private:
    std::filesystem::path path_;
};

/// A built-in shape's mesh (elements "" and size 0: the shape's defaults).
/// The spec of a built-in shape.
inline MeshSpec shape_spec(const std::string& shape, const std::string& elements, double size, int degree = 1,
                           int refine = 0)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::shape;
    spec.shape = shape;
    spec.elements = elements;
    spec.size = size;
    spec.degree = degree;
    spec.refine = refine;
    return spec;
}

inline Mesh load_shape_mesh(const std::string& shape, const std::string& elements, double size,
                            int degree = 1, int refine = 0)
{
    return load_mesh(shape_spec(shape, elements, size, degree, refine));
}

/// A mesh file's or a .geo script's mesh (`kind`), of degree `degree`, refined `refine` times.
inline Mesh load_path_mesh(MeshSpec::Kind kind, const std::filesystem::path& path, int degree = 1,
                           int refine = 0)
{
    MeshSpec spec;
    spec.kind = kind;
    spec.path = path.string();
    spec.degree = degree;
    spec.refine = refine;
    return load_mesh(spec);
}

/// The message of the runtime_error that `f` throws ("" if none).
template <typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

using Vec3 = std::array<double, 3>;

inline Vec3 node(const Mesh& mesh, index_type n)
{
    return {mesh.coordinates[3 * n], mesh.coordinates[3 * n + 1], mesh.coordinates[3 * n + 2]};
}

inline Vec3 minus(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

inline Vec3 cross(const Vec3& a, const Vec3& b)
{
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

inline double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

inline double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

/// Signed Jacobian determinants of a cell at the 2^dim Gauss points (one value for simplices),
/// in the z = 0 plane for 2D cells.
inline std::vector<double> cell_jacobians(const Mesh& mesh, index_type c)
{
    const index_type* n = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
    auto x = [&](int i) { return node(mesh, n[i]); };
    switch (mesh.cell_type) {
    case ElementType::triangle: {
        const Vec3 a = minus(x(1), x(0)), b = minus(x(2), x(0));
        return {a[0] * b[1] - a[1] * b[0]};
    }
    case ElementType::tetrahedron:
        return {dot(minus(x(1), x(0)), cross(minus(x(2), x(0)), minus(x(3), x(0))))};
    case ElementType::quadrilateral: {
        std::vector<double> dets;
        const double g = 1.0 / std::sqrt(3.0);
        for (double s : {-g, g})
            for (double t : {-g, g}) {
                // Bilinear map on [-1,1]^2 with corners in counter-clockwise order.
                const double dxs = 0.25 * ((1 - t) * (x(1)[0] - x(0)[0]) + (1 + t) * (x(2)[0] - x(3)[0]));
                const double dys = 0.25 * ((1 - t) * (x(1)[1] - x(0)[1]) + (1 + t) * (x(2)[1] - x(3)[1]));
                const double dxt = 0.25 * ((1 - s) * (x(3)[0] - x(0)[0]) + (1 + s) * (x(2)[0] - x(1)[0]));
                const double dyt = 0.25 * ((1 - s) * (x(3)[1] - x(0)[1]) + (1 + s) * (x(2)[1] - x(1)[1]));
                dets.push_back(dxs * dyt - dys * dxt);
            }
        return dets;
    }
    case ElementType::hexahedron: {
        std::vector<double> dets;
        const double g = 1.0 / std::sqrt(3.0);
        // Reference corners of the Gmsh/VTK hexahedron.
        const int corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
        for (double r : {-g, g})
            for (double s : {-g, g})
                for (double t : {-g, g}) {
                    double J[3][3] = {};
                    for (int i = 0; i < 8; ++i) {
                        const double cr = corner[i][0], cs = corner[i][1], ct = corner[i][2];
                        const double d[3] = {0.125 * cr * (1 + cs * s) * (1 + ct * t),
                                             0.125 * cs * (1 + cr * r) * (1 + ct * t),
                                             0.125 * ct * (1 + cr * r) * (1 + cs * s)};
                        const Vec3 p = x(i);
                        for (int a = 0; a < 3; ++a)
                            for (int b = 0; b < 3; ++b) J[a][b] += p[a] * d[b];
                    }
                    dets.push_back(J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                                   J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                                   J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]));
                }
        return dets;
    }
    default: return {};
    }
}

/// Area (2D) or volume (3D) of a mesh of triangles, quadrilaterals or tetrahedra of any
/// order, by quadrature of det J (collapsed Gauss on simplices, tensor Gauss on
/// quadrilaterals, 5 points per direction: exact for the orders tested).
inline double curved_measure(const Mesh& mesh)
{
    static const double x[5] = {0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155,
                                0.95308992296933200};
    static const double w[5] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444,
                                0.23931433524968324, 0.11846344252809454};
    const int dim = mesh.dim;
    std::vector<double> points, weights;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            for (int k = 0; k < (dim == 3 ? 5 : 1); ++k) {
                if (mesh.cell_type == ElementType::tetrahedron) {
                    points.insert(points.end(), {x[i], x[j] * (1 - x[i]), x[k] * (1 - x[i]) * (1 - x[j])});
                    weights.push_back(w[i] * w[j] * w[k] * (1 - x[i]) * (1 - x[i]) * (1 - x[j]));
                } else if (mesh.cell_type == ElementType::triangle) {
                    points.insert(points.end(), {x[i], x[j] * (1 - x[i])});
                    weights.push_back(w[i] * w[j] * (1 - x[i]));
                } else {
                    points.insert(points.end(), {2 * x[i] - 1, 2 * x[j] - 1});
                    weights.push_back(4 * w[i] * w[j]);
                }
            }
    std::vector<double> values, gradients;
    lagrange_basis(mesh.cell_type, mesh.degree, points, values, gradients);
    const int n = mesh.nodes_per_cell;
    double measure = 0;
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        for (std::size_t q = 0; q < weights.size(); ++q) {
            double j[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, dim == 2 ? 1.0 : 0.0}};
            for (int i = 0; i < n; ++i) {
                const Vec3 p = node(mesh, mesh.cells[static_cast<std::size_t>(c) * n + i]);
                for (int a = 0; a < dim; ++a)
                    for (int b = 0; b < dim; ++b) j[a][b] += p[a] * gradients[(q * n + i) * dim + b];
            }
            const double det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1]) -
                               j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0]) +
                               j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
            measure += weights[q] * std::abs(det);
        }
    return measure;
}

/// Area (2D) or volume (3D) of a cell; exact for affine simplices and bilinear/trilinear cells.
inline double cell_measure(const Mesh& mesh, index_type c)
{
    const std::vector<double> dets = cell_jacobians(mesh, c);
    switch (mesh.cell_type) {
    case ElementType::triangle: return std::abs(dets[0]) / 2;
    case ElementType::tetrahedron: return std::abs(dets[0]) / 6;
    default: {
        double sum = 0;
        for (double d : dets) sum += std::abs(d);
        return sum;  // Gauss weights are 1 on [-1,1]^dim
    }
    }
}

/// Sum of the measures of all cells.
inline double mesh_measure(const Mesh& mesh)
{
    double sum = 0;
    for (index_type c = 0; c < mesh.num_cells(); ++c) sum += cell_measure(mesh, c);
    return sum;
}

/// Total length (2D) or area (3D, planar facets) of a boundary group.
inline double facets_measure(const Mesh& mesh, const BoundaryFacets& facets)
{
    double sum = 0;
    for (std::size_t f = 0; f < facets.size(); ++f) {
        const index_type* n = &facets.connectivity[f * facets.nodes_per_facet];
        auto x = [&](int i) { return node(mesh, n[i]); };
        switch (facets.type) {
        case ElementType::line: sum += norm(minus(x(1), x(0))); break;
        case ElementType::triangle: sum += norm(cross(minus(x(1), x(0)), minus(x(2), x(0)))) / 2; break;
        case ElementType::quadrilateral:
            sum += norm(cross(minus(x(1), x(0)), minus(x(2), x(0)))) / 2 +
                   norm(cross(minus(x(2), x(0)), minus(x(3), x(0)))) / 2;
            break;
        default: break;
        }
    }
    return sum;
}

/// While it lives, Gmsh's meshing runs in gpufem's mesh worker next to the test program (a
/// fresh Gmsh per mesh, as in gpufem: one process meshing Gmsh's hybrid meshes twice crashed
/// inside Gmsh 4.8); without the worker program, in this process.
class MeshWorkerForTest {
public:
    MeshWorkerForTest()
    {
        std::error_code error;
        const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
        const auto worker = self.parent_path() / "gpufem-mesh-worker";
        if (!error && std::filesystem::exists(worker)) set_mesh_worker(worker.string());
    }
    ~MeshWorkerForTest() { set_mesh_worker(""); }
    MeshWorkerForTest(const MeshWorkerForTest&) = delete;
    MeshWorkerForTest& operator=(const MeshWorkerForTest&) = delete;
};

}  // namespace gpufem::test
