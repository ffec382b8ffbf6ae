#pragma once
// The key of a mesh in the mesh cache (mesh_cache.hpp): a SHA-256 over everything Gmsh's part
// of loading the mesh depends on. That is the cache's format version, gpufem's version (as
// configured), the Gmsh library's version, the mesh file's bytes, its sidecar FILE.opt's bytes
// and those of the files a .geo includes or merges (the sandboxed mesh worker reads exactly
// these: worker_inputs.hpp), every field of the MeshSpec that reaches Gmsh and can change its
// mesh, and the order of Gmsh's cells. Not the path (a cache file lies beside its mesh file),
// not the time limits (they stop a run, never change a mesh), and not the refinement and the
// degree, which gpufem applies to the cached mesh after loading it (finish_gmsh_mesh), except
// where they choose what Gmsh makes: on curved geometry without geometry_order, Gmsh's cells
// take degree_geometry_order (gmsh_cell_order.hpp), so such a mesh is keyed by that order, and
// with gmsh_nodes Gmsh itself refines and places every node.
// Whether the degree chooses the order is known only once Gmsh has seen the geometry; a spec
// therefore has two keys, and its mesh is stored under the one that applies (key_for) and
// looked for under both.
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
inline constexpr std::uint32_t mesh_cache_format_version = 7;

/// What identifies one mesh in the cache, and where its file goes.
struct MeshCacheKey {
    Sha256Digest digest{};  ///< SHA-256 of `material`
    std::string material;   ///< the key's inputs as text, one per line (the files as their SHA-256)
    std::filesystem::path file;  ///< FOLDER/.gpufem-cache/NAME.<16 hex of digest>.gpumesh
};

/// A spec's cache keys, or why the spec is not cached.
struct MeshCacheLookup {
    /// The key of a mesh whose cells' order the degree did not choose (straight-sided geometry,
    /// a first-order file, cells of several types, geometry_order given): one file for every
    /// degree and refinement.
    std::optional<MeshCacheKey> key;
    /// The key of a mesh made at the order the degree asks for (degree_geometry_order: curved
    /// geometry): one file per such order.
    std::optional<MeshCacheKey> degree_order_key;
    std::string not_cached;  ///< why there are no keys ("" when there are)

    /// The key a mesh Gmsh made for the spec goes under (GmshMesh::order_from_degree). Only
    /// while there are keys.
    const MeshCacheKey& key_for(bool order_from_degree) const { return order_from_degree ? *degree_order_key : *key; }
};

/// The cache keys of `spec` (mesh.cache on, a mesh file or .geo file that can be read and reads
/// nothing besides itself, its sidecar and the files it includes), or the reason it has none.
MeshCacheLookup mesh_cache_key(const MeshSpec& spec);

/// The Gmsh library the mesh worker runs, as the key names it: the file the dynamic loader
/// finds (libgmsh.so.<major>.<minor> of the headers, in LD_LIBRARY_PATH's folders, then the
/// system's), resolved, with its size and modification time, so that a Gmsh updated in place
/// changes the key, and found without loading it (a hit needs no Gmsh at all); where no such
/// file is found, the version of the library opened (gmsh_library.hpp).
std::string gmsh_library_identity();

}  // namespace gpufem
