#pragma once
// The mesh worker's input files inside its sandbox (worker_sandbox.hpp). They are opened
// before the sandbox closes, and Gmsh reads them through /proc/self/fd/N paths: next to such a
// path there is no FILE.opt, so Gmsh cannot merge an unchecked sidecar options file (it merges
// FILE.opt after any FILE it opens, with no option to stop it); the sidecar, when there is
// one, is opened too and merged explicitly, after the input guard checked it, as Gmsh would.
#include <string>

#include "mesh/mesh_source.hpp"
#include "mesh/worker_sandbox.hpp"

namespace gpufem {

/// The opened input files of one mesh request (none for a shape), closed on destruction.
class SandboxedInputs {
public:
    /// Opens spec's file and its sidecar FILE.opt, if any, for reading. A file that cannot be
    /// opened is left out: Gmsh reports it by its name.
    explicit SandboxedInputs(const MeshSpec& spec);
    ~SandboxedInputs();
    SandboxedInputs(const SandboxedInputs&) = delete;
    SandboxedInputs& operator=(const SandboxedInputs&) = delete;

    /// The files the sandbox must leave readable.
    SandboxReads reads() const;
    /// How load_gmsh_mesh has Gmsh read them.
    GmshReadOptions read_options() const;
    /// `message` with the /proc/self/fd paths replaced by the files' own names.
    std::string named(std::string message) const;

private:
    /// One opened file: its name and descriptor.
    struct Opened {
        std::string path;
        int fd = -1;
        std::string fd_path() const { return "/proc/self/fd/" + std::to_string(fd); }
    };
    Opened input_, options_;
};

}  // namespace gpufem
