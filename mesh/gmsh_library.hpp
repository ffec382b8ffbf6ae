#pragma once
// Internal to mesh/: the identity of the Gmsh library for the mesh cache's key, from the
// library opened at its first use (dlopen). gpufem does not link Gmsh: its libraries
// (OpenCASCADE, FLTK, image codecs: some sixty) cost 0.1-0.2 s of dynamic loading on an
// H200's host, and a run needs none of it (the reference nodes are a table read at build
// time, gmsh_reference_table.hpp; the bases are gpufem's own, lagrange_basis.hpp). Meshing
// with Gmsh happens in the mesh worker (mesh_worker.hpp), which links it.
#include <string>
#include <vector>

namespace gpufem::gmsh_library {

/// The library's file name, libgmsh.so.<major>.<minor> of the headers gpufem was built with.
std::string file_name();

/// The version of the Gmsh library (patch level included, where gmshc.h's GMSH_API_VERSION
/// names only its API's). Throws MeshSourceError starting with `context` when the library
/// cannot be opened.
std::string version(const std::string& context);

}  // namespace gpufem::gmsh_library
