// The mesh cache: Gmsh's part of a mesh from a .geo or .msh file stored beside it, loaded
// again while nothing it depends on changed (no Gmsh, no worker), made again on any change,
// and never trusted when its file fails a check.
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <gmshc.h>
#include <sys/stat.h>

#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_cache_key.hpp"
#include "mesh/mesh_serialisation.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_cache_test_support.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// A unit square at a coarse size, with a domain group and four boundary groups.
const std::string square_geo = R"(// a unit square
lc = 0.4;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Surface("domain") = {1};
Physical Curve("bottom") = {1}; Physical Curve("right") = {2}; Physical Curve("top") = {3};
Physical Curve("left") = {4};
)";

/// Two triangles on the unit square as an MSH 2.2 file.
const std::string square_msh = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
1 1 "boundary"
2 2 "domain"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
6
1 1 2 1 1 1 2
2 1 2 1 2 2 3
3 1 2 1 3 3 4
4 1 2 1 4 4 1
5 2 2 2 1 1 2 3
6 2 2 2 1 1 3 4
$EndElements
)";

using test::cache_files;
using test::cached_spec;
using test::CountingLoad;
using test::expect_same_mesh;

/// The cache file of `spec`.
fs::path cache_file_of(const MeshSpec& spec)
{
    const MeshCacheLookup lookup = mesh_cache_key(spec);
    EXPECT_TRUE(lookup.key) << lookup.not_cached;
    return lookup.key ? lookup.key->file : fs::path();
}

TEST(MeshCache, SecondLoadIsAHitWithTheSameMesh)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    CountingLoad load;
    const Mesh first = load(spec);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::stored) << load.status.describe();
    EXPECT_EQ(load.meshings, 1);
    const fs::path file = cache_file_of(spec);
    EXPECT_EQ(file.parent_path(), folder.path() / ".gpufem-cache");
    EXPECT_EQ(file.filename().string().rfind("square.", 0), 0u) << file;
    EXPECT_EQ(file.extension(), ".gpumesh");
    EXPECT_EQ(file.filename().string().size(), std::string("square.").size() + 16 + std::string(".gpumesh").size());
    EXPECT_TRUE(fs::exists(file));
    EXPECT_EQ(load.status.file, file.string());

    const Mesh second = load(spec);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::hit);
    EXPECT_EQ(load.status.describe(), "hit");
    EXPECT_EQ(load.meshings, 1) << "a hit does not mesh";
    EXPECT_EQ(second.build_times.gmsh, 0.0);
    expect_same_mesh(first, second);
    EXPECT_EQ(cache_files(spec.path).size(), 1u) << "no temporary file is left";
}

TEST(MeshCache, AHitStartsNoWorker)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    Mesh fresh;
    {
        const test::MeshWorkerForTest worker;
        MeshCacheStatus status;
        fresh = load_mesh_isolated(spec, nullptr, &status);
        EXPECT_EQ(status.describe(), "stored");
    }
    // A worker that leaves a mark and fails: a hit must neither prestart nor start it.
    const fs::path mark = folder / "worker_started";
    const fs::path script = folder.write("worker.sh", "#!/bin/sh\ntouch " + mark.string() + "\nexit 3\n");
    ::chmod(script.c_str(), 0755);
    set_mesh_worker(script.string());
    prestart_mesh_worker(spec);
    MeshCacheStatus status;
    const Mesh cached = load_mesh_isolated(spec, nullptr, &status);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // time for a started worker's mark
    set_mesh_worker("");
    EXPECT_EQ(status.describe(), "hit");
    EXPECT_FALSE(fs::exists(mark)) << "a worker was started";
    EXPECT_EQ(cached.cells, fresh.cells);
    EXPECT_EQ(cached.coordinates, fresh.coordinates);
}

/// Expects `changed` (after `change`, when given) to miss the cache that `spec` filled, and a
/// second load of it to hit.
void expect_miss(const MeshSpec& changed, const std::string& what)
{
    CountingLoad load;
    load(changed);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::stored) << what << ": " << load.status.describe();
    load(changed);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::hit) << what;
}

TEST(MeshCache, AnIncludedFileIsPartOfTheKey)
{
    test::TempFolder folder;
    folder.write("size.geo", "Mesh.MeshSizeMax = 0.3;\n");
    const fs::path geo = folder.write("main.geo", "Include \"size.geo\";\n" + square_geo);
    const MeshSpec spec = cached_spec(geo);
    CountingLoad first;
    first(spec);
    ASSERT_EQ(first.status.outcome, MeshCacheStatus::Outcome::stored) << first.status.describe();
    folder.write("size.geo", "Mesh.MeshSizeMax = 0.2;\n");
    expect_miss(spec, "the included file changed");
    folder.write("size.geo.opt", "Mesh.ElementOrder = 1;\n");
    expect_miss(spec, "an options file beside the included file added");
}

TEST(MeshCache, EveryChangeIsAMiss)
{
    test::TempFolder folder;
    const fs::path geo = folder.write("square.geo", square_geo);
    const MeshSpec spec = cached_spec(geo);
    CountingLoad first;
    first(spec);
    ASSERT_EQ(first.status.outcome, MeshCacheStatus::Outcome::stored);

    folder.write("square.geo", "// A unit square" + square_geo.substr(std::string("// a unit square").size()));
    expect_miss(spec, "one byte of the file");
    folder.write("square.geo.opt", "Mesh.MeshSizeMax = 0.3;\n");
    expect_miss(spec, "a sidecar options file added");
    folder.write("square.geo.opt", "Mesh.MeshSizeMax = 0.2;\n");
    expect_miss(spec, "the sidecar options file changed");
    const std::vector<std::pair<std::string, std::function<void(MeshSpec&)>>> options = {
        {"size", [](MeshSpec& s) { s.size = 0.3; }},
        {"size and degree", [](MeshSpec& s) { s.size = 0.35; s.degree = 2; }},
        {"geometry_order", [](MeshSpec& s) { s.geometry_order = 2; }},
        {"gmsh_nodes", [](MeshSpec& s) { s.gmsh_nodes = true; }},
        {"gmsh_threads", [](MeshSpec& s) { s.gmsh_threads = 2; }},
    };
    for (const auto& [name, change] : options) {
        MeshSpec changed = spec;
        change(changed);
        expect_miss(changed, name);
    }
}

TEST(MeshCache, AnotherGmshLibraryFileChangesTheKeyWithoutLoadingIt)
{
    // The key names the Gmsh library file the worker's loader finds (LD_LIBRARY_PATH first),
    // by its path, size and time: a Gmsh replaced in place makes every cached mesh miss.
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const Sha256Digest base = mesh_cache_key(spec).key->digest;
    const char* kept = std::getenv("LD_LIBRARY_PATH");
    const std::string kept_value = kept ? kept : "";
    fs::create_directories(folder / "lib");
    const fs::path library = folder.write("lib/libgmsh.so." + std::to_string(GMSH_API_VERSION_MAJOR) + "." +
                                              std::to_string(GMSH_API_VERSION_MINOR),
                                          "not a library: only its identity is read");
    ::setenv("LD_LIBRARY_PATH", (library.parent_path().string() + (kept ? ":" + kept_value : "")).c_str(), 1);
    const MeshCacheLookup other = mesh_cache_key(spec);
    const std::string identity = gmsh_library_identity();
    folder.write("lib/" + library.filename().string(), "a longer file: another Gmsh's library");
    const Sha256Digest changed = mesh_cache_key(spec).key->digest;
    if (kept) ::setenv("LD_LIBRARY_PATH", kept_value.c_str(), 1);
    else ::unsetenv("LD_LIBRARY_PATH");
    EXPECT_NE(identity.find(fs::canonical(library).string()), std::string::npos) << identity;
    EXPECT_NE(other.key->digest, base);
    EXPECT_NE(changed, other.key->digest);
    EXPECT_EQ(mesh_cache_key(spec).key->digest, base);
}

TEST(MeshCache, EveryFieldThatReachesGmshChangesTheKey)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const std::vector<std::pair<std::string, std::function<void(MeshSpec&)>>> fields = {
        {"kind", [](MeshSpec& s) { s.kind = MeshSpec::Kind::file; }},
        {"elements", [](MeshSpec& s) { s.elements = "quadrilateral"; }},
        {"shape", [](MeshSpec& s) { s.shape = "disk"; }},
        {"size", [](MeshSpec& s) { s.size = 0.25; }},
        {"geometry_order", [](MeshSpec& s) { s.geometry_order = 1; }},
        {"gmsh_nodes", [](MeshSpec& s) { s.gmsh_nodes = true; }},
        {"gmsh_threads", [](MeshSpec& s) { s.gmsh_threads = 0; }},
    };
    const Sha256Digest base = mesh_cache_key(spec).key->digest;
    for (const auto& [name, change] : fields) {
        MeshSpec changed = spec;
        change(changed);
        const MeshCacheLookup lookup = mesh_cache_key(changed);
        ASSERT_TRUE(lookup.key) << name;
        EXPECT_NE(lookup.key->digest, base) << name;
        EXPECT_NE(lookup.degree_order_key->digest, mesh_cache_key(spec).degree_order_key->digest) << name;
    }
    MeshSpec limits = spec;  // time limits stop a run; they never change a mesh
    limits.time_limit = 5;
    limits.script_time_limit = 2;
    EXPECT_EQ(mesh_cache_key(limits).key->digest, base);
    EXPECT_NE(mesh_cache_key(spec).key->material.find("Gmsh " + gmsh_library_identity()), std::string::npos);
}

/// Damages the cache file of `spec` with `damage`, then expects the next load to refuse it with
/// a reason containing `reason`, make the mesh again (equal to `fresh`) and store it anew.
void expect_refused(const MeshSpec& spec, const Mesh& fresh, const std::function<void(const fs::path&)>& damage,
                    const std::string& reason)
{
    damage(cache_file_of(spec));
    CountingLoad load;
    const Mesh again = load(spec);
    EXPECT_EQ(load.meshings, 1) << reason;
    EXPECT_NE(load.status.refused.find(reason), std::string::npos) << load.status.refused;
    EXPECT_EQ(load.status.describe().rfind("refused: ", 0), 0u) << load.status.describe();
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::stored);
    expect_same_mesh(again, fresh);
    load(spec);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::hit) << "rebuilt after: " << reason;
}

/// Overwrites the bytes at `offset` of `file` with `bytes`.
void overwrite(const fs::path& file, std::size_t offset, const std::string& bytes)
{
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(offset));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Flips the bits of the byte at `offset` of `file` (from the end when negative).
void flip_byte(const fs::path& file, long long offset)
{
    const auto size = static_cast<long long>(fs::file_size(file));
    const auto at = static_cast<std::size_t>(offset < 0 ? size + offset : offset);
    std::string byte(1, '\0');
    {
        std::ifstream in(file, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(at));
        in.read(byte.data(), 1);
    }
    byte[0] = static_cast<char>(~byte[0]);
    overwrite(file, at, byte);
}

TEST(MeshCache, DamagedFilesAreRefusedAndRebuilt)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const Mesh fresh = load_gmsh_mesh(spec);
    CountingLoad first;
    first(spec);
    expect_refused(spec, fresh, [](const fs::path& f) { flip_byte(f, -200); }, "checksum");
    expect_refused(spec, fresh, [](const fs::path& f) { flip_byte(f, -1); }, "checksum");
    expect_refused(spec, fresh, [](const fs::path& f) { fs::resize_file(f, fs::file_size(f) - 100); },
                   "payload length");
    expect_refused(spec, fresh, [](const fs::path& f) { fs::resize_file(f, 20); }, "ends inside its header");
    expect_refused(spec, fresh, [](const fs::path& f) { overwrite(f, 0, "NOTAMESH"); }, "GPUFEMMC");
    expect_refused(spec, fresh, [](const fs::path& f) { overwrite(f, 8, std::string("\x63\0\0\0", 4)); },
                   "format version is 99");
    expect_refused(spec, fresh, [](const fs::path& f) { flip_byte(f, 12); }, "another key");
}

TEST(MeshCache, AFileReadAheadIsTakenByTheLoadAndADamagedOneIsRebuilt)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    CountingLoad load;
    const Mesh first = load(spec);
    // Read while the run starts, then taken: a hit without meshing, the same mesh.
    read_mesh_cache_ahead(spec);
    const Mesh ahead = load(spec);
    EXPECT_EQ(load.status.describe(), "hit");
    EXPECT_EQ(load.meshings, 1);
    expect_same_mesh(first, ahead);
    EXPECT_GE(ahead.build_times.gpufem, 0.0);
    // A damaged file read ahead is refused as one read by the load: meshed again and stored.
    flip_byte(cache_file_of(spec), -200);
    read_mesh_cache_ahead(spec);
    const Mesh rebuilt = load(spec);
    EXPECT_EQ(load.meshings, 2);
    EXPECT_NE(load.status.describe().find("refused"), std::string::npos) << load.status.describe();
    expect_same_mesh(first, rebuilt);
    const Mesh again = load(spec);
    EXPECT_EQ(load.status.describe(), "hit");
    EXPECT_EQ(load.meshings, 2);
    // A read ahead of another case's file is not taken by this load (it reads its own).
    const MeshSpec other = cached_spec(folder.write("other.geo", square_geo + "// another file\n"));
    load(other);
    read_mesh_cache_ahead(other);
    EXPECT_EQ(load(spec).num_cells(), first.num_cells());
    EXPECT_EQ(load.status.describe(), "hit");
    load(other);  // takes its read ahead
    EXPECT_EQ(load.status.describe(), "hit");
}

TEST(MeshCache, AFileOfSeveralChecksumPiecesRoundTripsAndADamagedPieceIsRefused)
{
    // The checksum digests the payload in pieces of 4 MiB: a mesh of about 20 MB spans five,
    // and a flipped byte in any of them (first, middle, last) is found.
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const MeshCacheKey key = *mesh_cache_key(spec).key;
    const Mesh large = test::load_shape_mesh("unit_square", "triangle", 1.0 / 700);
    write_mesh_cache_file(key, large);
    ASSERT_GT(fs::file_size(key.file), std::uintmax_t{16} << 20);
    expect_same_mesh(read_mesh_cache_file(key), large);
    for (const double where : {0.01, 0.5, 0.99}) {
        write_mesh_cache_file(key, large);
        flip_byte(key.file, static_cast<long long>(where * static_cast<double>(fs::file_size(key.file))));
        try {
            read_mesh_cache_file(key);
            ADD_FAILURE() << "a byte flipped at " << where << " of the file was not found";
        } catch (const MeshCacheRefused& refused) {
            EXPECT_NE(std::string(refused.what()).find("checksum"), std::string::npos) << refused.what();
        }
    }
}

TEST(MeshCache, AFileWrittenForAnotherKeyIsRefused)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const Mesh fresh = load_gmsh_mesh(spec);
    expect_refused(spec, fresh, [&](const fs::path& file) {
        MeshSpec other = spec;
        other.size = 0.3;
        MeshCacheKey key = *mesh_cache_key(other).key;
        key.file = file;  // the other key's mesh under this key's name
        write_mesh_cache_file(key, load_gmsh_mesh(other));
    }, "another key");
}

TEST(MeshCache, AnInconsistentMeshWithAValidChecksumIsRefused)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    const Mesh fresh = load_gmsh_mesh(spec);
    const MeshCacheKey key = *mesh_cache_key(spec).key;
    const std::vector<std::pair<std::string, std::function<void(Mesh&)>>> damages = {
        {"node index out of range", [](Mesh& m) { m.cells[3] = m.num_nodes(); }},
        {"cell groups for", [](Mesh& m) { m.cell_group.pop_back(); }},
        {"not finite", [](Mesh& m) { m.coordinates[4] = std::nan(""); }},
        {"boundary group", [](Mesh& m) { m.boundaries.front().connectivity.front() = -5; }},
        {"nodes per cell", [](Mesh& m) { m.nodes_per_cell = 4; }},
        {"dimension", [](Mesh& m) { m.dim = 7; }},
    };
    for (const auto& [reason, damage] : damages) {
        expect_refused(spec, fresh, [&](const fs::path&) {
            Mesh bad = fresh;
            damage(bad);
            write_mesh_cache_file(key, bad);
        }, reason);
    }
}

TEST(MeshCache, AnUnwritableFolderGivesAWarningAndTheMesh)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    folder.write(".gpufem-cache", "a file where the cache folder would go\n");
    CountingLoad load;
    const Mesh mesh = load(spec);
    EXPECT_GT(mesh.num_cells(), 0);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::not_stored);
    EXPECT_NE(load.status.reason.find(".gpufem-cache"), std::string::npos) << load.status.reason;
    EXPECT_EQ(load.status.describe().rfind("not stored: ", 0), 0u);
    load(spec);
    EXPECT_EQ(load.meshings, 2) << "nothing was cached";
}

TEST(MeshCache, OffMeansNeitherReadNorWritten)
{
    test::TempFolder folder;
    MeshSpec spec = cached_spec(folder.write("square.geo", square_geo));
    spec.cache = false;
    CountingLoad load;
    load(spec);
    EXPECT_EQ(load.status.describe(), "off: mesh.cache: false");
    EXPECT_FALSE(fs::exists(folder / ".gpufem-cache"));
    spec.cache = true;
    load(spec);  // stored
    spec.cache = false;
    load(spec);
    EXPECT_EQ(load.meshings, 3) << "a cache file is not read when the cache is off";
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::off);
}

TEST(MeshCache, ScriptsThatReadOutsideTheirFilesAreNotCached)
{
    test::TempFolder folder;
    const MeshSpec env = cached_spec(folder.write("env.geo", "lc = GetEnv(\"SIZE\");\n" + square_geo));
    EXPECT_NE(mesh_cache_key(env).not_cached.find("GetEnv"), std::string::npos) << mesh_cache_key(env).not_cached;
    const MeshSpec quoted = cached_spec(folder.write("quoted.geo", "// GetEnv in a comment\n" + square_geo));
    EXPECT_TRUE(mesh_cache_key(quoted).key) << mesh_cache_key(quoted).not_cached;
    MeshSpec commands = cached_spec(folder / "quoted.geo");
    commands.allow_commands = true;
    EXPECT_NE(mesh_cache_key(commands).not_cached.find("allow_commands"), std::string::npos);
    folder.write("quoted.geo.opt", "General.Verbosity = Today;\n");
    EXPECT_NE(mesh_cache_key(quoted).not_cached.find("Today"), std::string::npos);
}

TEST(MeshCache, MshFilesAreCachedToo)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.msh", square_msh), MeshSpec::Kind::file);
    CountingLoad load;
    const Mesh first = load(spec);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::stored) << load.status.describe();
    EXPECT_EQ(first.num_cells(), 2);
    const Mesh second = load(spec);
    EXPECT_EQ(load.status.outcome, MeshCacheStatus::Outcome::hit);
    EXPECT_EQ(load.meshings, 1);
    expect_same_mesh(first, second);
    EXPECT_EQ(cache_file_of(spec).filename().string().rfind("square.", 0), 0u);
}

TEST(MeshCache, BuiltInShapesAreNotCached)
{
    MeshSpec spec;
    spec.shape = "disk";
    spec.cache = true;
    EXPECT_FALSE(mesh_cache_key(spec).key);
    MeshCacheStatus status;
    load_mesh_isolated(test::shape_spec("unit_square", "triangle", 0.5), nullptr, &status);
    EXPECT_EQ(status.outcome, MeshCacheStatus::Outcome::off);
}

}  // namespace
}  // namespace gpufem
