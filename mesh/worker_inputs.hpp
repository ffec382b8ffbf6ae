#pragma once
// The mesh worker's input files inside its sandbox (worker_sandbox.hpp). Every file Gmsh reads
// for the input (geo_references.hpp: the input, the FILE.opt Gmsh merges after a file, the
// files a script includes or merges) is opened before the sandbox closes, and only those stay
// readable. Gmsh opens the input through /proc/self/fd/D/NAME, D the input's folder opened
// beforehand, so that it finds the included files by their relative names as usual.
#include <string>
#include <vector>

#include "mesh/mesh_source.hpp"
#include "mesh/worker_sandbox.hpp"

namespace gpufem {

/// The opened input files of one mesh request (none for a shape), closed on destruction.
class SandboxedInputs {
public:
    /// Opens spec's file, its folder and every file Gmsh reads for it (when that list cannot
    /// be made, the input and its FILE.opt alone: the input guard has reported why). A file
    /// that cannot be opened is left out: Gmsh reports it by its name.
    explicit SandboxedInputs(const MeshSpec& spec);
    ~SandboxedInputs();
    SandboxedInputs(const SandboxedInputs&) = delete;
    SandboxedInputs& operator=(const SandboxedInputs&) = delete;

    /// The files the sandbox must leave readable.
    SandboxReads reads() const;
    /// How load_gmsh_mesh has Gmsh read them.
    GmshReadOptions read_options() const;
    /// `message` with the /proc/self/fd path of the folder replaced by the folder's own name.
    std::string named(std::string message) const;

private:
    /// One opened file or folder: its name and descriptor.
    struct Opened {
        std::string path;
        int fd = -1;
        std::string fd_path() const { return "/proc/self/fd/" + std::to_string(fd); }
    };
    Opened folder_;              ///< the input's folder (O_PATH)
    std::string input_name_;     ///< the input's file name in it
    std::vector<Opened> files_;  ///< the readable files, the input first
};

}  // namespace gpufem
