#pragma once
// Staged output files: each is written under a temporary name in the output folder and all
// are renamed into place together, so a failed run leaves no partial result behind.
#include <filesystem>
#include <string>
#include <vector>

namespace gpufem {

/// Collects output files written to temporary names; commit() renames them all, and the
/// destructor removes whatever was not committed. The temporary files (and the folder, when
/// this creates it) are also registered with interrupt_cleanup, so SIGINT/SIGTERM remove them.
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
    /// Renames every staged file to its final name; the files they replace are removed by
    /// remove_replaced_file (beside the run, when its helper was started).
    void commit();
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files_;  // temp, final
    std::vector<int> cleanup_slots_;  ///< interrupt_cleanup registrations, released at the end
    bool committed_ = false;
    bool created_ = false;  ///< this made the folder: removed again, if empty, when not committed
};

}  // namespace gpufem
