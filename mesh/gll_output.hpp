#pragma once
// Writing cells with GLL nodes: VTK's Lagrange cells have equispaced nodes, so a mesh of
// degree 5 to 8 on boxes is written as the same cells with each node moved to its equispaced
// place (through the cell's own map) and every point field interpolated there by the cell's
// GLL basis. The numbering, the cells and the cell fields are unchanged.
#include <string>
#include <vector>

#include "linalg/array.hpp"
#include "mesh/equispaced_kernels.hpp"
#include "mesh/mesh.hpp"
#include "mesh/vtk_writer.hpp"

namespace gpufem {

/// Whether the mesh's cells have GLL nodes (one cell type with has_gll_nodes).
bool mesh_has_gll_nodes(const Mesh& mesh);

/// The mesh and point fields as VTK's Lagrange cells hold them: a copy of the mesh
/// (equispaced_mesh, on the host) whose nodes sit at the equispaced points of their cells, and
/// each field's values at those points (exact for polynomials of the degree; a node shared by
/// several cells takes its first cell's value, the same to rounding). Built on the host's
/// threads.
struct EquispacedOutput {
    Mesh mesh;
    std::vector<MeshField> point_fields;
};

/// The conversion of point values of a mesh with GLL nodes to the equispaced points, on an
/// executor: made once (the 1D matrix, each node's first cell, the cells on the executor: the
/// mesh's device copy where it is there), then applied to any number of fields held there.
/// It reads the mesh's cells where they are (MeshOnExec): the mesh must outlive it.
class EquispacedConversion {
public:
    /// For mesh (with GLL nodes; throws std::invalid_argument otherwise) on exec.
    EquispacedConversion(const ExecPtr& exec, const Mesh& mesh);
    /// out[n stride + s] = component s < components of in at node n's equispaced point (arrays
    /// of stride values per node on the executor; a node no cell holds keeps its value). in and
    /// out must not overlap (a shared node's value is read by its other cells after its first
    /// cell wrote it).
    template <typename T>
    void apply(const T* in, T* out, int stride = 1, int components = 1) const;
    /// The field's values at the equispaced points, on the executor.
    template <typename T>
    Array<T> converted(const Array<T>& in) const;

private:
    ExecPtr exec_;
    MeshOnExec cells_;
    Array<double> line_;
    Array<int> lexicographic_;
    Array<index_type> owner_;
    EquispacedArgs args_;
};

/// EquispacedOutput of a mesh with GLL nodes (throws std::invalid_argument for another mesh).
EquispacedOutput equispaced_output(const Mesh& mesh, const std::vector<MeshField>& point_fields);

/// The mesh (with GLL nodes) as VTK's Lagrange cells hold it: its cells, cell groups and
/// physical groups copied by the host's threads, each node at its equispaced place (the
/// mesh's own coordinates are read, never copied), without the device copy and what
/// refinement reads. The nodes are moved on exec: a CUDA executor (best one of its own, whose
/// stream runs beside the run's) converts the mesh's device copy and downloads the result,
/// unless the device lacks the memory, then the host does. Throws std::invalid_argument for a
/// mesh without GLL nodes.
Mesh equispaced_mesh(const Mesh& mesh, const ExecPtr& exec);

/// equispaced_output's point fields alone (the mesh's nodes are not moved), but those named in
/// skip: for a file whose equispaced mesh was written already (start_vtu_prewrite).
std::vector<MeshField> equispaced_point_fields(const Mesh& mesh, const std::vector<MeshField>& point_fields,
                                               const std::vector<std::string>& skip = {});

}  // namespace gpufem
