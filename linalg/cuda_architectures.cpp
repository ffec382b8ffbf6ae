#include "linalg/cuda_architectures.hpp"

#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// One entry of CMake's list: the architecture number and what is kept of it.
struct ArchitectureEntry {
    int number = 0;     ///< 80 for sm_80 / compute_80
    bool code = true;   ///< sm_NN machine code
    bool ptx = true;    ///< compute_NN PTX
};

std::vector<ArchitectureEntry> parse_architectures(const std::string& cmake_list)
{
    std::vector<ArchitectureEntry> entries;
    std::string separated = cmake_list;  // CMake's ';', or ',' as in a compile definition
    for (char& c : separated)
        if (c == ',') c = ';';
    std::stringstream list(separated);
    for (std::string item; std::getline(list, item, ';');) {
        if (item.empty()) continue;
        ArchitectureEntry entry;
        const std::size_t dash = item.find('-');
        const std::string suffix = dash == std::string::npos ? "" : item.substr(dash + 1);
        try {
            entry.number = std::stoi(item.substr(0, dash));
        } catch (const std::exception&) {
            continue;  // "native", "all", "all-major": resolved by CMake, not listed here
        }
        entry.code = suffix != "virtual";
        entry.ptx = suffix != "real";
        entries.push_back(entry);
    }
    return entries;
}

std::string join_words(const std::vector<std::string>& words)
{
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i)
        text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
    return text;
}

}  // namespace

std::string describe_cuda_architectures(const std::string& cmake_list)
{
    std::vector<std::string> code, ptx;
    for (const ArchitectureEntry& e : parse_architectures(cmake_list)) {
        if (e.code) code.push_back(fmt::format("sm_{}", e.number));
        if (e.ptx) ptx.push_back(fmt::format("compute_{}", e.number));
    }
    std::vector<std::string> parts = code;
    if (!ptx.empty()) parts.push_back("PTX " + join_words(ptx));
    return parts.empty() ? std::string("no CUDA code") : join_words(parts);
}

bool cuda_architectures_cover(const std::string& cmake_list, int major, int minor)
{
    const int device = 10 * major + minor;
    for (const ArchitectureEntry& e : parse_architectures(cmake_list)) {
        if (e.code && e.number / 10 == major && e.number <= device) return true;
        if (e.ptx && e.number <= device) return true;
    }
    return false;
}

std::string unusable_gpu_message(int device, const std::string& name, int major, int minor,
                                 const std::string& cmake_list, bool native,
                                 const std::string& cuda_error)
{
    return fmt::format(
        "GPU {} ({}) has compute capability {}.{}, but this gpufem was built for {}{} ({}): "
        "rebuild gpufem for it, e.g. cmake -B build -DCMAKE_CUDA_ARCHITECTURES={}{} (docs/install.md)",
        device, name, major, minor, describe_cuda_architectures(cmake_list),
        native ? ", the GPU of the machine it was configured on" : "", cuda_error, 10 * major + minor,
        " or native on this machine");
}

}  // namespace gpufem
