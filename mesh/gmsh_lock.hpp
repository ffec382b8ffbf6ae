#pragma once
// Internal to mesh/: what every user of the Gmsh singleton in a process shares, whether it
// links Gmsh (GmshSession, in the mesh worker and the tests) or opens it at run time
// (gmsh_library.hpp, in gpufem): one lock, and the environment Gmsh's initialisation edits.
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gpufem {

/// Serialises all users of the Gmsh singleton in this process.
std::mutex& gmsh_mutex();

/// Keeps PATH and PYTHONPATH as they were before Gmsh's initialisation, which appends the
/// executable's folder to them every time (a process opening thousands of sessions would grow
/// PATH past what a child process may be given); restored on destruction.
class GmshEnvironmentKept {
public:
    GmshEnvironmentKept();
    ~GmshEnvironmentKept();
    GmshEnvironmentKept(const GmshEnvironmentKept&) = delete;
    GmshEnvironmentKept& operator=(const GmshEnvironmentKept&) = delete;

private:
    std::vector<std::pair<bool, std::string>> kept_;
};

}  // namespace gpufem
