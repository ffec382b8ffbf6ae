#include "mesh/vtu_cell_fields.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "linalg/file_kind.hpp"
#include "mesh/cell_fields.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/point_matching.hpp"

namespace gpufem {
namespace {

/// The number of corners of a VTK cell type gpufem writes or reads (linear, quadratic and
/// Lagrange cells of its shapes; their corners come first), or 0.
int vtk_corners(int type)
{
    switch (type) {
    case VTK_TRIANGLE: case VTK_QUADRATIC_TRIANGLE: case VTK_LAGRANGE_TRIANGLE: return 3;
    case VTK_QUAD: case VTK_QUADRATIC_QUAD: case VTK_BIQUADRATIC_QUAD: case VTK_LAGRANGE_QUADRILATERAL: return 4;
    case VTK_TETRA: case VTK_QUADRATIC_TETRA: case VTK_LAGRANGE_TETRAHEDRON: return 4;
    case VTK_HEXAHEDRON: case VTK_QUADRATIC_HEXAHEDRON: case VTK_TRIQUADRATIC_HEXAHEDRON:
    case VTK_LAGRANGE_HEXAHEDRON: return 8;
    case VTK_WEDGE: case VTK_QUADRATIC_WEDGE: case VTK_LAGRANGE_WEDGE: return 6;
    case VTK_PYRAMID: case VTK_QUADRATIC_PYRAMID: case VTK_LAGRANGE_PYRAMID: return 5;
    default: return 0;
    }
}

/// The .vtu's cells' corner means; throws naming a cell of a type gpufem does not know.
std::vector<double> vtu_centroids(vtkUnstructuredGrid* grid, const std::string& where)
{
    std::vector<double> centroids(3 * static_cast<std::size_t>(grid->GetNumberOfCells()), 0.0);
    for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
        const int corners = vtk_corners(grid->GetCellType(c));
        vtkIdType count = 0;
        const vtkIdType* points = nullptr;
        grid->GetCellPoints(c, count, points);
        if (corners == 0 || count < corners)
            throw MeshSourceError(fmt::format("{}: its cell {} is of VTK type {}, not a cell of a mesh gpufem reads", where,
                                              c, grid->GetCellType(c)));
        for (int i = 0; i < corners; ++i) {
            double x[3];
            grid->GetPoint(points[i], x);
            for (int a = 0; a < 3; ++a) centroids[3 * static_cast<std::size_t>(c) + a] += x[a] / corners;
        }
    }
    return centroids;
}

/// The mesh's cells' corner means and, for each, the distance within which a .vtu cell's
/// mean must lie: 1e-6 of the distance from the mean to the cell's first corner.
void mesh_centroids(const Mesh& mesh, std::vector<double>& centroids, std::vector<double>& tolerance)
{
    centroids.resize(3 * static_cast<std::size_t>(mesh.num_cells()));
    tolerance.resize(static_cast<std::size_t>(mesh.num_cells()));
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        double x[3];
        cell_corner_centroid(mesh, c, x);
        const double* corner = &mesh.node_coordinates()[3 * static_cast<std::size_t>(mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell])];
        const double r = std::hypot(x[0] - corner[0], x[1] - corner[1], x[2] - corner[2]);
        for (int a = 0; a < 3; ++a) centroids[3 * static_cast<std::size_t>(c) + a] = x[a];
        tolerance[static_cast<std::size_t>(c)] = 1e-6 * r;
    }
}

/// The .vtu as a grid; throws naming it when it cannot be read.
vtkSmartPointer<vtkUnstructuredGrid> read_grid(const std::string& file, const std::string& where)
{
    if (const std::string problem = not_a_regular_file(file); !problem.empty())
        throw MeshSourceError(fmt::format("{}: '{}' {}", where, file, problem));
    auto reader = vtkSmartPointer<vtkXMLUnstructuredGridReader>::New();
    reader->SetFileName(file.c_str());
    reader->Update();
    vtkSmartPointer<vtkUnstructuredGrid> grid = reader->GetOutput();
    if (grid == nullptr || reader->GetErrorCode() != 0 || grid->GetNumberOfPoints() == 0)
        throw MeshSourceError(fmt::format("{}: cannot read the file as a VTK unstructured grid (.vtu)", where));
    return grid;
}

/// The cell array `name`; throws listing the arrays there are.
vtkDataArray* cell_array(vtkUnstructuredGrid* grid, const std::string& name, const std::string& where)
{
    vtkCellData* data = grid->GetCellData();
    if (vtkDataArray* array = data->GetArray(name.c_str())) return array;
    std::vector<std::string> names;
    for (int a = 0; a < data->GetNumberOfArrays(); ++a)
        if (data->GetArrayName(a)) names.push_back(std::string("'") + data->GetArrayName(a) + "'");
    throw MeshSourceError(fmt::format("{}: the file has no cell array '{}' ({})", where, name,
                                      names.empty() ? std::string("it has no cell data")
                                                    : fmt::format("its cell arrays: {}", fmt::join(names, ", "))));
}

}  // namespace

CellField read_vtu_cell_field(const Mesh& mesh, const std::string& file, const std::string& name, const std::string& key)
{
    const std::string where = fmt::format("{}: cell_data '{}' of {}", key, name, file);
    vtkSmartPointer<vtkUnstructuredGrid> grid = read_grid(file, where);
    vtkDataArray* array = cell_array(grid, name, where);
    if (grid->GetNumberOfCells() != mesh.num_cells())
        throw MeshSourceError(fmt::format("{}: the file has {} cells, mesh {} {} (as read, before mesh.refine); "
                                          "the .vtu must be on the same mesh", where, grid->GetNumberOfCells(),
                                          mesh.source, mesh.num_cells()));
    std::vector<double> centroids, tolerance;
    mesh_centroids(mesh, centroids, tolerance);
    const std::vector<long long> match = match_points(vtu_centroids(grid, where), centroids, tolerance);
    std::vector<char> taken(match.size(), 0);
    CellField field{name, file, array->GetNumberOfComponents(), {}, 0, -1};
    field.values.resize(match.size() * static_cast<std::size_t>(field.components));
    for (std::size_t c = 0; c < match.size(); ++c) {
        if (match[c] < 0 || taken[static_cast<std::size_t>(match[c])]++)
            throw MeshSourceError(fmt::format("{}: no cell of the file lies at cell {} of mesh {} (its corners' mean "
                                              "({:.6g}, {:.6g}, {:.6g})); the .vtu must be on the same mesh", where, c,
                                              mesh.source, centroids[3 * c], centroids[3 * c + 1], centroids[3 * c + 2]));
        for (int k = 0; k < field.components; ++k)
            field.values[c * static_cast<std::size_t>(field.components) + static_cast<std::size_t>(k)] =
                array->GetComponent(match[c], k);
    }
    return field;
}

}  // namespace gpufem
