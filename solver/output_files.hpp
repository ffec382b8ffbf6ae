#pragma once
// Staged output files: each is written under a temporary name in the output folder and all
// are renamed into place together, so a failed run leaves no partial result behind.
#include <filesystem>
#include <string>
#include <vector>

namespace gpufem {

/// Collects output files written to temporary names; commit() renames them all, and the
/// destructor removes whatever was not committed.
class StagedOutputs {
public:
    explicit StagedOutputs(std::filesystem::path dir);
    ~StagedOutputs();
    StagedOutputs(const StagedOutputs&) = delete;
    StagedOutputs& operator=(const StagedOutputs&) = delete;

    /// The temporary path to write `name` to (registers it for commit / clean-up).
    std::filesystem::path stage(const std::string& name);
    /// Writes text to a staged file.
    void write_text(const std::string& name, const std::string& text);
    /// Renames every staged file to its final name.
    void commit();
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files_;  // temp, final
    bool committed_ = false;
};

}  // namespace gpufem
