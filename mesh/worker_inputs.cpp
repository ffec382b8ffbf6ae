#include "mesh/worker_inputs.hpp"

#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

#include "mesh/geo_references.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// The descriptor of `path` opened for reading (-1 when it cannot be).
int open_for_reading(const std::string& path)
{
    std::error_code error;
    if (path.empty() || !fs::is_regular_file(path, error)) return -1;
    return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

/// Every file Gmsh reads for spec's input; the input and its FILE.opt when the list is refused.
std::vector<std::string> files_to_read(const MeshSpec& spec)
{
    std::vector<std::string> paths;
    try {
        for (const MeshInputFile& file : mesh_input_files(spec.path, spec.kind == MeshSpec::Kind::geo))
            paths.push_back(file.path);
    } catch (const MeshSourceError&) {
        paths = {spec.path, spec.path + ".opt"};
    }
    return paths;
}

/// Replaces every `from` in `text` by `to`.
void replace_all(std::string& text, const std::string& from, const std::string& to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

}  // namespace

SandboxedInputs::SandboxedInputs(const MeshSpec& spec)
{
    if (spec.kind == MeshSpec::Kind::shape) return;
    const fs::path input = fs::absolute(spec.path);
    folder_ = {input.parent_path().string(), ::open(input.parent_path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
    input_name_ = input.filename().string();
    for (const std::string& path : files_to_read(spec))
        if (const int fd = open_for_reading(path); fd >= 0) files_.push_back({path, fd});
}

SandboxedInputs::~SandboxedInputs()
{
    if (folder_.fd >= 0) ::close(folder_.fd);
    for (const Opened& opened : files_) ::close(opened.fd);
}

SandboxReads SandboxedInputs::reads() const
{
    SandboxReads reads;
    for (const Opened& opened : files_) reads.files.push_back(opened.fd);
    return reads;
}

GmshReadOptions SandboxedInputs::read_options() const
{
    GmshReadOptions options;
    if (folder_.fd >= 0) options.open_path = folder_.fd_path() + "/" + input_name_;
    return options;
}

std::string SandboxedInputs::named(std::string message) const
{
    if (folder_.fd >= 0) replace_all(message, folder_.fd_path() + "/", folder_.path + "/");
    return message;
}

}  // namespace gpufem
