#include "linalg/write_errors.hpp"

#include <cerrno>
#include <cstring>

namespace gpufem {

bool disk_full(int error_number)
{
    return error_number == ENOSPC || error_number == EDQUOT;
}

std::string write_error_message(const std::filesystem::path& file, int error_number, const std::string& what)
{
    if (disk_full(error_number)) return "the disk is full writing '" + file.string() + "'";
    std::string text = "cannot write '" + file.string() + "'";
    if (!what.empty()) text += ": " + what;
    if (error_number != 0) text += std::string(": ") + std::strerror(error_number);
    return text;
}

}  // namespace gpufem
