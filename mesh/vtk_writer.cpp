#include "mesh/vtk_writer.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>
#include <system_error>
#include <type_traits>

#include <omp.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <vtkCallbackCommand.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDoubleArray.h>
#include <vtkFloatArray.h>
#include <vtkErrorCode.h>
#include <vtkIdTypeArray.h>
#include <vtkTypeInt32Array.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include "mesh/shapes/cell_shape.hpp"
#include "linalg/write_errors.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/stage_laps.hpp"
#include "mesh/vtk_lagrange_nodes.hpp"
#include "mesh/vtu_lz4_writer.hpp"

namespace gpufem {
namespace {

/// Throws std::invalid_argument if the mesh's arrays are inconsistent.
void check_mesh(const Mesh& mesh)
{
    if (mesh.degree < 1 || mesh.degree > max_lagrange_degree(mesh.cell_type))
        throw std::invalid_argument("write_vtu: mesh '" + mesh.source + "' has order " + std::to_string(mesh.degree) +
                                    " (valid: 1 to " + std::to_string(max_lagrange_degree(mesh.cell_type)) + ")");
    if (!mesh.is_mixed() && mesh.nodes_per_cell != lagrange_node_count(mesh.cell_type, mesh.degree))
        throw std::invalid_argument("write_vtu: mesh '" + mesh.source + "' has " +
                                    std::to_string(mesh.nodes_per_cell) + " nodes per " +
                                    element_type_name(mesh.cell_type) + " of order " +
                                    std::to_string(mesh.degree));
    if (mesh.node_coordinates().size() % 3 != 0 || mesh.cells.size() % mesh.nodes_per_cell != 0)
        throw std::invalid_argument("write_vtu: mesh '" + mesh.source +
                                    "' has a partial node or cell");
    const index_type nodes = mesh.num_nodes();
    if (mesh.is_mixed()) {
        if (mesh.cell_types.size() != static_cast<std::size_t>(mesh.num_cells()))
            throw std::invalid_argument("write_vtu: mixed mesh '" + mesh.source + "' has " +
                                        std::to_string(mesh.cell_types.size()) + " cell types for " +
                                        std::to_string(mesh.num_cells()) + " cells");
        // The first cell with an entry out of range (or a padding slot that is not -1), by
        // the host's threads.
        std::array<int, element_type_count> corners{};
        for (int t = 0; t < element_type_count; ++t)
            if (mesh.degree <= max_lagrange_degree(static_cast<ElementType>(t)))
                corners[static_cast<std::size_t>(t)] = lagrange_node_count(static_cast<ElementType>(t), mesh.degree);
        const long long cells = mesh.num_cells();
        const int npc = mesh.nodes_per_cell;
        long long first_bad = cells;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
        for (long long c = 0; c < cells; ++c) {
            const int used = corners[mesh.cell_types[static_cast<std::size_t>(c)]];
            const index_type* cell = &mesh.cells[static_cast<std::size_t>(c) * npc];
            for (int i = 0; i < npc; ++i)
                if (i < used ? (cell[i] < 0 || cell[i] >= nodes) : cell[i] != -1) first_bad = std::min(first_bad, c);
        }
        if (first_bad < cells) {
            const index_type* cell = &mesh.cells[static_cast<std::size_t>(first_bad) * npc];
            const int used = corners[mesh.cell_types[static_cast<std::size_t>(first_bad)]];
            int i = 0;
            while (i < npc && (i < used ? (cell[i] >= 0 && cell[i] < nodes) : cell[i] == -1)) ++i;
            throw std::invalid_argument("write_vtu: cell " + std::to_string(first_bad) + " of mesh '" + mesh.source +
                                        "' (a " + element_type_name(mesh.type_of_cell(static_cast<index_type>(first_bad))) +
                                        ") has node entry " + std::to_string(i < npc ? cell[i] : 0) + " at " +
                                        std::to_string(i));
        }
        return;
    }
    // The first entry out of range, scanned by the host's threads (100M cells: 800M entries).
    const long long entries = static_cast<long long>(mesh.cells.size());
    long long first_bad = entries;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
    for (long long i = 0; i < entries; ++i)
        if (mesh.cells[i] < 0 || mesh.cells[i] >= nodes) first_bad = std::min(first_bad, i);
    if (first_bad < entries) {
        const auto cell = first_bad / mesh.nodes_per_cell;
        throw std::invalid_argument("write_vtu: cell " + std::to_string(cell) + " of mesh '" +
                                    mesh.source + "' refers to node " + std::to_string(mesh.cells[first_bad]) +
                                    " of " + std::to_string(nodes));
    }
    const std::size_t cells = mesh.cells.size() / mesh.nodes_per_cell;
    if (!mesh.cell_group.empty() && mesh.cell_group.size() != cells)
        throw std::invalid_argument("write_vtu: mesh '" + mesh.source + "' has " +
                                    std::to_string(mesh.cell_group.size()) +
                                    " cell group entries for " + std::to_string(mesh.num_cells()) +
                                    " cells");
}

/// Throws std::invalid_argument naming the first field with the wrong size, no name or a
/// name used twice; `names` collects the names seen.
void check_fields(std::span<const MeshField> fields, std::size_t expected, const char* kind,
                  const char* per, std::set<std::string>& names)
{
    for (const MeshField& field : fields) {
        if (field.name.empty())
            throw std::invalid_argument(std::string("write_vtu: a ") + kind + " field has no name");
        const std::string what = std::string("write_vtu: ") + kind + " field '" + field.name + "'";
        if (!names.insert(field.name).second)
            throw std::invalid_argument(what + " is given twice (or clashes with 'group')");
        if (field.size() != expected)
            throw std::invalid_argument(what + " has " + std::to_string(field.size()) +
                                        " values; the mesh has " + std::to_string(expected) + " " +
                                        per);
    }
}

/// A one-component array of the field's type viewing its values (no copy: VTK neither frees
/// nor writes them; the field outlives the writer). The LZ4 writer narrows a double field to
/// Float32 itself where asked (lz4_narrowed).
vtkSmartPointer<vtkDataArray> field_view(const MeshField& field)
{
    const auto view = [&field]<typename ArrayType, typename T>(const T* values) {
        auto array = vtkSmartPointer<ArrayType>::New();
        array->SetName(field.name.c_str());
        array->SetNumberOfComponents(1);
        array->SetArray(const_cast<T*>(values), static_cast<vtkIdType>(field.size()), 1);
        return vtkSmartPointer<vtkDataArray>(array);
    };
    if (field.held_in_float()) return view.template operator()<vtkFloatArray>(field.narrow.data());
    return view.template operator()<vtkDoubleArray>(field.values.data());
}

/// The field as VTK's writer writes it: the view of its values, or a Float32 copy of a double
/// field written as Float32.
vtkSmartPointer<vtkDataArray> field_array(const MeshField& field)
{
    if (!field.float32 || field.held_in_float()) return field_view(field);
    auto array = vtkSmartPointer<vtkFloatArray>::New();
    array->SetName(field.name.c_str());
    array->SetNumberOfComponents(1);
    const auto n = static_cast<vtkIdType>(field.values.size());
    array->SetNumberOfValues(n);
    float* to = array->GetPointer(0);
#pragma omp parallel for schedule(static)
    for (vtkIdType i = 0; i < n; ++i) to[i] = static_cast<float>(field.values[static_cast<std::size_t>(i)]);
    return array;
}

/// The keys ("PointData/name", "CellData/name") of the fields the LZ4 writer narrows to Float32.
std::set<std::string> lz4_narrowed(std::span<const MeshField> point_fields, std::span<const MeshField> cell_fields)
{
    std::set<std::string> keys;
    for (const MeshField& f : point_fields)
        if (f.float32) keys.insert("PointData/" + f.name);
    for (const MeshField& f : cell_fields)
        if (f.float32) keys.insert("CellData/" + f.name);
    return keys;
}

/// Whether the cells' offsets (the largest is the connectivity's length) fit 32-bit ids: then
/// make_grid stores them and the file holds them in 32 bits.
bool ids_fit_32_bits(const Mesh& mesh)
{
    return mesh.cells.size() < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
}

/// How a cell of one type and order is written: its VTK type and, for each of its VTK points,
/// the local node that is that point.
struct VtkCellNodes {
    int type = 0;
    std::vector<int> nodes;
};

/// Order 1: the first-order VTK cell (its corners in VTK's order); above: the Lagrange cell,
/// or for a shape without one (pyramids) VTK's quadratic cell at order 2.
VtkCellNodes vtk_cell_nodes(ElementType type, int degree)
{
    const ShapeTraits& shape = cell_shape(type);
    VtkCellNodes cell;
    if (degree == 1) {
        cell.type = shape.vtk_type;
        cell.nodes.assign(shape.vtk_corner_order.begin(), shape.vtk_corner_order.end());
    } else if (shape.vtk_lagrange_type < 0) {
        if (degree != 2 || shape.vtk_quadratic_type < 0)
            throw std::invalid_argument(std::string("write_vtu: ") + shape.plural + " of order " +
                                        std::to_string(degree) + " (VTK has no Lagrange " + shape.name +
                                        "; gpufem writes order 1 and 2)");
        cell.type = shape.vtk_quadratic_type;
        cell.nodes = vtk_quadratic_node_order(type);
    } else {
        cell.type = shape.vtk_lagrange_type;
        cell.nodes = vtk_file_node_order(type, degree);
    }
    return cell;
}

/// Sets a grid's cells of several types (or prisms, pyramids): a type per cell, offsets by
/// each cell's points, the connectivity in VTK's order, in the bits of IdArray, on the
/// host's threads (each thread's share of the cells counted, then placed after the shares
/// before it).
template <typename IdArray>
void fill_cells_by_type(vtkUnstructuredGrid& grid, const Mesh& mesh, const std::vector<VtkCellNodes>& of_type)
{
    using Id = typename IdArray::ValueType;
    const vtkIdType cells = mesh.num_cells();
    const std::size_t npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    const auto cell_nodes = [&](vtkIdType c) -> const VtkCellNodes& {
        return of_type[static_cast<std::size_t>(mesh.type_of_cell(static_cast<index_type>(c)))];
    };
    vtkNew<vtkUnsignedCharArray> types;
    types->SetNumberOfValues(cells);
    vtkNew<IdArray> offsets, connectivity;
    offsets->SetNumberOfValues(cells + 1);
    unsigned char* type = types->GetPointer(0);
    Id* offset = offsets->GetPointer(0);
    std::vector<std::int64_t> share(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
    int shares = 1;
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const vtkIdType begin = cells * t / n, end = cells * (t + 1) / n;
        std::int64_t points = 0;
        for (vtkIdType c = begin; c < end; ++c) points += static_cast<std::int64_t>(cell_nodes(c).nodes.size());
        share[static_cast<std::size_t>(t) + 1] = points;
#pragma omp barrier
#pragma omp single
        {
            shares = n;
            for (int k = 0; k < n; ++k) share[static_cast<std::size_t>(k) + 1] += share[static_cast<std::size_t>(k)];
        }
        std::int64_t at = share[static_cast<std::size_t>(t)];
        for (vtkIdType c = begin; c < end; ++c) {
            const VtkCellNodes& cell = cell_nodes(c);
            type[c] = static_cast<unsigned char>(cell.type);
            offset[c] = static_cast<Id>(at);
            at += static_cast<std::int64_t>(cell.nodes.size());
        }
    }
    const std::int64_t total = share[static_cast<std::size_t>(shares)];
    offset[cells] = static_cast<Id>(total);
    connectivity->SetNumberOfValues(static_cast<vtkIdType>(total));
    Id* to = connectivity->GetPointer(0);
#pragma omp parallel for schedule(static)
    for (vtkIdType c = 0; c < cells; ++c) {
        const index_type* from = &mesh.cells[static_cast<std::size_t>(c) * npc];
        Id* out = to + offset[c];
        for (const int i : cell_nodes(c).nodes) *out++ = static_cast<Id>(from[i]);
    }
    vtkNew<vtkCellArray> cell_array;
    cell_array->SetData(offsets, connectivity);
    grid.SetCells(types, cell_array);
}

/// Sets a grid's cells of several types (or prisms, pyramids), in 32-bit ids while they fit
/// (every cell's points are at most the mesh's nodes_per_cell entries).
void set_cells_by_type(vtkUnstructuredGrid& grid, const Mesh& mesh)
{
    std::vector<VtkCellNodes> of_type(element_type_count);  // the types the mesh holds
    for (int t = 0; t < element_type_count; ++t)
        if (mesh.has_cells_of(static_cast<ElementType>(t)))
            of_type[static_cast<std::size_t>(t)] = vtk_cell_nodes(static_cast<ElementType>(t), mesh.degree);
    if (ids_fit_32_bits(mesh))
        fill_cells_by_type<vtkTypeInt32Array>(grid, mesh, of_type);
    else
        fill_cells_by_type<vtkTypeInt64Array>(grid, mesh, of_type);
}

/// The mesh and its fields as a VTK unstructured grid (views_only: every field as the view of
/// its values, for the LZ4 writer that narrows the Float32 ones itself).
vtkSmartPointer<vtkUnstructuredGrid> make_grid(const Mesh& mesh,
                                               const std::vector<MeshField>& point_fields,
                                               const std::vector<MeshField>& cell_fields, bool views_only = false)
{
    const auto as_array = [views_only](const MeshField& field) {
        return views_only ? vtkSmartPointer<vtkDataArray>(field_view(field)) : field_array(field);
    };
    const vtkIdType nodes = mesh.num_nodes(), cells = mesh.num_cells();
    const int npc = mesh.nodes_per_cell;

    vtkNew<vtkDoubleArray> xyz;  // a view of the mesh's coordinates (no copy)
    xyz->SetNumberOfComponents(3);
    xyz->SetArray(const_cast<double*>(mesh.node_coordinates().data()), 3 * nodes, 1);
    vtkNew<vtkPoints> points;
    points->SetData(xyz);

    auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
    grid->SetPoints(points);
    // Offsets and connectivity in 32 bits while they fit (then the writer converts nothing),
    // the connectivity of first-order meshes a view of the mesh's own array.
    vtkNew<vtkCellArray> cell_array;
    const auto fill_cells = [&]<typename Array>(Array* offsets, Array* connectivity) {
        using Id = typename Array::ValueType;
        offsets->SetNumberOfValues(cells + 1);
        Id* offset = offsets->GetPointer(0);
#pragma omp parallel for schedule(static)
        for (vtkIdType c = 0; c <= cells; ++c) offset[c] = static_cast<Id>(c * npc);
        if (mesh.degree == 1 && std::is_same_v<Id, index_type>) {  // Gmsh's order is VTK's
            connectivity->SetArray(reinterpret_cast<Id*>(const_cast<index_type*>(mesh.cells.data())),
                                   static_cast<vtkIdType>(mesh.cells.size()), 1);
            return;
        }
        connectivity->SetNumberOfValues(static_cast<vtkIdType>(mesh.cells.size()));
        Id* to = connectivity->GetPointer(0);
        // Lagrange cells: VTK orders the high-order nodes differently (in a 1.0 file). By the
        // host's threads (42.5M P2 tetrahedra: 425M entries).
        std::vector<int> gmsh_node(static_cast<std::size_t>(npc));
        for (int i = 0; i < npc; ++i) gmsh_node[i] = i;
        if (mesh.degree > 1) gmsh_node = vtk_file_node_order(mesh.cell_type, mesh.degree);
#pragma omp parallel for schedule(static)
        for (vtkIdType c = 0; c < cells; ++c) {
            const index_type* from = &mesh.cells[static_cast<std::size_t>(c) * npc];
            for (int i = 0; i < npc; ++i) to[c * npc + i] = static_cast<Id>(from[gmsh_node[i]]);
        }
    };
    if (mesh.first_order_only()) {
        set_cells_by_type(*grid, mesh);
    } else {
        if (ids_fit_32_bits(mesh)) {
            vtkNew<vtkTypeInt32Array> offsets, connectivity;
            fill_cells(offsets.GetPointer(), connectivity.GetPointer());
            cell_array->SetData(offsets, connectivity);
        } else {
            vtkNew<vtkTypeInt64Array> offsets, connectivity;
            fill_cells(offsets.GetPointer(), connectivity.GetPointer());
            cell_array->SetData(offsets, connectivity);
        }
        // VTK infers the Lagrange order from the number of points per cell (uniform orders
        // need no HigherOrderDegrees array).
        grid->SetCells(mesh.degree == 1 ? cell_shape(mesh.cell_type).vtk_type : vtk_lagrange_cell_type(mesh.cell_type),
                       cell_array);
    }

    for (const MeshField& field : point_fields) grid->GetPointData()->AddArray(as_array(field));
    vtkNew<vtkIntArray> group;
    group->SetName("group");
    group->SetNumberOfValues(cells);
    int* group_of = group->GetPointer(0);
#pragma omp parallel for schedule(static)
    for (vtkIdType c = 0; c < cells; ++c)
        group_of[c] = mesh.cell_group.empty() ? 0 : mesh.cell_group[static_cast<std::size_t>(c)];
    grid->GetCellData()->AddArray(group);
    for (const MeshField& field : cell_fields) grid->GetCellData()->AddArray(as_array(field));
    return grid;
}

/// VTK's writer, marking every file version 1.0 (make_grid gives Lagrange hexahedra the node
/// order of 1.0 files; VTK would mark them 2.2, which meshio and older readers refuse).
class VersionOneWriter : public vtkXMLUnstructuredGridWriter {
public:
    static VersionOneWriter* New();
    vtkTypeMacro(VersionOneWriter, vtkXMLUnstructuredGridWriter);

protected:
    int GetDataSetMajorVersion() override { return 1; }
    int GetDataSetMinorVersion() override { return 0; }
};
vtkStandardNewMacro(VersionOneWriter);

/// The message for a VTK writer's error code on path: codes below FirstVTKErrorCode are the
/// system's errno (28: the disk is full); the enum is header-only, its string table in a
/// library gpufem does not link.
std::string vtk_write_error(const std::filesystem::path& path, unsigned long code)
{
    switch (code) {
    case vtkErrorCode::CannotOpenFileError: return write_error_message(path, 0, "cannot open the file");
    case vtkErrorCode::OutOfDiskSpaceError: return write_error_message(path, ENOSPC);
    case vtkErrorCode::NoFileNameError: return write_error_message(path, 0, "no file name");
    default: break;
    }
    if (code > 0 && code < vtkErrorCode::FirstVTKErrorCode) return write_error_message(path, static_cast<int>(code));
    return write_error_message(path, 0, "VTK writer error " + std::to_string(code));
}

/// Renames the finished temporary file to its final name (removing it if that fails).
void rename_into_place(const std::filesystem::path& temporary, const std::filesystem::path& path)
{
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw std::runtime_error("cannot write '" + path.string() + "': renaming '" +
                                 temporary.string() + "' failed: " + error.message());
    }
}

}  // namespace

std::filesystem::path vtu_temporary_path(const std::filesystem::path& path)
{
    return path.string() + ".tmp-" + std::to_string(::getpid());
}

std::unique_ptr<VtuLz4Prewrite> start_vtu_prewrite(const std::filesystem::path& path, const Mesh& mesh,
                                                   int threads)
{
    return start_vtu_prewrite(path, [&mesh]() -> const Mesh& { return mesh; }, threads);
}

std::unique_ptr<VtuLz4Prewrite> start_vtu_prewrite(const std::filesystem::path& path,
                                                   std::function<const Mesh&()> make_mesh, int threads)
{
    return std::make_unique<VtuLz4Prewrite>(
        vtu_temporary_path(path),
        [make_mesh = std::move(make_mesh)] {
            StageLaps laps;  // the debug line below: what the grid's time goes to
            const Mesh& mesh = make_mesh();
            laps.lap("mesh");
            check_mesh(mesh);  // on this thread too: it scans every cell entry
            laps.lap("checked");
            vtkSmartPointer<vtkUnstructuredGrid> grid = make_grid(mesh, {}, {});
            laps.lap("VTK grid");
            spdlog::debug("result.vtu's grid: {}", laps.text);
            grid->Register(nullptr);  // the reference the prewrite takes over
            return grid.Get();
        },
        threads);
}

namespace {

/// Adds point and cell fields of the mesh to the prewrite's grid and hands them to its thread.
void write_fields_early(VtuLz4Prewrite& prewrite, const Mesh& mesh, std::span<const MeshField> point_fields,
                        std::span<const MeshField> cell_fields)
{
    std::set<std::string> point_names, cell_names = {"group"};
    check_fields(point_fields, static_cast<std::size_t>(mesh.num_nodes()), "point", "nodes", point_names);
    check_fields(cell_fields, static_cast<std::size_t>(mesh.num_cells()), "cell", "cells", cell_names);
    vtkUnstructuredGrid* grid = prewrite.grid();
    if (grid->GetNumberOfPoints() != mesh.num_nodes() || grid->GetNumberOfCells() != mesh.num_cells())
        throw std::logic_error("write_vtu: fields written early to a prewrite started for another mesh");
    for (const MeshField& field : point_fields) grid->GetPointData()->AddArray(field_view(field));
    for (const MeshField& field : cell_fields) grid->GetCellData()->AddArray(field_view(field));
    prewrite.write_added(lz4_narrowed(point_fields, cell_fields));
}

}  // namespace

void write_vtu_field_early(VtuLz4Prewrite& prewrite, const Mesh& mesh, const MeshField& field)
{
    write_fields_early(prewrite, mesh, std::span<const MeshField>(&field, 1), {});
}

void write_vtu_cell_fields_early(VtuLz4Prewrite& prewrite, const Mesh& mesh, std::span<const MeshField> fields)
{
    write_fields_early(prewrite, mesh, {}, fields);
}

namespace {

/// write_vtu with the mesh's nodes taken as VTK's (equispaced) Lagrange nodes.
void write_vtu_as_given(const std::filesystem::path& path, const Mesh& mesh,
                        const std::vector<MeshField>& point_fields, const std::vector<MeshField>& cell_fields,
                        VtuCompression compression, const std::function<void(double)>& on_progress,
                        VtuLz4Prewrite* prewrite)
{
    namespace fs = std::filesystem;
    // With a prewrite its thread has checked the mesh (an error is rethrown by its grid()).
    if (!prewrite || compression != VtuCompression::lz4) check_mesh(mesh);
    std::set<std::string> point_names, cell_names = {"group"};
    check_fields(point_fields, static_cast<std::size_t>(mesh.num_nodes()), "point", "nodes",
                 point_names);
    check_fields(cell_fields, static_cast<std::size_t>(mesh.num_cells()), "cell", "cells",
                 cell_names);

    const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::error_code error;
    if (!fs::is_directory(folder, error))
        throw std::runtime_error("cannot write '" + path.string() + "': folder '" +
                                 folder.string() + "' does not exist");

    const fs::path temporary = vtu_temporary_path(path);
    if (prewrite && compression == VtuCompression::lz4) {
        if (prewrite->file() != temporary)
            throw std::logic_error("write_vtu: the prewrite was started for another file");
        vtkUnstructuredGrid* grid = prewrite->grid();
        if (grid->GetNumberOfPoints() != mesh.num_nodes() || grid->GetNumberOfCells() != mesh.num_cells())
            throw std::logic_error("write_vtu: the prewrite was started for another mesh");
        // A field written early (write_vtu_field_early) is in the grid already.
        for (const MeshField& field : point_fields)
            if (!grid->GetPointData()->HasArray(field.name.c_str())) grid->GetPointData()->AddArray(field_view(field));
        for (const MeshField& field : cell_fields)
            if (!grid->GetCellData()->HasArray(field.name.c_str())) grid->GetCellData()->AddArray(field_view(field));
        prewrite->finish(on_progress, lz4_narrowed(point_fields, cell_fields));  // removes the file when it fails
        rename_into_place(temporary, path);
        return;
    }
    const bool lz4 = compression == VtuCompression::lz4;
    const vtkSmartPointer<vtkUnstructuredGrid> grid = make_grid(mesh, point_fields, cell_fields, lz4);
    if (lz4) {  // blocks compressed by the host's threads
        try {
            write_vtu_lz4(temporary, grid, on_progress, lz4_narrowed(point_fields, cell_fields));
        } catch (...) {
            fs::remove(temporary, error);
            throw;
        }
        rename_into_place(temporary, path);
        return;
    }
    vtkNew<VersionOneWriter> writer;
    writer->SetInputData(grid);
    writer->SetFileName(temporary.c_str());
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();
    switch (compression) {
    case VtuCompression::lz4: writer->SetCompressorTypeToLZ4(); break;
    case VtuCompression::zlib: writer->SetCompressorTypeToZLib(); break;
    case VtuCompression::none: writer->SetCompressorTypeToNone(); break;
    }
    writer->SetHeaderTypeToUInt64();
    // 32-bit ids in the file unless an offset would not fit (make_grid stores the cells alike).
    if (ids_fit_32_bits(mesh))
        writer->SetIdTypeToInt32();
    else
        writer->SetIdTypeToInt64();
    vtkNew<vtkCallbackCommand> progress;
    if (on_progress) {
        progress->SetClientData(const_cast<std::function<void(double)>*>(&on_progress));
        progress->SetCallback([](vtkObject*, unsigned long, void* client, void* call) {
            (*static_cast<std::function<void(double)>*>(client))(*static_cast<double*>(call));
        });
        writer->AddObserver(vtkCommand::ProgressEvent, progress);
    }
    const int written = writer->Write();
    const unsigned long code = writer->GetErrorCode();
    if (written == 0 || code != vtkErrorCode::NoError) {
        fs::remove(temporary, error);
        throw std::runtime_error(vtk_write_error(path, code));
    }
    rename_into_place(temporary, path);
}

}  // namespace

void write_vtu(const std::filesystem::path& path, const Mesh& mesh, const std::vector<MeshField>& point_fields,
               const std::vector<MeshField>& cell_fields, VtuCompression compression,
               const std::function<void(double)>& on_progress, VtuLz4Prewrite* prewrite)
{
    if (!mesh_has_gll_nodes(mesh)) {
        write_vtu_as_given(path, mesh, point_fields, cell_fields, compression, on_progress, prewrite);
        return;
    }
    // VTK's Lagrange cells have equispaced nodes.
    if (prewrite) throw std::logic_error("write_vtu: a mesh with GLL nodes is prewritten as its equispaced copy");
    const EquispacedOutput out = equispaced_output(mesh, point_fields);
    write_vtu_as_given(path, out.mesh, out.point_fields, cell_fields, compression, on_progress, nullptr);
}

void write_vtu_equispaced(const std::filesystem::path& path, const Mesh& mesh,
                          const std::vector<MeshField>& point_fields, const std::vector<MeshField>& cell_fields,
                          VtuCompression compression, const std::function<void(double)>& on_progress,
                          VtuLz4Prewrite* prewrite)
{
    write_vtu_as_given(path, mesh, point_fields, cell_fields, compression, on_progress, prewrite);
}

}  // namespace gpufem
