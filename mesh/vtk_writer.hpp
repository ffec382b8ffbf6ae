#pragma once
// Writing meshes with point and cell fields as VTK XML unstructured grids (.vtu), via VTK.
#include <array>
#include <filesystem>
#include <memory>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "linalg/named_enum.hpp"
#include "linalg/host_vector.hpp"
#include "mesh/mesh.hpp"

#include "mesh/vtu_lz4_writer.hpp"

namespace gpufem {

/// A named field with one value per node (point data) or per cell (cell data), held in double
/// (values) or, for a field made in float to be written as Float32, in float (narrow).
struct MeshField {
    std::string name;
    /// The values; empty when the field is held in float.
    HostVector<double> values;
    /// The values of a field held in float: a derived field whose accuracy float holds (the
    /// fluxes) converted where it was computed, so that it crosses from the device and sits
    /// on the host at half the bytes; empty otherwise.
    HostVector<float> narrow;
    /// Written to the file as Float32 (always, for a field held in float): a derived field
    /// whose accuracy float holds, at half the bytes.
    bool float32 = false;

    MeshField(std::string field_name, HostVector<double> field_values)
        : name(std::move(field_name)), values(std::move(field_values))
    {
    }
    /// A field held in float (written as Float32).
    MeshField(std::string field_name, HostVector<float> field_values)
        : name(std::move(field_name)), narrow(std::move(field_values)), float32(true)
    {
    }
    /// The values copied.
    MeshField(std::string field_name, const std::vector<double>& field_values)
        : name(std::move(field_name)), values(field_values.begin(), field_values.end())
    {
    }
    MeshField(std::string field_name, std::initializer_list<double> field_values)
        : name(std::move(field_name)), values(field_values)
    {
    }
    /// Whether the values are held in float (narrow).
    bool held_in_float() const { return !narrow.empty(); }
    /// The number of values.
    std::size_t size() const { return held_in_float() ? narrow.size() : values.size(); }
    /// The values in double: a copy of values, or narrow widened.
    HostVector<double> widened() const
    {
        if (!held_in_float()) return values;
        return HostVector<double>(narrow.begin(), narrow.end());
    }
};

/// How the arrays of a .vtu file are compressed (every mode is read by VTK and ParaView).
enum class VtuCompression {
    lz4,   ///< fast (VTK's LZ4 compressor), somewhat larger files than zlib
    zlib,  ///< smaller files, several times slower to write
    none,  ///< raw binary: the fastest to write, the largest files
};
/// Their names, as in the case file (output.compression).
inline constexpr std::array<EnumName<VtuCompression>, 3> vtu_compression_names{
    {{VtuCompression::lz4, "lz4"}, {VtuCompression::zlib, "zlib"}, {VtuCompression::none, "none"}}};

/// The temporary file write_vtu writes before renaming it to path.
std::filesystem::path vtu_temporary_path(const std::filesystem::path& path);

/// Writes mesh + fields to a .vtu file (binary appended, compressed as asked). First-order
/// meshes are written as linear VTK cells; meshes of order 2..8 as VTK Lagrange cells
/// (VTK_LAGRANGE_TRIANGLE, _QUADRILATERAL, _TETRAHEDRON, _HEXAHEDRON) with the nodes of each
/// cell permuted from Gmsh's order to VTK's, so ParaView shows the high-order field; cells
/// with GLL nodes (degree 5..8) through equispaced_output (mesh/gll_output.hpp), without a
/// prewrite. The cell data
/// 'group' (Int32, each cell's physical tag) is always written. Field sizes are checked
/// (num_nodes / num_cells values). The file is written under a temporary name in the same
/// folder and renamed, so a failure leaves no partial file.
/// Fields marked float32 are written as Float32 (converted block by block as they are
/// compressed with LZ4; through a converted copy for zlib and none), the others as Float64.
/// The fields' and the coordinates' arrays are handed to VTK without copies. on_progress, if
/// given, is called with the fraction written (VTK's progress events) on the calling thread.
/// With prewrite (from start_vtu_prewrite for the same path and mesh, LZ4 only) the mesh's
/// arrays are already written: only the fields and the head are left.
void write_vtu(const std::filesystem::path& path, const Mesh& mesh,
               const std::vector<MeshField>& point_fields,
               const std::vector<MeshField>& cell_fields,
               VtuCompression compression = VtuCompression::lz4,
               const std::function<void(double)>& on_progress = {},
               VtuLz4Prewrite* prewrite = nullptr);

/// write_vtu of a mesh whose nodes already sit at VTK's equispaced Lagrange places, its point
/// fields given there (equispaced_output of a mesh with GLL nodes, mesh/gll_output.hpp): no
/// conversion. The prewrite, if any, was started for this mesh.
void write_vtu_equispaced(const std::filesystem::path& path, const Mesh& mesh,
                          const std::vector<MeshField>& point_fields, const std::vector<MeshField>& cell_fields,
                          VtuCompression compression, const std::function<void(double)>& on_progress,
                          VtuLz4Prewrite* prewrite);

/// Starts writing the mesh's part of the LZ4 .vtu that write_vtu(path, mesh, ...) will finish,
/// on a background thread compressing with `threads` host threads (the host is idle while the
/// device solves); the VTK grid is made on that thread too. The mesh must not change, and must
/// live, until then. Nothing is left behind if the prewrite is destroyed unfinished.
std::unique_ptr<VtuLz4Prewrite> start_vtu_prewrite(const std::filesystem::path& path, const Mesh& mesh,
                                                   int threads);

/// Starts writing one point field of the mesh into the prewrite's file (on its thread) before
/// the other fields exist: write_vtu, given the same field among its own, writes only the rest.
/// The field's values must live, unchanged, until write_vtu finishes.
void write_vtu_field_early(VtuLz4Prewrite& prewrite, const Mesh& mesh, const MeshField& field);

/// The same for cell fields (the cells' flux, while the device computes the point fields):
/// write_vtu, given them among its own, writes only the rest. Their values must live,
/// unchanged, until write_vtu finishes.
void write_vtu_cell_fields_early(VtuLz4Prewrite& prewrite, const Mesh& mesh, std::span<const MeshField> fields);

/// The same with the mesh made on the prewrite's thread too: make_mesh runs there first and
/// returns the mesh to write, which must then live, unchanged, until write_vtu finishes.
std::unique_ptr<VtuLz4Prewrite> start_vtu_prewrite(const std::filesystem::path& path,
                                                   std::function<const Mesh&()> make_mesh, int threads);

}  // namespace gpufem
