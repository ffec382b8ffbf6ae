#include "mesh/worker_inputs.hpp"

#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace gpufem {
namespace {

/// The descriptor of `path` opened for reading (-1 when it cannot be).
int open_for_reading(const std::string& path)
{
    std::error_code error;
    if (path.empty() || !std::filesystem::is_regular_file(path, error)) return -1;
    return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
    input_ = {spec.path, open_for_reading(spec.path)};
    if (input_.fd >= 0) options_ = {spec.path + ".opt", open_for_reading(spec.path + ".opt")};
}

SandboxedInputs::~SandboxedInputs()
{
    for (const Opened* opened : {&input_, &options_})
        if (opened->fd >= 0) ::close(opened->fd);
}

SandboxReads SandboxedInputs::reads() const
{
    SandboxReads reads;
    for (const Opened* opened : {&input_, &options_})
        if (opened->fd >= 0) reads.files.push_back(opened->fd);
    return reads;
}

GmshReadOptions SandboxedInputs::read_options() const
{
    GmshReadOptions options;
    if (input_.fd >= 0) options.open_path = input_.fd_path();
    if (options_.fd >= 0) options.options_path = options_.fd_path();
    return options;
}

std::string SandboxedInputs::named(std::string message) const
{
    // The larger descriptor first: /proc/self/fd/1 is a prefix of /proc/self/fd/12.
    const bool options_first = options_.fd > input_.fd;
    const Opened& first = options_first ? options_ : input_;
    const Opened& second = options_first ? input_ : options_;
    for (const Opened* opened : {&first, &second})
        if (opened->fd >= 0) replace_all(message, opened->fd_path(), opened->path);
    return message;
}

}  // namespace gpufem
