#include "linalg/file_kind.hpp"

#include <system_error>

namespace gpufem {

std::string not_a_regular_file(const std::filesystem::path& path)
{
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    switch (status.type()) {
    case fs::file_type::regular: return {};
    case fs::file_type::directory: return "is a folder, not a file";
    case fs::file_type::block:
    case fs::file_type::character: return "is a device, not a file";
    case fs::file_type::fifo: return "is a FIFO (named pipe), not a file";
    case fs::file_type::socket: return "is a socket, not a file";
    case fs::file_type::not_found:
        return fs::is_symlink(fs::symlink_status(path, error)) ? "is a link to nothing (its target is missing)"
                                                               : "not found";
    default: break;
    }
    return error ? "cannot be examined: " + error.message() : "is not a regular file";
}

}  // namespace gpufem
