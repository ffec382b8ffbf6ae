// libFuzzer target: bytes given as a .msh file, loaded as `gpufem run` loads a mesh file: the
// header check, Gmsh's reader and gpufem's extraction in the mesh worker (gpufem-mesh-worker
// next to this program, or $GPUFEM_MESH_WORKER), then the mesh's finishing in this process.
// Any input must end in a mesh or a std::runtime_error naming the file; a crash, a sanitizer
// report or a hang of this process, or another exception, is a finding. Gmsh's own reader
// crashes on some inputs (Gmsh 4.8: a segfault in GModel::getMeshVertexByTag within 20
// mutations of a binary file): in the worker that is the clear error the user gets; the
// worker's sanitizer reports, if any, are on standard error.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/fuzz/fuzz_worker.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    gpufem::fuzz::use_sibling_mesh_worker();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::string path =
        (std::filesystem::temp_directory_path() / ("gpufem_fuzz_" + std::to_string(::getpid()) + ".msh"))
            .string();
    {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    gpufem::MeshSpec spec;
    spec.kind = gpufem::MeshSpec::Kind::file;
    spec.path = path;
    spec.time_limit = 20;  // a hang in Gmsh ends the worker, as in a run
    try {
        gpufem::load_mesh_isolated(spec);
    } catch (const std::runtime_error&) {
        // a clear error naming the file
    }
    return 0;
}
