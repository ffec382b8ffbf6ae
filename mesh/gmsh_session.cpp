#include "mesh/gmsh_session.hpp"

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <gmsh.h>
#include <omp.h>

#include "mesh/gmsh_lock.hpp"

namespace gpufem {
namespace {

/// Set by GmshSession::leave_model_to_process_end.
std::atomic<bool> model_left_to_process_end{false};

/// The last error Gmsh logged, or "" (never throws).
std::string last_gmsh_error()
{
    try {
        std::string error;
        gmsh::logger::getLastError(error);
        return error;
    } catch (...) {
        return {};
    }
}

}  // namespace

GmshSession::GmshSession() : lock_(gmsh_mutex()), omp_threads_(omp_get_max_threads())
{
    {
        const GmshEnvironmentKept environment;  // Gmsh's additions to PATH and PYTHONPATH undone
        gmsh::initialize(0, nullptr, /*readConfigFiles=*/false);
    }
    try {
        // Quiet unless asked; errors are thrown (AbortOnError 2) and reported by us.
        gmsh::option::setNumber("General.Terminal", 0);
        gmsh::option::setNumber("General.AbortOnError", 2);
    } catch (...) {
        gmsh::finalize();
        omp_set_num_threads(omp_threads_);
        rethrow_as_mesh_error("initialising Gmsh");
    }
}

void GmshSession::leave_model_to_process_end() { model_left_to_process_end.store(true); }

GmshSession::~GmshSession()
{
    try {
        if (!model_left_to_process_end.load()) gmsh::finalize();
    } catch (...) {
        // A destructor must not throw; Gmsh's state is released either way.
    }
    // Gmsh sets the process-wide OpenMP thread count to its General.NumThreads (1 by
    // default); give the rest of gpufem its threads back.
    omp_set_num_threads(omp_threads_);
}

void run_gmsh_step(const std::string& context, const std::function<void()>& step, GmshLog log_mode)
{
    constexpr std::size_t max_errors_shown = 3;
    if (log_mode == GmshLog::last_error) {
        // Without Gmsh's logger: with it running, HXT's tetrahedra vary from run to run even
        // on one thread (the unit cube at h = 0.08: 9,634 or 9,707 cells; 9,615 every time
        // without). A new last error is the step's.
        const std::string before = last_gmsh_error();
        gmsh::option::setNumber("General.AbortOnError", 0);
        try {
            step();
        } catch (...) {
            gmsh::option::setNumber("General.AbortOnError", 2);
            throw;
        }
        gmsh::option::setNumber("General.AbortOnError", 2);
        const std::string after = last_gmsh_error();
        if (!after.empty() && after != before) throw MeshSourceError(context + ": Gmsh error: " + after);
        return;
    }
    gmsh::option::setNumber("General.AbortOnError", 0);
    gmsh::logger::start();
    std::vector<std::string> log;
    try {
        step();
        gmsh::logger::get(log);
    } catch (...) {
        gmsh::logger::stop();
        gmsh::option::setNumber("General.AbortOnError", 2);
        throw;
    }
    gmsh::logger::stop();
    gmsh::option::setNumber("General.AbortOnError", 2);

    const std::string prefix = "Error: ";
    std::string errors;
    std::size_t count = 0;
    for (const std::string& line : log) {
        if (line.rfind(prefix, 0) != 0) continue;
        if (++count <= max_errors_shown)
            errors += (errors.empty() ? "" : "; ") + line.substr(prefix.size());
    }
    if (count > max_errors_shown)
        errors += "; and " + std::to_string(count - max_errors_shown) + " more";
    if (count > 0) throw MeshSourceError(context + ": Gmsh error: " + errors);
}

void rethrow_as_mesh_error(const std::string& context)
{
    try {
        throw;
    } catch (const MeshSourceError&) {
        throw;
    } catch (const std::bad_array_new_length&) {
        // An array of a negative or overflowing length: a count read from a damaged file (Gmsh
        // 4.8's MSH 2 reader), not memory running out.
        throw MeshSourceError(context + ": Gmsh error: a count in the input is negative or too "
                                        "large (a damaged file?)");
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::string& message) {
        throw MeshSourceError(context + ": Gmsh error: " + message);
    } catch (const char* message) {
        throw MeshSourceError(context + ": Gmsh error: " + message);
    } catch (const std::exception& error) {
        throw MeshSourceError(context + ": " + error.what());
    } catch (...) {
        const std::string last = last_gmsh_error();
        throw MeshSourceError(context + ": Gmsh error: " +
                              (last.empty() ? std::string("unknown error") : last));
    }
}

}  // namespace gpufem
