#pragma once
// Internal to mesh/: Gmsh's Lagrange bases in the calling process, from the Gmsh library
// opened at its first use (dlopen of its C API). gpufem does not link Gmsh: its libraries
// (OpenCASCADE, FLTK, image codecs: some sixty) cost 0.1-0.17 s of dynamic loading on an
// H200's host, where a run needs at most the pyramids' bases (the reference nodes are a table
// read at build time, gmsh_reference_table.hpp; the other shapes' bases are gpufem's own,
// low_order_bases.hpp and simplex_vandermonde.hpp). Meshing with Gmsh happens in the
// mesh worker (mesh_worker.hpp), which links it. (Opening it on a thread while the CUDA
// context is made was measured slower: both take the dynamic loader's lock.)
#include <string>
#include <vector>

namespace gpufem::gmsh_library {

/// The library's file name, libgmsh.so.<major>.<minor> of the headers gpufem was built with.
std::string file_name();

/// The version of the Gmsh library (patch level included, where gmshc.h's GMSH_API_VERSION
/// names only its API's). Throws MeshSourceError starting with `context` when the library
/// cannot be opened.
std::string version(const std::string& context);

/// Gmsh's basis functions of `space` ("Lagrange": one value per function and point;
/// "GradLagrange": three per function and point) of an MSH element type at points given as 3
/// reference coordinates each, point by point. Throws MeshSourceError starting with `context`
/// when Gmsh refuses, or returns other than `expected` values.
std::vector<double> basis_functions(int gmsh_type, const std::vector<double>& points, const std::string& space,
                                    std::size_t expected, const std::string& context);

}  // namespace gpufem::gmsh_library
