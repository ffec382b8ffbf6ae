#include "mesh/gmsh_library.hpp"

#include <chrono>
#include <string>

#include <dlfcn.h>
#include <gmshc.h>
#include <spdlog/spdlog.h>

#include "mesh/gmsh_session.hpp"

namespace gpufem::gmsh_library {
namespace {

/// The one entry point gpufem calls in its own process.
struct GmshApi {
    /// Gmsh's version function (its CommandLine.h's GetGmshVersion, exported by the library
    /// under its C++ name, left out of the API).
    const char* (*version)() = nullptr;
    std::string problem;  ///< why the library could not be used ("" when it can)
};

/// libgmsh.so.<major>.<minor> of the headers gpufem was built with (the loader's search
/// path: LD_LIBRARY_PATH, the run path, the system's), its version function found; or the
/// problem.
GmshApi open_gmsh()
{
    const auto start = std::chrono::steady_clock::now();
    const std::string name = file_name();
    GmshApi api;
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        api.problem = "cannot open the Gmsh library " + name + ": " + dlerror();
        return api;
    }
    api.version = reinterpret_cast<const char* (*)()>(dlsym(library, "_Z14GetGmshVersionv"));
    if (!api.version) api.problem = name + " has no GetGmshVersion";
    spdlog::debug("Gmsh's library opened for its version in {:.3f} s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return api;
}

/// The library, opened once per process at its first use.
const GmshApi& gmsh_api()
{
    static const GmshApi api = open_gmsh();
    return api;
}

/// The opened library; throws MeshSourceError starting with `context` when it could not be.
const GmshApi& usable_api(const std::string& context)
{
    const GmshApi& api = gmsh_api();
    if (!api.problem.empty()) throw MeshSourceError(context + ": " + api.problem);
    return api;
}

}  // namespace

std::string file_name()
{
    return "libgmsh.so." + std::to_string(GMSH_API_VERSION_MAJOR) + "." + std::to_string(GMSH_API_VERSION_MINOR);
}

std::string version(const std::string& context)
{
    return usable_api(context).version();  // a constant string: no initialisation, no lock
}

}  // namespace gpufem::gmsh_library
