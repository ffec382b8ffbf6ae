#include "linalg/precision.hpp"

namespace gpufem {

void round_into(const Array<double>& x, Array<float>& y)
{
    const ExecPtr& exec = x.executor();
    if (y.size() != x.size()) y = Array<float>(exec, x.size());
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, round_to_float(e, x.size(), x.data(), y.data()));
}

void widen_into(const Array<float>& x, Array<double>& y)
{
    const ExecPtr& exec = x.executor();
    if (y.size() != x.size()) y = Array<double>(exec, x.size());
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, widen_to_double(e, x.size(), x.data(), y.data()));
}

Csr<float> rounded_to_float(const Csr<double>& a)
{
    const ExecPtr& exec = a.executor();
    Array<float> values;
    round_into(a.values, values);
    return Csr<float>{a.rows, a.cols, a.row_ptr.clone_to(exec), a.col_idx.clone_to(exec), std::move(values)};
}

}  // namespace gpufem
