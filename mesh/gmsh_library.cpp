#include "mesh/gmsh_library.hpp"

#include <chrono>
#include <mutex>
#include <string>
#include <type_traits>

#include <dlfcn.h>
#include <gmshc.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include "mesh/gmsh_lock.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem::gmsh_library {
namespace {

/// The C entry points of Gmsh gpufem calls in its own process.
struct GmshApi {
    decltype(&gmshInitialize) initialize = nullptr;
    decltype(&gmshFinalize) finalize = nullptr;
    decltype(&gmshOptionSetNumber) set_number = nullptr;
    decltype(&gmshModelMeshGetBasisFunctions) basis_functions = nullptr;
    decltype(&gmshLoggerGetLastError) last_error = nullptr;
    decltype(&gmshFree) free = nullptr;
    /// Gmsh's version function (its CommandLine.h's GetGmshVersion, exported by the library
    /// under its C++ name, left out of the API).
    const char* (*version)() = nullptr;
    std::string problem;  ///< why the library could not be used ("" when it can)
};

/// libgmsh.so.<major>.<minor> of the headers gpufem was built with (the loader's search
/// path: LD_LIBRARY_PATH, the run path, the system's), every entry point found; or the problem.
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
    const auto find = [&](auto& entry, const char* symbol) {
        entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(library, symbol));
        if (!entry && api.problem.empty()) api.problem = name + " has no " + symbol;
    };
    find(api.initialize, "gmshInitialize");
    find(api.finalize, "gmshFinalize");
    find(api.set_number, "gmshOptionSetNumber");
    find(api.basis_functions, "gmshModelMeshGetBasisFunctions");
    find(api.last_error, "gmshLoggerGetLastError");
    find(api.free, "gmshFree");
    find(api.version, "_Z14GetGmshVersionv");
    spdlog::debug("Gmsh's library opened for the Lagrange bases in {:.3f} s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return api;
}

/// The library, opened once per process at its first use.
const GmshApi& gmsh_api()
{
    static const GmshApi api = open_gmsh();
    return api;
}

/// Gmsh initialised for one call under the process's Gmsh lock, quiet, finalised after it;
/// the OpenMP thread count Gmsh changes is restored.
class CallSession {
public:
    CallSession(const GmshApi& api, const std::string& context)
        : api_(api), lock_(gmsh_mutex()), omp_threads_(omp_get_max_threads())
    {
        int error = 0;
        {
            const GmshEnvironmentKept environment;
            api_.initialize(0, nullptr, 0, &error);
        }
        if (error == 0) api_.set_number("General.Terminal", 0, &error);
        if (error != 0) fail(context + ": initialising Gmsh");
    }
    ~CallSession()
    {
        int error = 0;
        api_.finalize(&error);
        omp_set_num_threads(omp_threads_);
    }
    CallSession(const CallSession&) = delete;
    CallSession& operator=(const CallSession&) = delete;

    /// Throws MeshSourceError("<what>: Gmsh error: <Gmsh's last error>").
    [[noreturn]] void fail(const std::string& what) const
    {
        char* text = nullptr;
        int error = 0;
        api_.last_error(&text, &error);
        const std::string last = error == 0 && text != nullptr && *text != '\0' ? text : "unknown error";
        if (text != nullptr) api_.free(text);
        throw MeshSourceError(what + ": Gmsh error: " + last);
    }

private:
    const GmshApi& api_;
    std::unique_lock<std::mutex> lock_;
    int omp_threads_;
};

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

std::vector<double> basis_functions(int gmsh_type, const std::vector<double>& points, const std::string& space,
                                    std::size_t expected, const std::string& context)
{
    const GmshApi& api = usable_api(context);
    const CallSession session(api, context);
    std::vector<double> local = points;  // the C API takes a non-const array
    double* values = nullptr;
    std::size_t count = 0;
    int components = 0, orientations = 0, error = 0;
    api.basis_functions(gmsh_type, local.data(), local.size(), space.c_str(), &components, &values, &count,
                        &orientations, nullptr, 0, &error);
    std::vector<double> out;
    if (error == 0) out.assign(values, values + count);
    if (values != nullptr) api.free(values);
    if (error != 0) session.fail(context);
    if (out.size() != expected)
        throw MeshSourceError(context + ": Gmsh returned " + std::to_string(out.size()) + " " + space +
                              " values, expected " + std::to_string(expected));
    return out;
}

}  // namespace gpufem::gmsh_library
