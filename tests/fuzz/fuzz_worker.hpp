#pragma once
// The mesh worker of the fuzz targets that load meshes through Gmsh: gpufem-mesh-worker, the
// sanitized program built next to them, or $GPUFEM_MESH_WORKER.
#include <cstdlib>
#include <filesystem>

#include "mesh/mesh_worker.hpp"

namespace gpufem::fuzz {

/// Makes load_mesh_isolated start $GPUFEM_MESH_WORKER, else the gpufem-mesh-worker next to
/// this program.
inline void use_sibling_mesh_worker()
{
    const char* worker = std::getenv("GPUFEM_MESH_WORKER");
    set_mesh_worker(worker != nullptr
                        ? worker
                        : (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "gpufem-mesh-worker")
                              .string());
}

}  // namespace gpufem::fuzz
