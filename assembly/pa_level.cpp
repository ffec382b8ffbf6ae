// The partial-assembly level `pa` in the operator level registry: the builder the
// finite-element discretisation calls and its memory model. No options yet.
#include "assembly/operator_levels.hpp"
#include "assembly/phase_clock.hpp"
#include "assembly/pa_system.hpp"
#include "assembly/part_pa_operator.hpp"

namespace gpufem {
namespace {

template <typename V>
DiscreteSystem<V> build_pa(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem, const FormatOptions&)
{
    const auto start = phase_clock::now();
    PaSystem<V> pa = assemble_pa_system<V>(exec, mesh, problem);
    DiscreteSystem<V> system;
    system.op.op = std::move(pa.op);
    system.op.convert_seconds = phase_seconds(*exec, start);
    system.rhs = std::move(pa.rhs);
    system.initial_guess = std::move(pa.initial_guess);
    system.dirichlet_count = pa.dirichlet_count;
    system.assembly_times = pa.times;  // the operator is its point factors: all in assembly
    return system;
}

/// The pa system of a rank's part (assembly/part_pa_operator.hpp).
template <typename V>
PartMatrixFreeSystem<V> build_part_pa(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                      const ProblemSpec& problem, const FormatOptions&,
                                      const DirichletAdjustment<V>& owners_dirichlet)
{
    return assemble_part_pa_system<V>(exec, mesh, owned, problem, owners_dirichlet);
}

}  // namespace

OperatorLevelEntry pa_level_entry()
{
    OperatorLevelEntry e;
    e.name = "pa";
    e.summary = "matrix-free: partial assembly on quadrilaterals and hexahedra, the geometry and "
                "coefficients kept at the quadrature points (once per cell on affine cells with "
                "constant coefficients) and each apply computed by sum factorisation "
                "(one-dimensional contractions), so its memory and traffic grow like the points, "
                "not like element matrices";
    e.build_float = build_pa<float>;
    e.build_double = build_pa<double>;
    // pmg's first coarse operator comes from the point factors (PaOperator::add_element_galerkin).
    e.keeps_element_matrices = [](const FormatOptions&) { return true; };
    e.coarse_level_from_factors = true;  // PaOperator::coarse_level
    e.build_part_float = build_part_pa<float>;
    e.build_part_double = build_part_pa<double>;
    e.memory = [](const MatrixShape& m, const FormatOptions&) {
        // A box of degree k has (k + 1)^d nodes and as many Gauss points: per point the packed
        // G (6 values in 3D; 3 in 2D bounded by the 3D figure) plus up to 4 lower-order
        // factors, per cell its node indices; per row the diagonal, mask and Dirichlet index.
        // The build adds the points' loads.
        const double p = m.nodes_per_cell;
        const double stored = m.cells * p * (10 * m.value_bytes + 4) + m.rows * (m.value_bytes + 5);
        return FormatMemory{stored, stored + m.cells * p * m.value_bytes, 0};
    };
    return e;
}

}  // namespace gpufem
