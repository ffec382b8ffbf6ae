#pragma once
// The mesh cache: Gmsh's part of loading a mesh file or .geo file (what load_gmsh_mesh and the
// mesh worker return, before gpufem's refinement and degree-k nodes) kept in a binary file
// beside the mesh file, FOLDER/.gpufem-cache/NAME.<16 hex of the key>.gpumesh, and loaded from
// there while nothing it depends on changed (the key: mesh_cache_key.hpp). A rerun, or one with
// another degree, refinement, solver or format, then skips Gmsh, which takes minutes on large
// CAD parts; only where the degree chooses the order of Gmsh's cells (curved geometry) does a
// degree of another order mesh again.
//
// A cache file holds, in this order: the magic "GPUFEMMC", the format version (32 bits), the
// key's SHA-256 (32 bytes), the key material as text (its length, 64 bits, then the text),
// the payload's length (64 bits), the payload (the mesh as transfer_mesh lays it out:
// mesh_serialisation.hpp) and the payload's SHA-256. A file that fails any check (magic,
// version, key, length, checksum, then the mesh's own structure) is refused with a warning
// naming it and the reason, and the mesh is made again and stored. Files are written under a
// temporary name and renamed, so that a reader never sees half a file; a folder that cannot be
// written gives a warning and the run goes on without the cache.
#include <functional>
#include <stdexcept>
#include <string>

#include "mesh/gmsh_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_cache_key.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {

/// What the mesh cache did for one load.
struct MeshCacheStatus {
    enum class Outcome {
        off,         ///< not cached (reason)
        hit,         ///< loaded from the cache file
        stored,      ///< made by Gmsh and stored in the cache file
        not_stored,  ///< made by Gmsh; the cache file could not be written (reason)
    };
    Outcome outcome = Outcome::off;
    std::string file;     ///< the cache file ("" when off)
    std::string reason;   ///< off and not_stored: why
    std::string refused;  ///< why a cache file that was there was refused ("" when none was)

    /// For reports: "hit", "stored", "refused: WHY" (the mesh was made again), "not stored:
    /// WHY" or "off: WHY".
    std::string describe() const;
};

/// Raised when a cache file fails a check; the message says which.
class MeshCacheRefused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Gmsh's part of loading `spec` from its cache file when one is there and passes every check,
/// else from `make` (Gmsh, in the worker or in this process), then stored under the key that
/// applies to what `make` returned (MeshCacheLookup::key_for). Logs "mesh: from the cache FILE
/// (N cells, T s)" on a hit, "mesh: cached to FILE (T s)" after a store, and a warning with the
/// reason for a refused file or one that cannot be written. A hit's build_times are the reading
/// time (gpufem), no Gmsh time, and its source names `spec` (gmsh_mesh_source). `status`, when
/// given, gets what happened.
Mesh cached_gmsh_mesh(const MeshSpec& spec, const std::function<GmshMesh()>& make, MeshCacheStatus* status = nullptr);

/// Starts reading `spec`'s cache file, when there is one, on a thread of its own, so that the
/// file is read while the run starts (the device's context is made); the next cached_gmsh_mesh
/// of that file takes the mesh (waiting for the thread if it must; a refused file is made
/// again as without it). The hit's build_times are then the time waited for it. Returns
/// whether a cache file of `spec` is there (as mesh_cache_file_present).
bool read_mesh_cache_ahead(const MeshSpec& spec);

/// Whether `spec` is cached and a cache file of one of its keys exists (not checked: a refused
/// file is made again by the load), so that no mesh worker need be started ahead of the load.
bool mesh_cache_file_present(const MeshSpec& spec);

/// The mesh in the cache file of `key`. Throws MeshCacheRefused naming the check that failed
/// (and std::bad_alloc when memory runs out).
Mesh read_mesh_cache_file(const MeshCacheKey& key);

/// Writes `mesh` as the cache file of `key`, creating its folder: under a temporary name,
/// renamed when complete. Throws std::runtime_error saying why it could not.
void write_mesh_cache_file(const MeshCacheKey& key, const Mesh& mesh);

}  // namespace gpufem
