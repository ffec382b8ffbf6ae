#include "assembly/discretisation.hpp"

#include <chrono>
#include <stdexcept>

namespace gpufem {

template <typename V>
DiscreteSystem<V> build_system(const ExecPtr& exec, const Discretisation<V>& disc,
                               const FormatEntry& format, const FormatOptions& options)
{
    if (!format.available_on(exec->backend()))
        throw std::invalid_argument("format '" + format.name + "' needs the " +
                                    (format.on_cuda ? "cuda" : "cpu") + " backend");
    if (format.matrix_free()) return disc.assemble_matrix_free(exec, format, options);
    LinearSystem<V> assembled = disc.assemble(exec);
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

template DiscreteSystem<float> build_system(const ExecPtr&, const Discretisation<float>&,
                                            const FormatEntry&, const FormatOptions&);
template DiscreteSystem<double> build_system(const ExecPtr&, const Discretisation<double>&,
                                             const FormatEntry&, const FormatOptions&);

}  // namespace gpufem
