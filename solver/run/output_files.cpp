#include "solver/run/output_files.hpp"

#include <cerrno>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "linalg/write_errors.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/run/file_reaper.hpp"
#include "solver/run/interrupt_cleanup.hpp"

namespace gpufem {

StagedOutputs::StagedOutputs(std::filesystem::path dir) : dir_(std::move(dir))
{
    std::error_code ec;
    created_ = !std::filesystem::exists(dir_, ec);
    std::filesystem::create_directories(dir_, ec);
    if (ec || !std::filesystem::is_directory(dir_))
        throw std::runtime_error("cannot create output folder '" + dir_.string() + "': " +
                                 (ec ? ec.message() : "not a folder"));
    if (created_) cleanup_slots_.push_back(register_for_cleanup(dir_, /*is_folder=*/true));
}

StagedOutputs::~StagedOutputs()
{
    if (!committed_) {
        std::error_code ec;
        for (const auto& [temp, final_path] : files_) std::filesystem::remove(temp, ec);
        // A run that failed before its outputs leaves no folder it made (staged early, while
        // the run goes on; removed only when empty).
        if (created_ && std::filesystem::is_empty(dir_, ec)) std::filesystem::remove(dir_, ec);
    }
    for (int slot : cleanup_slots_) release_cleanup(slot);
}

std::filesystem::path StagedOutputs::stage(const std::string& name)
{
    const auto final_path = dir_ / name;
    const auto temp = dir_ / ("." + name + ".partial-" + std::to_string(::getpid()));
    files_.emplace_back(temp, final_path);
    cleanup_slots_.push_back(register_for_cleanup(temp));
    // write_vtu writes its own temporary next to the path it is given, then renames it.
    cleanup_slots_.push_back(register_for_cleanup(vtu_temporary_path(temp)));
    return temp;
}

void StagedOutputs::write_text(const std::string& name, const std::string& text)
{
    const auto temp = stage(name);
    errno = 0;
    std::ofstream out(temp, std::ios::binary);
    out << text;
    out.close();
    // errno holds the failed system call's reason (a full disk) where the stream had one.
    if (!out) throw std::runtime_error(write_error_message(dir_ / name, errno));
}

void StagedOutputs::commit()
{
    for (const auto& [temp, final_path] : files_) replace_file(temp, final_path);
    committed_ = true;
    for (int slot : cleanup_slots_) release_cleanup(slot);
    cleanup_slots_.clear();
}

}  // namespace gpufem
