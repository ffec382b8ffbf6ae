#pragma once
// The plots of `gpufem report` and `gpufem study`: drawn by a shipped Python script
// (scripts/gpufem_plots.py) with Debian's matplotlib, run as a separate process.
#include <filesystem>
#include <string>
#include <vector>

namespace gpufem {

/// The plotting script: $GPUFEM_PLOT_SCRIPT, else gpufem_plots.py installed beside the program
/// (<bin>/../share/gpufem/scripts), in the checkout it sits in (<bin>/../scripts), or in the
/// source tree it was built from. Throws when none exists.
std::filesystem::path plot_script();

/// Runs `python3 SCRIPT kind input output` ($GPUFEM_PYTHON, default /usr/bin/python3), the
/// script writing its files into output (made empty first). Throws std::runtime_error with
/// the script's own message when it fails (python3-matplotlib missing, a damaged input).
void run_plot_script(const std::string& kind, const std::filesystem::path& input, const std::filesystem::path& output);

/// The names of the .png files in folder, sorted.
std::vector<std::string> png_files(const std::filesystem::path& folder);

}  // namespace gpufem
