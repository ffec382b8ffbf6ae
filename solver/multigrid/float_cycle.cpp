#include "solver/multigrid/float_cycle.hpp"

#include <stdexcept>

#include "linalg/format_build.hpp"
#include "linalg/format_options.hpp"
#include "linalg/precision.hpp"

namespace gpufem {

std::unique_ptr<LinearOperator<float>> float_fine_operator(const Csr<double>& matrix)
{
    FormatBuild<float> built = build_format<float>("csr", rounded_to_float(matrix), FormatOptions{});
    if (!built.permutation.empty() || !built.op->stored_csr())
        throw std::logic_error("float_fine_operator: the csr format renumbered the rows or keeps no CSR arrays");
    return std::move(built.op);
}

FloatCycle::FloatCycle(std::unique_ptr<LinearOperator<float>> fine, std::unique_ptr<Preconditioner<float>> inner)
    : fine_(std::move(fine)), inner_(std::move(inner)),
      r_(fine_->executor(), static_cast<std::size_t>(inner_->size())),
      z_(fine_->executor(), static_cast<std::size_t>(inner_->size()))
{
}

void FloatCycle::apply(const Array<double>& r, Array<double>& z) const
{
    round_into(r, r_);
    inner_->apply(r_, z_);
    widen_into(z_, z);
}

std::size_t FloatCycle::apply_bytes() const
{
    return inner_->apply_bytes() + 2 * (sizeof(double) + sizeof(float)) * static_cast<std::size_t>(size());
}

nlohmann::json FloatCycle::report() const
{
    nlohmann::json out = inner_->report();
    out["precision"] = "float";
    out["float_fine_operator_bytes"] = fine_->bytes_stored();
    return out;
}

}  // namespace gpufem
