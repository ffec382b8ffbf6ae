// libFuzzer target: --set overrides (one per input line) applied to a valid case, then read.
// Any input must end in a CaseSpec or a std::runtime_error naming the override; a crash, a
// sanitizer report, another exception or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/case/case_file.hpp"

namespace {

const char* const base_case = R"yaml(mesh:
  shape: unit_square
  size: 0.25
problem:
  kappa: 1
  f: "2*pi^2*sin(pi*x)*sin(pi*y)"
  exact: "sin(pi*x)*sin(pi*y)"
  dirichlet:
    boundary: 0
format: csr
solver:
  tolerance: 1e-8
)yaml";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> overrides;
    std::size_t begin = 0;
    while (begin <= text.size() && overrides.size() < 16) {
        const std::size_t end = std::min(text.find('\n', begin), text.size());
        overrides.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    try {
        const gpufem::CaseSpec spec = gpufem::parse_case_text(
            base_case, "fuzz.yaml", std::filesystem::temp_directory_path(), overrides);
        if (gpufem::is_sweep(spec)) gpufem::expand_sweep(spec);
    } catch (const std::runtime_error&) {
        // a clear error naming the override
    }
    return 0;
}
