#pragma once
// What a path names when a regular file was expected, for error messages that say it
// ("is a folder", "is a device", "is a FIFO") instead of "not found".
#include <filesystem>
#include <string>

namespace gpufem {

/// Empty when path names a regular file (following links); otherwise what is wrong, to follow
/// the path in a message: "not found", "is a folder, not a file", "is a device (/dev/...), not
/// a file", "is a FIFO (named pipe), not a file", "is a socket, not a file", "is a link to
/// nothing (its target is missing)", "cannot be examined: <reason>".
std::string not_a_regular_file(const std::filesystem::path& path);

}  // namespace gpufem
