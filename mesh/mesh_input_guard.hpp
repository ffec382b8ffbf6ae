#pragma once
// Mesh input that cannot run code. Gmsh executes what it reads as a script unless it is a
// mesh: a "mesh file" without a $MeshFormat header is parsed as a .geo script, and .geo
// scripts can run shell commands (System, SystemCall, OnelabRun), write files (Save, Print),
// end the process (Exit, Abort) or pull in other files (Include, Merge). These checks run
// before Gmsh sees a file.
#include <string>

namespace gpufem {

/// Throws MeshSourceError unless the file at path starts with a Gmsh $MeshFormat header (the
/// first line, ASCII or binary .msh), so that Gmsh reads it as a mesh and never as a script.
void check_msh_header(const std::string& path);

/// The commands of a .geo script that gpufem refuses unless the case allows them.
inline constexpr const char* geo_refused_commands[] = {
    "System", "SystemCall", "NonBlockingSystemCall", "OnelabRun", "Save", "Print", "Exit",
    "Abort", "Include", "Merge", "Sleep", "CreateDir", "DeleteFile", "RenameFile"};

/// Throws MeshSourceError naming the file, the line and the command if the .geo script at
/// path uses any of geo_refused_commands outside comments and strings (the case can allow
/// them with mesh.allow_commands: true).
void check_geo_commands(const std::string& path);

}  // namespace gpufem
