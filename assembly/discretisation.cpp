#include "assembly/discretisation.hpp"

#include "assembly/operator_levels.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/reordering.hpp"

namespace gpufem {
namespace {

/// A system has one row per unknown its discretisation's space owns here (ghosts are not
/// rows); anything else is a discretisation's bug, caught before a solve reads past a vector.
template <typename V>
DiscreteSystem<V> checked_rows(DiscreteSystem<V> system, const Discretisation<V>& disc)
{
    const index_type owned = disc.space().layout.owned;
    if (system.rhs.size() != static_cast<std::size_t>(owned))
        throw std::logic_error(fmt::format("{}: its system has {} rows, its space ({}) owns {} unknowns",
                                           disc.describe(), system.rhs.size(), disc.space().describe(), owned));
    system.discretisation = &disc;
    return system;
}

}  // namespace

template <typename V>
DiscreteSystem<V> build_system(const ExecPtr& exec, const Discretisation<V>& disc, const OperatorChoice& choice,
                               const FormatOptions& options, bool keep_matrix)
{
    choice.entry().require(exec->backend());
    if (const OperatorLevelEntry* level = choice.level) {
        if (options.reordering() != Reordering::none)
            throw std::invalid_argument(
                "reorder: " + std::string(enum_name(reordering_names, options.reordering())) +
                " applies to the assembled formats; format " + level->name +
                " is matrix-free and works in the mesh's numbering of its element matrices "
                "(use reorder: none, or an assembled format)");
        DiscreteSystem<V> system = disc.assemble_matrix_free(exec, *level, options);
        system.format = level->name;
        if (keep_matrix) {
            LinearSystem<V> assembled = disc.assemble(exec);
            if (assembled.wide_matrix)
                throw std::runtime_error(fmt::format(
                    "the assembled matrix for the preconditioner has {} non-zeros, past the 2,147,483,647 "
                    "its 32-bit row offsets hold; use a preconditioner that needs no assembled matrix "
                    "(jacobi, none, or pmg where it has coarser levels)", assembled.wide_matrix->nnz()));
            AssemblyTimes& t = system.assembly_times;  // the matrix for the preconditioner
            t.geometry += assembled.times.geometry;
            t.coefficients += assembled.times.coefficients;
            t.pattern += assembled.times.pattern;
            t.values += assembled.times.values;
            t.boundary += assembled.times.boundary;
            system.assembled = std::move(assembled.matrix);
        }
        return checked_rows(std::move(system), disc);
    }
    const FormatEntry& format = *choice.format;
    const bool wide = format.wide_offsets_asked(options);
    return checked_rows(
        convert_system(disc.assemble(exec, wide ? CsrOffsets::wide : CsrOffsets::fit), format, options, keep_matrix),
        disc);
}

template <typename V>
std::vector<Csr<V>> pmg_interpolations_in_order(const Discretisation<V>& disc,
                                                const Array<index_type>& permutation, const ExecPtr& exec)
{
    std::vector<Csr<V>> transfers = disc.pmg_interpolations(exec);
    if (!transfers.empty() && !permutation.empty()) transfers[0] = permute_rows(transfers[0], permutation);
    return transfers;
}

template <typename V>
DiscreteSystem<V> convert_system(LinearSystem<V> assembled, const FormatEntry& format,
                                 const FormatOptions& options, bool keep_matrix)
{
    DiscreteSystem<V> system;
    system.format = format.name;
    system.rhs = std::move(assembled.rhs);
    system.initial_guess = std::move(assembled.initial_guess);
    system.dirichlet_count = assembled.dirichlet_count;
    system.assembly_times = assembled.times;
    const auto start = std::chrono::steady_clock::now();
    if (assembled.wide_matrix) {
        // 64-bit offsets: the formats that take them, no copy for a preconditioner (amg reads
        // 32-bit offsets; pmg builds its coarse operators from the element matrices).
        const WideCsr<V>& a = *assembled.wide_matrix;
        system.matrix = MatrixStats{a.rows, a.nnz(), row_stats(a)};
        system.wide_offsets = true;
        system.op = build_format(format, std::move(*assembled.wide_matrix), options);
        system.operator_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return system;
    }
    system.matrix = MatrixStats{assembled.matrix.rows, assembled.matrix.nnz(), row_stats(assembled.matrix)};
    // A kept matrix is copied only when the format does not keep the CSR arrays itself
    // (LinearOperator::stored_csr): csr, csr-scalar and cusparse share theirs.
    std::optional<Csr<V>> kept;
    if (keep_matrix && !format.keeps_csr)
        kept = assembled.matrix.clone_to(assembled.matrix.executor());
    system.op = build_format(format, std::move(assembled.matrix), options);
    if (keep_matrix && format.keeps_csr && !system.op.op->stored_csr())
        throw std::logic_error("format " + format.name + " declares keeps_csr but keeps none");
    if (kept && !system.op.permutation.empty())
        kept = permute_symmetric(*kept, system.op.permutation);
    system.assembled = std::move(kept);
    system.operator_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return system;
}

template std::vector<Csr<float>> pmg_interpolations_in_order(const Discretisation<float>&,
                                                              const Array<index_type>&, const ExecPtr&);
template std::vector<Csr<double>> pmg_interpolations_in_order(const Discretisation<double>&,
                                                               const Array<index_type>&, const ExecPtr&);
template DiscreteSystem<float> convert_system(LinearSystem<float>, const FormatEntry&,
                                              const FormatOptions&, bool);
template DiscreteSystem<double> convert_system(LinearSystem<double>, const FormatEntry&,
                                               const FormatOptions&, bool);
template DiscreteSystem<float> build_system(const ExecPtr&, const Discretisation<float>&, const OperatorChoice&,
                                            const FormatOptions&, bool);
template DiscreteSystem<double> build_system(const ExecPtr&, const Discretisation<double>&, const OperatorChoice&,
                                             const FormatOptions&, bool);

}  // namespace gpufem
