#pragma once
// The files Gmsh reads for one mesh input: the input, the FILE.opt it merges after any file it
// opens, and the files a script names in Include "f";, Merge "f"; and ShapeFromFile("f"), in
// turn with theirs. The input guard checks every script among them, the mesh worker's sandbox
// lets Gmsh read exactly these, and the mesh cache's key covers their contents. Names are
// resolved as Gmsh resolves them: relative to the folder of the file that names them.
#include <string>
#include <vector>

namespace gpufem {

/// One file Gmsh reads, and how it reads it.
struct MeshInputFile {
    /// How Gmsh reads a file: a script (.geo, .opt and any file Merge does not read as data), a
    /// mesh (first line $MeshFormat) or CAD/STL data (its reader, by the extension).
    enum class Kind { script, mesh, shape_data };
    std::string path;    ///< as found: the input's path, or the folder of its referrer joined with the name
    Kind kind = Kind::script;
    std::string origin;      ///< for messages: "the mesh input", "'a.geo' line 3"
    std::string options_of;  ///< a FILE.opt: the FILE Gmsh merges it after; else ""
};

/// The most files one mesh input may read (a script naming more is refused).
inline constexpr std::size_t max_mesh_input_files = 256;

/// Every file Gmsh reads for the input at `path` (read as a script when `script`, else as a
/// mesh), the input first, each once. Throws MeshSourceError naming the file and line for a
/// name given other than as one quoted string, a file that is missing or not a regular file, a
/// file outside the input's folder (and its subfolders), or more than max_mesh_input_files.
std::vector<MeshInputFile> mesh_input_files(const std::string& path, bool script);

}  // namespace gpufem
