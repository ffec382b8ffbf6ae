#pragma once
// Internal to mesh/: ownership of the Gmsh library and translation of its errors.
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gpufem {

/// An error raised while reading or building a mesh; its message already names the file or
/// shape it is about.
class MeshSourceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A refined or generated mesh that would not fit the machine's memory or 32-bit indices
/// (mesh_size_guard), thrown before anything is allocated.
class MeshTooLargeError : public MeshSourceError {
public:
    using MeshSourceError::MeshSourceError;
};

/// Holds the Gmsh library (a process-wide singleton) for one reading or meshing job:
/// serialises concurrent users, initialises Gmsh without command-line arguments or
/// configuration files, silences its terminal output and makes its errors throw; finalises
/// it on destruction (unless leave_model_to_process_end) and restores the OpenMP thread count
/// Gmsh changes. Code holding a GmshSession must not initialise Gmsh itself.
class GmshSession {
public:
    GmshSession();
    ~GmshSession();
    GmshSession(const GmshSession&) = delete;
    GmshSession& operator=(const GmshSession&) = delete;

    /// For a process that ends once its one mesh is out (the mesh worker): sessions end
    /// without finalising Gmsh, whose model then goes with the process. (Freeing a model of
    /// 12M tetrahedra took 0.8 s, which the mesh's reply waited for.) A later session would
    /// find the model of the one before, so only a process with a single session may call it.
    static void leave_model_to_process_end();

    /// The process's OpenMP thread count before the session: gmsh::initialize sets it to
    /// Gmsh's General.NumThreads (1), so the host's threads are read here, not from OpenMP.
    int host_threads() const { return omp_threads_; }

private:
    std::unique_lock<std::mutex> lock_;
    int omp_threads_;  ///< OpenMP threads before Gmsh took over (restored on destruction)
};

/// The threads Gmsh meshes on when `requested` are asked for (0: all of the host's, as the
/// session found them before Gmsh set OpenMP to its own one).
inline int gmsh_meshing_threads(int requested, const GmshSession& session)
{
    return requested == 0 ? session.host_threads() : requested;
}

/// Runs one Gmsh step (gmsh::open, mesh generation, refinement) with Gmsh's errors logged
/// rather than thrown, and then throws MeshSourceError("<context>: Gmsh error: ...") with the
/// errors it logged, if any. (An exception thrown from inside Gmsh 4.8's .geo parser leaves
/// the parser broken for every later file in the process; one thrown from a meshing loop
/// crosses OpenMP regions.)
/// How run_gmsh_step finds a step's errors.
enum class GmshLog {
    collected,   ///< Gmsh's logger runs: up to three of the step's errors are named
    last_error,  ///< no logger (it makes HXT's meshes vary): the step's last error only
};

/// (last_error: meshing steps, whose result must not depend on the logger.)
void run_gmsh_step(const std::string& context, const std::function<void()>& step,
                   GmshLog log_mode = GmshLog::collected);

/// To be called inside a catch block: rethrows a MeshSourceError unchanged and turns anything
/// else Gmsh or the standard library threw (Gmsh 4.8 throws std::string) into a
/// MeshSourceError whose message starts with `context` (e.g. "mesh file 'a.msh'"). Only a
/// std::bad_alloc that is memory running out passes on (std::bad_array_new_length, a damaged
/// count, becomes an error).
[[noreturn]] void rethrow_as_mesh_error(const std::string& context);

}  // namespace gpufem
