#include "mesh/mesh_cache_key.hpp"

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "mesh/geo_lexer.hpp"
#include "mesh/gmsh_cell_order.hpp"
#include "mesh/gmsh_library.hpp"
#include "mesh/geo_references.hpp"
#include "mesh/gmsh_session.hpp"

// The gpufem version CMake configured (from git), for the key.
#ifndef GPUFEM_CONFIGURED_VERSION
#define GPUFEM_CONFIGURED_VERSION "unknown"
#endif

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// Names in a .geo script whose value comes from outside the script and its options file
/// (environment, date, machine, other files, ONELAB parameters): a script using one is not
/// cached. (Commands that read or run things are refused by the input guard and the sandbox.)
constexpr const char* outside_input_names[] = {
    "GetEnv", "Today", "Cpu", "Memory", "TotalMemory", "FileExists", "AbsolutePath", "DirName",
    "CurrentDirectory", "CurrentDir", "GmshExecutableName", "GetNumber", "GetString",
    "GetStringValue", "GetValue", "GetForced", "GetForcedStr", "OnelabAction"};

/// The SHA-256 of the file at `path`, read in large pieces (appended to `text` when given), or
/// nothing when it cannot be read.
std::optional<Sha256Digest> file_digest(const fs::path& path, std::string* text = nullptr)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    Sha256 sha;
    std::string piece(std::size_t{1} << 20, '\0');
    while (in) {
        in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        sha.update(piece.data(), got);
        if (text) text->append(piece.data(), got);
    }
    if (in.bad()) return std::nullopt;
    return sha.finish();
}

/// The first name of outside_input_names that the script `text` uses (outside comments and
/// strings, not as an option's name), or "". A script the lexer refuses is left to the input
/// guard, which reports it when the mesh is loaded.
std::string outside_input_used(const std::string& text)
{
    try {
        for (const GeoToken& token : lex_geo(text)) {
            if (token.kind != GeoToken::Kind::name || token.after_dot) continue;
            for (const char* name : outside_input_names)
                if (token.text == name) return name;
        }
    } catch (const GeoLexError&) {
    }
    return "";
}

/// The key line of the geometry's points for refinement (Mesh::cad_boundary), which the mesh
/// of curved cells of a refined .geo carries: their lattice depends on the refinements.
std::string curved_geometry_points(const MeshSpec& spec)
{
    const int refinements = geometry_point_refinements(spec);
    return refinements == 0 ? "" : "curved geometry's points for refinements " + std::to_string(refinements) + "\n";
}

/// The key's inputs as text, but for the order of Gmsh's cells: the format, gpufem's and Gmsh's
/// versions, the files' digests and the spec's fields that reach the mesh worker and can change
/// Gmsh's mesh.
std::string shared_key_material(const MeshSpec& spec, const std::vector<MeshInputFile>& files,
                                const std::vector<Sha256Digest>& digests)
{
    std::ostringstream text;
    text.precision(17);
    text << "gpufem mesh cache format " << mesh_cache_format_version << "\n"
         << "gpufem " << GPUFEM_CONFIGURED_VERSION << "\n"
         << "Gmsh " << gmsh_library_identity() << "\n"
         << "kind " << (spec.kind == MeshSpec::Kind::geo ? "geo" : "file") << "\n"
         << "mesh file sha256 " << hex_digest(digests.front()) << "\n";
    const fs::path folder = fs::path(spec.path).parent_path();
    for (std::size_t i = 1; i < files.size(); ++i)  // FILE.opt and included files, by their names
        text << "read file " << fs::path(files[i].path).lexically_relative(folder).string() << " sha256 "
             << hex_digest(digests[i]) << "\n";
    text << "shape " << spec.shape << "\n"
         << "elements " << spec.elements << "\n"
         << "size " << spec.size << "\n"
         << "geometry_order " << spec.geometry_order << "\n"
         << "gmsh_nodes " << spec.gmsh_nodes << "\n"
         << "file_order " << spec.file_order << "\n"
         << "gmsh_threads " << spec.gmsh_threads << "\n"
         << "allow_commands " << spec.allow_commands << "\n";
    if (spec.geometry_order >= 2) text << curved_geometry_points(spec);
    if (spec.gmsh_nodes)  // Gmsh refines and places every node
        text << "refine " << spec.refine << "\n"
             << "degree " << spec.degree << "\n";
    return text.str();
}

/// Where the cache file of `digest` goes: .gpufem-cache/NAME.<16 hex>.gpumesh beside the mesh
/// file NAME.EXT.
fs::path cache_file_path(const std::string& mesh_path, const Sha256Digest& digest)
{
    const fs::path mesh(mesh_path);
    return mesh.parent_path() / ".gpufem-cache" /
           (mesh.stem().string() + "." + hex_digest(digest, 8) + ".gpumesh");
}

/// The lookup of a spec that is not cached, and why.
MeshCacheLookup uncached(std::string reason) { return {std::nullopt, std::nullopt, std::move(reason)}; }

/// The key of `spec` whose inputs are `material`.
MeshCacheKey key_of(const MeshSpec& spec, std::string material)
{
    MeshCacheKey key;
    key.material = std::move(material);
    key.digest = sha256_of(key.material.data(), key.material.size());
    key.file = cache_file_path(spec.path, key.digest);
    return key;
}

/// The reason a script or options file `text` (named `what`) cannot be cached, or "".
std::string uncachable_script(const std::string& text, const std::string& what)
{
    const std::string name = outside_input_used(text);
    if (name.empty()) return "";
    return what + " uses " + name + ", whose value comes from outside the file and which no cache key covers";
}

}  // namespace

std::string gmsh_library_identity()
{
    const std::string name = gmsh_library::file_name();
    std::vector<fs::path> folders;
    if (const char* paths = std::getenv("LD_LIBRARY_PATH")) {
        std::istringstream list(paths);
        for (std::string folder; std::getline(list, folder, ':');)
            if (!folder.empty()) folders.emplace_back(folder);
    }
    for (const char* system : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
                               "/usr/lib", "/usr/local/lib"})
        folders.emplace_back(system);
    for (const fs::path& folder : folders) {
        std::error_code error;
        const fs::path file = fs::canonical(folder / name, error);
        if (error || !fs::is_regular_file(file, error)) continue;
        const auto size = fs::file_size(file, error);
        const auto modified = fs::last_write_time(file, error).time_since_epoch().count();
        if (error) continue;
        return name + " at " + file.string() + ", " + std::to_string(size) + " bytes, modified " +
               std::to_string(modified);
    }
    return gmsh_library::version("the mesh cache's key");
}

MeshCacheLookup mesh_cache_key(const MeshSpec& spec)
{
    if (spec.kind == MeshSpec::Kind::shape) return uncached("a built-in shape has no mesh file to keep a cache beside");
    if (!spec.cache) return uncached("mesh.cache: false");
    if (spec.allow_commands)
        return uncached("mesh.allow_commands: true lets the script read any file and run programs, which no cache key covers");
    std::vector<MeshInputFile> files;
    try {
        files = mesh_input_files(spec.path, spec.kind == MeshSpec::Kind::geo);
    } catch (const MeshSourceError& error) {
        return uncached(error.what());  // the input guard reports it when the mesh is loaded
    }
    std::vector<Sha256Digest> digests;
    for (const MeshInputFile& file : files) {
        std::string text;
        const bool script = file.kind == MeshInputFile::Kind::script;
        const auto digest = file_digest(file.path, script ? &text : nullptr);
        if (!digest) return uncached("'" + file.path + "' cannot be read");
        if (const std::string refusal = script ? uncachable_script(text, "'" + file.path + "'") : ""; !refusal.empty())
            return uncached(refusal);
        digests.push_back(*digest);
    }
    const std::string shared = shared_key_material(spec, files, digests);
    return {key_of(spec, shared + "cells' order: Gmsh's own, whatever the degree\n"),
            key_of(spec, shared + "cells' order: the degree's, " + std::to_string(degree_geometry_order(spec)) + "\n" +
                             curved_geometry_points(spec)),
            ""};
}

}  // namespace gpufem
