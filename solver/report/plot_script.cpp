#include "solver/report/plot_script.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>

namespace gpufem {
namespace {

/// The folder of the running program.
std::filesystem::path program_folder()
{
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : self.parent_path();
}

/// text quoted for the shell.
std::string shell_quote(const std::string& text)
{
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// The last lines of a file (the script's messages).
std::string file_tail(const std::filesystem::path& file, std::size_t max_chars)
{
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::string out = text.str();
    if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

}  // namespace

std::filesystem::path plot_script()
{
    if (const char* env = std::getenv("GPUFEM_PLOT_SCRIPT")) {
        if (std::filesystem::is_regular_file(env)) return env;
        throw std::runtime_error(std::string("GPUFEM_PLOT_SCRIPT=") + env + ": no such file");
    }
    const std::filesystem::path bin = program_folder();
    for (const std::filesystem::path& candidate :
         {bin / "../share/gpufem/scripts/gpufem_plots.py", bin / "../scripts/gpufem_plots.py",
          std::filesystem::path(GPUFEM_SOURCE_SCRIPTS) / "gpufem_plots.py"})
        if (std::filesystem::is_regular_file(candidate)) return std::filesystem::weakly_canonical(candidate);
    throw std::runtime_error("the plotting script gpufem_plots.py was not found (set GPUFEM_PLOT_SCRIPT to its path)");
}

void run_plot_script(const std::string& kind, const std::filesystem::path& input, const std::filesystem::path& output)
{
    const char* python = std::getenv("GPUFEM_PYTHON");
    std::filesystem::remove_all(output);
    std::filesystem::create_directories(output);
    const std::filesystem::path log = output / "plots.log";
    const std::string command = shell_quote(python ? python : "/usr/bin/python3") + " " +
                                shell_quote(plot_script().string()) + " " + kind + " " + shell_quote(input.string()) +
                                " " + shell_quote(output.string()) + " > " + shell_quote(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string messages = file_tail(log, 1500);
    std::filesystem::remove(log);
    if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("the plots could not be drawn: " + (messages.empty() ? "the script failed" : messages));
}

std::vector<std::string> png_files(const std::filesystem::path& folder)
{
    std::vector<std::string> out;
    if (!std::filesystem::is_directory(folder)) return out;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().extension() == ".png") out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace gpufem
