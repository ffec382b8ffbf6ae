#include "solver/multigrid/float_cycle.hpp"

#include <chrono>

#include "linalg/precision.hpp"
#include "solver/multigrid/level_operators.hpp"

namespace gpufem {

std::unique_ptr<LinearOperator<float>> float_fine_operator(const Csr<double>& matrix)
{
    return csr_level_operator(rounded_to_float(matrix));
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

bool FloatCycle::update(const LinearOperator<double>& /*a*/, const Csr<double>* matrix)
{
    if (!matrix || !fine_->stored_csr()) return false;
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<LinearOperator<float>> fine = float_fine_operator(*matrix);
    if (!inner_->update(*fine, fine->stored_csr())) return false;
    fine_ = std::move(fine);  // the inner hierarchy now refers to the new copy
    update_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return true;
}

nlohmann::json FloatCycle::report() const
{
    nlohmann::json out = inner_->report();
    out["precision"] = "float";
    out["float_fine_operator_bytes"] = fine_->bytes_stored();
    out["float_fine_operator_format"] = fine_->format();
    return out;
}

}  // namespace gpufem
