// libFuzzer target: case-file text through the reader and the sweep expansion. Any input must
// end in a CaseSpec or in a std::runtime_error (a CaseError naming the key and line); a crash,
// a sanitizer report, another exception or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "solver/case/case_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const gpufem::CaseSpec spec =
            gpufem::parse_case_text(text, "fuzz.yaml", std::filesystem::temp_directory_path());
        if (gpufem::is_sweep(spec)) gpufem::expand_sweep(spec);
    } catch (const std::runtime_error&) {
        // a clear error: what the reader must give for bad input
    }
    return 0;
}
