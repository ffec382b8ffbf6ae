#pragma once
// The key of a mesh in the mesh cache (mesh_cache.hpp): a SHA-256 over everything Gmsh's part
// of loading the mesh depends on. That is the cache's format version, gpufem's version (as
// configured), the Gmsh library's version, the mesh file's bytes, its sidecar FILE.opt's bytes (Gmsh merges it after the file;
// the sandboxed mesh worker reads exactly these two files: worker_inputs.hpp) and every field
// of the MeshSpec that reaches the worker and can change the mesh. Not the path (a cache file
// lies beside its mesh file) and not the time limits (they stop a run, never change a mesh).
// A .geo script (or options file) that reads something else, such as an environment variable
// (GetEnv) or the date, and a case that allows commands (the script may then read any file or
// run programs) are not cached: no key could cover what they read.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "mesh/mesh_source.hpp"
#include "mesh/sha256.hpp"

namespace gpufem {

/// The version of the cache files' layout and of the key material; a change of either makes
/// every older cache file a miss.
inline constexpr std::uint32_t mesh_cache_format_version = 2;

/// What identifies one mesh in the cache, and where its file goes.
struct MeshCacheKey {
    Sha256Digest digest{};  ///< SHA-256 of `material`
    std::string material;   ///< the key's inputs as text, one per line (the files as their SHA-256)
    std::filesystem::path file;  ///< FOLDER/.gpufem-cache/NAME.<16 hex of digest>.gpumesh
};

/// A spec's cache key, or why the spec is not cached.
struct MeshCacheLookup {
    std::optional<MeshCacheKey> key;
    std::string not_cached;  ///< why there is no key ("" when there is one)
};

/// The cache key of `spec` (mesh.cache on, a mesh file or .geo file that can be read and reads
/// nothing besides itself and its sidecar), or the reason it has none.
MeshCacheLookup mesh_cache_key(const MeshSpec& spec);

/// The version of the Gmsh library this process runs (not the header's it was built against).
std::string gmsh_library_version();

}  // namespace gpufem
