#include "assembly/discretisation.hpp"

#include <chrono>
#include <stdexcept>

namespace gpufem {

template <typename V>
DiscreteSystem<V> build_system(const ExecPtr& exec, const Discretisation<V>& disc,
                               const FormatEntry& format, const FormatOptions& options)
{
    format.require(exec->backend());
    if (format.matrix_free()) return disc.assemble_matrix_free(exec, format, options);
    return convert_system(disc.assemble(exec), format, options);
}

template <typename V>
DiscreteSystem<V> convert_system(LinearSystem<V> assembled, const FormatEntry& format,
                                 const FormatOptions& options)
{
    DiscreteSystem<V> system;
    system.matrix = MatrixStats{assembled.matrix.rows, assembled.matrix.nnz(), row_stats(assembled.matrix)};
    system.rhs = std::move(assembled.rhs);
    system.initial_guess = std::move(assembled.initial_guess);
    system.dirichlet_count = assembled.dirichlet_count;
    system.assembly_times = assembled.times;
    const auto start = std::chrono::steady_clock::now();
    system.op = build_format(format, std::move(assembled.matrix), options);
    system.operator_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return system;
}

template DiscreteSystem<float> convert_system(LinearSystem<float>, const FormatEntry&,
                                              const FormatOptions&);
template DiscreteSystem<double> convert_system(LinearSystem<double>, const FormatEntry&,
                                               const FormatOptions&);
template DiscreteSystem<float> build_system(const ExecPtr&, const Discretisation<float>&,
                                            const FormatEntry&, const FormatOptions&);
template DiscreteSystem<double> build_system(const ExecPtr&, const Discretisation<double>&,
                                             const FormatEntry&, const FormatOptions&);

}  // namespace gpufem
