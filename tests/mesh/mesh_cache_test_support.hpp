#pragma once
// Helpers shared by the mesh cache tests: a cached spec, a load through the cache that counts
// Gmsh's meshings, and comparisons of meshes.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/gmsh_mesh.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_serialisation.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem::test {

/// A cached spec of `kind` for the file at `path`, meshed on one thread.
inline MeshSpec cached_spec(const std::filesystem::path& path, MeshSpec::Kind kind = MeshSpec::Kind::geo)
{
    MeshSpec spec;
    spec.kind = kind;
    spec.path = path.string();
    spec.cache = true;
    spec.gmsh_threads = 1;
    return spec;
}

/// Loads Gmsh's part of `spec` through the cache, meshing in this process; counts the meshings.
struct CountingLoad {
    int meshings = 0;
    MeshCacheStatus status;

    Mesh operator()(const MeshSpec& spec)
    {
        return cached_gmsh_mesh(spec, [&] {
            ++meshings;
            return load_gmsh_mesh_and_order(spec);
        }, &status);
    }
};

/// Every byte transfer_mesh carries, apart from the build times.
inline std::string mesh_bytes(Mesh mesh)
{
    mesh.build_times = {};
    ByteSink sink;
    Sender sender{sink};
    transfer_mesh(sender, mesh);
    return sink.bytes;
}

/// Expects the same mesh, field by field for a readable failure, then byte by byte.
inline void expect_same_mesh(const Mesh& one, const Mesh& other)
{
    EXPECT_GT(one.num_cells(), 0);
    EXPECT_EQ(one.coordinates, other.coordinates);
    EXPECT_EQ(one.cells, other.cells);
    EXPECT_EQ(one.cell_group, other.cell_group);
    EXPECT_EQ(one.boundary_names(), other.boundary_names());
    EXPECT_EQ(one.source, other.source);
    EXPECT_TRUE(mesh_bytes(one) == mesh_bytes(other)) << "the meshes differ in some field";
}

/// The cache files in the cache folder beside `mesh_file` (the checks' records too).
inline std::vector<std::filesystem::path> cache_files(const std::filesystem::path& mesh_file)
{
    std::vector<std::filesystem::path> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(mesh_file.parent_path() / ".gpufem-cache", error))
        files.push_back(entry.path());
    return files;
}

}  // namespace gpufem::test
