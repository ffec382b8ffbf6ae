#pragma once
// The `lma` entries of `gpufem bench spmv --formats`: names, their expansion into variants
// (scatter, storage, apply kernel) and building them from the case's mesh and problem.
#include <memory>
#include <string>
#include <vector>

#include "assembly/lma_operator.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/format_build.hpp"
#include "linalg/format_options.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// One LMA variant of the benchmark.
struct LmaBenchFormat {
    std::string label;      ///< canonical name, e.g. "lma-atomic-sym:twin"
    FormatOptions options;  ///< the case's format options with scatter, storage, kernel set
};

/// True for the names expand_lma_format takes: "lma", "lma-..." and "lma:...".
bool is_lma_format(const std::string& name);

/// Expands an LMA name of the form lma[-atomic|-colour|-all][-sym|-full][:KERNEL|:all]
/// against the case's options: -atomic / -colour set the scatter, -all takes both scatters
/// and (unless -sym or -full follows) both storages; -sym / -full the storage; :KERNEL one
/// apply kernel (auto, cell, tile, twin, row, reg), :all each of cell, tile, twin, row, reg.
/// What the name leaves open comes from base. Throws std::invalid_argument on a bad name.
std::vector<LmaBenchFormat> expand_lma_format(const std::string& name, const FormatOptions& base);

/// The LMA entries of the benchmark's default format list: lma-all (both scatters, both
/// storages, the case's kernel).
std::vector<std::string> default_lma_formats();

/// Builds LMA operators for the benchmark, reusing the last one when only the kernel changes
/// (the element matrices and layout do not depend on it).
template <typename V>
class LmaBenchBuilder {
public:
    LmaBenchBuilder(ExecPtr exec, const Mesh& mesh, const ProblemSpec& problem)
        : exec_(std::move(exec)), mesh_(mesh), problem_(problem)
    {}
    /// The operator of this variant (valid until the next call) and its build time (the
    /// whole build: element kernels, colouring, layout; the same for each kernel of one
    /// scatter and storage).
    const LmaOperator<V>& build(const LmaBenchFormat& format, double& build_seconds,
                                std::string& host_steps);

private:
    ExecPtr exec_;
    const Mesh& mesh_;
    const ProblemSpec& problem_;
    FormatBuild<V> last_;
    bool last_colour_ = false, last_symmetric_ = false;
};

}  // namespace gpufem
