#pragma once
// Helpers for end-to-end tests: run the gpufem program, read its outputs back.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

namespace gpufem::test {

/// Exit code and combined stdout/stderr of a command.
struct CommandResult {
    int exit_code = -1;
    std::string output;
};

/// The gpufem command: the program of this build, or the command in $GPUFEM_EXECUTABLE
/// (e.g. "/tmp/bundle/run gpufem" when the tests run from a bundle on another machine).
inline std::string gpufem_command()
{
    const char* override_cmd = std::getenv("GPUFEM_EXECUTABLE");
    return override_cmd ? std::string(override_cmd) : std::string(GPUFEM_BINARY_DIR) + "/gpufem";
}

/// Runs a shell command line; its exit code and combined stdout/stderr.
inline CommandResult run_command(const std::string& command_line)
{
    const std::string cmd = command_line + " 2>&1";
    CommandResult result;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return result;
    std::array<char, 4096> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe)) result.output += buffer.data();
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

/// Runs `gpufem <args>` (see gpufem_command).
inline CommandResult run_gpufem(const std::string& args)
{
    return run_command(gpufem_command() + " " + args);
}

/// A fresh temporary folder, removed at the end of the test.
class TempDir {
public:
    TempDir()
    {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() / ("gpufem-test-" + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }
    /// Writes a file inside the folder and returns its path.
    std::filesystem::path write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path_ / name) << text;
        return path_ / name;
    }

private:
    std::filesystem::path path_;
};

inline vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::filesystem::path& path)
{
    auto reader = vtkSmartPointer<vtkXMLUnstructuredGridReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    return reader->GetOutput();
}

inline nlohmann::json read_json(const std::filesystem::path& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

}  // namespace gpufem::test
