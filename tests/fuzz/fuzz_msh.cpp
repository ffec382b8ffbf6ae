// libFuzzer target: bytes given as a .msh file, read as `gpufem run` reads a mesh file (the
// header check, Gmsh's reader in this process, gpufem's extraction and checks). Any input
// must end in a mesh or a std::runtime_error naming the file; a crash, a sanitizer report,
// another exception or a hang is a finding. (gpufem itself reads Gmsh files in a worker
// process, so a crash inside Gmsh becomes an error there; here it is reported, to be looked at.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "mesh/mesh_source.hpp"

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
    try {
        gpufem::load_mesh(spec);
    } catch (const std::runtime_error&) {
        // a clear error naming the file
    }
    return 0;
}
