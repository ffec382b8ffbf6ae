#pragma once
// A friendly first check of mesh input, before Gmsh sees a file. Gmsh executes what it reads
// as a script unless it is a mesh: a "mesh file" without a $MeshFormat header is parsed as a
// .geo script, Gmsh merges FILE.opt after FILE as a script, and .geo scripts can run shell
// commands (System, SystemCall, OnelabRun), write files (Save, Print, Printf > FILE), end the
// process (Exit, Abort) or read other files (Include, Merge, ListFromFile, ShapeFromFile).
// These checks name the file, the line and the command in a clear message; they are lexical
// (a script can build a name or a path at run time) and not the security boundary: that is
// the mesh worker's operating-system sandbox (worker_sandbox.hpp).
#include <string>

namespace gpufem {

/// Throws MeshSourceError unless the file at path starts with a Gmsh $MeshFormat header (the
/// first line, ASCII or binary .msh), so that Gmsh reads it as a mesh and never as a script.
void check_msh_header(const std::string& path);

/// The commands of a .geo script that gpufem refuses unless the case allows them
/// (StringToName makes a command name from a string).
inline constexpr const char* geo_refused_commands[] = {
    "System", "SystemCall", "NonBlockingSystemCall", "OnelabRun", "Save", "Print", "Exit",
    "Abort", "MergeWithBoundingBox", "ListFromFile",
    "SendToServer", "StringToName", "Sleep", "CreateDir", "DeleteFile", "RenameFile"};

/// Parts of option names (General.TmpFileName, Print.ParameterCommand, Solver.Executable0)
/// that name files or programs Gmsh writes, deletes or runs: such options are refused.
inline constexpr const char* geo_refused_option_parts[] = {"FileName", "Command", "Executable",
                                                           "Socket", "WatchFilePattern"};

/// Throws MeshSourceError naming the file, the line and the command if the .geo script at
/// path uses any of geo_refused_commands or geo_refused_option_parts outside comments and
/// strings, writes with Printf(...) > FILE, has a %n format, a string longer than Gmsh reads
/// or a NUL byte (the case can allow commands with mesh.allow_commands: true). Strings are
/// lexed as Gmsh lexes them: in double or single quotes, without escapes.
void check_geo_commands(const std::string& path);

/// Applies check_geo_commands to FILE.opt when that exists next to `path` (Gmsh merges it
/// after the file as a script), naming it as an options file.
void check_sidecar_options(const std::string& path);

/// Tests only: whether the environment variable GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD is set,
/// which skips these checks (in the mesh worker too), so that tests prove the worker's
/// sandbox holds on its own.
bool mesh_input_guard_bypassed();

}  // namespace gpufem
