// Makes the program that links this object mesh through Gmsh in its own process when no mesh
// worker is set (set_in_process_gmsh): the tests, which call the mesh loaders directly. gpufem
// does not link it: it meshes in gpufem-mesh-worker.
#include "mesh/gmsh_mesh.hpp"
#include "mesh/mesh_worker.hpp"

namespace gpufem {
namespace {

/// load_gmsh_mesh_and_order with the default read options.
GmshMesh load_in_this_process(const MeshSpec& spec) { return load_gmsh_mesh_and_order(spec); }

/// Set when the program starts (a constant-initialised pointer behind a constant-initialised
/// lock: no order of initialisation to depend on).
const bool in_process_gmsh_set = (set_in_process_gmsh(load_in_this_process), true);

}  // namespace
}  // namespace gpufem
