#include "solver/multigrid/classical_coarsening.hpp"

#include <stdexcept>

#include "solver/multigrid/classical_kernels.hpp"

namespace gpufem {

namespace {

/// Whether array lives where matrix a does.
template <typename V, typename T>
bool beside(const Csr<V>& a, const Array<T>& array)
{
    const ExecPtr& on = a.executor();
    return array.executor()->backend() == on->backend() && array.executor()->device_id() == on->device_id();
}

/// Refuses a strength made for another matrix or held on another executor.
template <typename V>
void check_sizes(const Csr<V>& a, const Array<std::uint8_t>& strong)
{
    if (strong.size() != a.nnz() || (a.nnz() > 0 && !beside(a, strong)))
        throw std::logic_error("classical coarsening: a strength of another matrix or on another executor");
}

}  // namespace

template <typename V>
Array<std::uint8_t> classical_strength(const Csr<V>& a, double theta)
{
    const Executor& exec = *a.executor();
    Array<std::uint8_t> strong(a.executor(), a.nnz());
    if (a.rows > 0)
        GPUFEM_DISPATCH(exec, classical_strength(exec, a.rows, a.row_ptr.data(), a.col_idx.data(), a.values.data(),
                                                 theta, strong.data()));
    return strong;
}

template <typename V>
CoarseSplitting pmis_splitting(const Csr<V>& a, const Array<std::uint8_t>& strong)
{
    check_sizes(a, strong);
    const Executor& exec = *a.executor();
    CoarseSplitting s;
    s.coarse_of = Array<index_type>(a.executor(), static_cast<std::size_t>(a.rows));
    if (a.rows == 0) return s;
    const PmisCount count = GPUFEM_DISPATCH(
        exec, pmis_split(exec, a.rows, a.row_ptr.data(), a.col_idx.data(), strong.data(), s.coarse_of.data()));
    s.count = count.count;
    s.rounds = count.rounds;
    return s;
}

template <typename V>
Csr<V> extended_interpolation(const Csr<V>& a, const Array<std::uint8_t>& strong, const CoarseSplitting& splitting,
                              int max_entries)
{
    check_sizes(a, strong);
    if (splitting.coarse_of.size() != static_cast<std::size_t>(a.rows) || (a.rows > 0 && !beside(a, splitting.coarse_of)))
        throw std::logic_error("classical coarsening: a splitting of another matrix or on another executor");
    const Executor& exec = *a.executor();
    return GPUFEM_DISPATCH(exec, classical_interpolation(exec, a, strong.data(), splitting.coarse_of.data(),
                                                         splitting.count, max_entries));
}

template Array<std::uint8_t> classical_strength(const Csr<float>&, double);
template Array<std::uint8_t> classical_strength(const Csr<double>&, double);
template CoarseSplitting pmis_splitting(const Csr<float>&, const Array<std::uint8_t>&);
template CoarseSplitting pmis_splitting(const Csr<double>&, const Array<std::uint8_t>&);
template Csr<float> extended_interpolation(const Csr<float>&, const Array<std::uint8_t>&, const CoarseSplitting&, int);
template Csr<double> extended_interpolation(const Csr<double>&, const Array<std::uint8_t>&, const CoarseSplitting&,
                                            int);

}  // namespace gpufem
