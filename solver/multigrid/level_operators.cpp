#include "solver/multigrid/level_operators.hpp"

#include "linalg/csr_kernels.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "solver/krylov/preconditioner.hpp"

namespace gpufem {

template <typename V>
std::unique_ptr<LinearOperator<V>> csr_level_operator(Csr<V> matrix)
{
    const Executor& exec = *matrix.executor();
    Array<V> diagonal(matrix.executor(), static_cast<std::size_t>(matrix.rows));
    GPUFEM_DISPATCH(exec, csr_diagonal(exec, matrix, diagonal.data()));
    CsrOptions options;
    options.tune = false;
    auto op = std::make_unique<CsrTunedOperator<V>>(std::move(matrix), options);
    op->set_diagonal(std::move(diagonal));
    return op;
}

template <typename V>
Array<V> inverse_diagonal_of(const LinearOperator<V>& op)
{
    const JacobiPreconditioner<V> jacobi(op);
    return jacobi.inverse_diagonal()->clone_to(op.executor());
}

template std::unique_ptr<LinearOperator<float>> csr_level_operator(Csr<float>);
template std::unique_ptr<LinearOperator<double>> csr_level_operator(Csr<double>);
template Array<float> inverse_diagonal_of(const LinearOperator<float>&);
template Array<double> inverse_diagonal_of(const LinearOperator<double>&);

}  // namespace gpufem
