#pragma once
// Building or reading a mesh: the specs and sizes, gpufem's generated shapes, and the part
// after Gmsh (refinement and numbering). The functions that run Gmsh in the calling process
// (load_gmsh_mesh, load_mesh) live in the gpufem_gmsh library, which the mesh worker and the
// tests link; gpufem itself meshes through the worker (mesh_worker.hpp) and never loads
// Gmsh's meshing libraries.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "linalg/executor.hpp"
#include "mesh/cell_fields.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Where a mesh comes from: a .msh file, a .geo file meshed by Gmsh, or a built-in shape.
struct MeshSpec {
    enum class Kind { file, geo, shape };
    Kind kind = Kind::shape;
    std::string path;       ///< .msh or .geo path (file / geo)
    std::string shape;      ///< unit_square | unit_cube | l_shape | disk (shape)
    std::string elements;   ///< shape only: triangle | quadrilateral | tetrahedron | hexahedron
                            ///< ("" = the shape's default: quadrilateral for unit_square and
                            ///< l_shape, hexahedron for unit_cube, triangle for disk)
    double size = 0.0;      ///< target element size h (geo and shape; 0 = default 0.1 / the
                            ///< .geo file's own sizes; for a .geo, the largest size allowed)
    int refine = 0;         ///< uniform refinements after meshing or reading (each halves h)
    bool allow_commands = false;  ///< geo only: let the script use System, Save, Exit, ...
                                  ///< (see mesh_input_guard.hpp); refused by default
    double time_limit = 1800;  ///< seconds Gmsh may take to read or mesh it (in the mesh
                               ///< worker: it is ended after that, and the run fails)
    double script_time_limit = 60;  ///< geo only: seconds Gmsh may take to evaluate the script
                                    ///< (before meshing; a loop ends there), within time_limit
    /// Threads of Gmsh's meshing (HXT's volumes): 1 makes the same mesh every run; more (0:
    /// the host's) are faster on large volumes but HXT's mesh then varies from run to run. 1
    /// here, for callers without the cache; a case's mesh.gmsh_threads defaults to 0, its
    /// cache keeping reruns identical.
    int gmsh_threads = 1;
    /// files and .geo files: keep Gmsh's part of the mesh in a cache file beside the mesh file
    /// and load it from there while nothing it depends on changed (mesh_cache.hpp). Off here;
    /// a case's mesh.cache defaults to true.
    bool cache = false;
    /// Files and .geo files: a cell whose quality (mesh_quality.hpp) is below min_quality is
    /// refused before assembly; those below warn_quality are counted in a warning.
    double min_quality = 1e-8;
    double warn_quality = 1e-3;  ///< see min_quality
    int degree = 1;          ///< element order 1..4 (the nodes are the unknowns): numbered by
                             ///< gpufem from the mesh's topology and placed by each cell's
                             ///< geometric map (mesh_refinement.hpp)
    int geometry_order = 0;  ///< order of the cells Gmsh makes, whose maps place every later
                             ///< node (1..4; 0 = the default: 1 for first-order .msh files and
                             ///< for geometries of lines and planes only; otherwise `degree`,
                             ///< at least 2 when refined: nodes on the curves and surfaces, or
                             ///< a high-order file's own)
    bool file_order = false; ///< a mesh file's cells of one type at the file's own order,
                             ///< whatever `degree` asks (gpufem mesh-info: the file as it is)
    /// Files and .geo files: the per-cell fields the case uses (a mesh file's $ElementData, a
    /// .vtu's cell arrays), resolved and checked before refinement (resolve_cell_fields); the
    /// mesh keeps these alone.
    std::vector<CellFieldRequest> cell_fields;
    /// .geo files and shapes meshed by Gmsh, refined: the nodes refinement makes on the
    /// boundary go onto the model's curved surfaces and curves (mesh/cad_boundary.hpp), not
    /// onto the coarse cells' maps.
    bool snap_to_geometry = true;
    bool gmsh_nodes = false; ///< tests only: refinement and high-order nodes by Gmsh, numbered as
                             ///< Gmsh numbers them (the reference gpufem's own are tested against)
};

/// The sizes of a mesh that memory depends on (a mesh gpufem would generate, or one loaded).
struct MeshCounts {
    int dim = 0;
    ElementType cell_type = ElementType::triangle;
    int degree = 1;
    double nodes = 0;           ///< nodes of order `degree` (the unknowns of finite elements)
    double cells = 0;
    int nodes_per_cell = 0;
    double facet_entries = 0;   ///< node indices of all boundary groups' facets together
    std::string shape;          ///< the generated shape ("" for a mesh from Gmsh)
    long long boxes_per_unit = 0;  ///< n of a generated shape's grid (0 for a mesh from Gmsh)
    bool on_device = false;     ///< also written on the CUDA executor (generated shapes)
    bool mixed = false;         ///< cells of several types (Mesh::cell_types; cell_type the widest)
    int faces_per_cell = 0;     ///< the most faces (2D: edges) of a cell; 0 when not known
    bool refined = false;       ///< refined by gpufem from first-order cells (Mesh::refined_from)
};

/// The spec of a mesh named only by its path: a `.geo` script, meshed with its own sizes, or
/// else a mesh file at its own order; degree 1, no refinement, Gmsh's commands refused.
MeshSpec mesh_spec_for_path(const std::string& path);

/// The counts of the mesh load_mesh would generate for spec, computed without building it;
/// nothing for meshes that come through Gmsh (their size is known once Gmsh made them).
/// Throws MeshSourceError as load_mesh does when the mesh would not fit.
std::optional<MeshCounts> predicted_mesh_counts(const MeshSpec& spec);

/// The byte counts of the large host arrays load_mesh makes for spec's generated mesh (its
/// coordinates, cells and cells' tags), for prepare_large_host_blocks (linalg/host_vector.hpp);
/// empty for a mesh from Gmsh or a spec that load_mesh would refuse (it says why then).
std::vector<std::size_t> generated_mesh_host_bytes(const MeshSpec& spec);

/// The counts of a mesh.
MeshCounts mesh_counts(const Mesh& mesh);

/// How load_gmsh_mesh has Gmsh read a mesh input (the sandboxed mesh worker's files: see
/// worker_inputs.hpp); by default Gmsh opens spec.path itself.
struct GmshReadOptions {
    std::string open_path;     ///< the path Gmsh opens in place of spec.path ("" = spec.path)
    std::function<void()> script_read;  ///< geo: called once Gmsh has evaluated the script
};

/// The part of load_mesh that goes through Gmsh (what the mesh worker runs; gpufem_gmsh): the mesh read or
/// made by Gmsh, unrefined, its cells of the geometric order, numbered as Gmsh numbers them
/// (all of load_mesh's work when spec.gmsh_nodes is set), the input read as `read` says.
/// Throws as load_mesh.
Mesh load_gmsh_mesh(const MeshSpec& spec, const GmshReadOptions& read = {});

/// The rest of load_mesh for a mesh from load_gmsh_mesh: `spec.refine` uniform refinements and
/// the nodes of `spec.degree`, numbered by gpufem, on `exec` (the CPU when null), after a size
/// guard (MeshSourceError naming the largest refinement that fits). The time goes to
/// build_times.refinement. spec.cell_fields are resolved first (MeshSourceError naming the
/// key, file and field).
Mesh finish_gmsh_mesh(Mesh coarse, const MeshSpec& spec, const ExecPtr& exec);

/// Throws MeshSourceError naming the mesh and the shape unless every cell type of the mesh
/// takes `degree` (max_lagrange_degree).
void check_degree_for_cells(const Mesh& mesh, int degree);

/// A shape gpufem generates (is_generated_shape), on `device` when that is a CUDA executor
/// (Mesh::device). Throws MeshSourceError as load_mesh; std::logic_error for a shape Gmsh meshes.
Mesh load_generated_mesh(const MeshSpec& spec, const ExecPtr& device = nullptr);

/// Reads or generates the mesh in this process (gpufem_gmsh). Throws std::runtime_error naming the file, shape or group
/// on any problem (missing file, Gmsh error, no cells, mixed cell types, ...). A shape gpufem
/// generates is also written on `device` when that is a CUDA executor (Mesh::device).
Mesh load_mesh(const MeshSpec& spec, const ExecPtr& device = nullptr);

/// Whether loading this mesh goes through Gmsh (files, .geo files and the disk; not the shapes
/// gpufem generates). Throws MeshSourceError for an unknown shape name.
bool mesh_needs_gmsh(const MeshSpec& spec);

/// The refinements the mesh worker makes the curved geometry's points for (Mesh::cad_boundary):
/// spec.refine for a refined .geo or Gmsh shape with snap_to_geometry (not a mesh file, not
/// gmsh_nodes), else 0.
int geometry_point_refinements(const MeshSpec& spec);

/// Names of the built-in shapes and the boundary groups each defines, for help texts.
std::string describe_shapes();

}  // namespace gpufem
