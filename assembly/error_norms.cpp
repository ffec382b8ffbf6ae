#include "assembly/error_norms.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <stdexcept>

#include "assembly/cell_blocks.hpp"
#include "assembly/element_data.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/quadrature.hpp"
#include "assembly/reference_element.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

/// Throws naming the first node where the exact solution (its values at the nodes,
/// exact_values) is not finite; returns when it is finite at every node.
void check_exact_is_finite(const Mesh& mesh, const Expression& exact, const HostVector<double>& exact_values)
{
    for (std::size_t i = 0; i < exact_values.size(); ++i)
        if (!std::isfinite(exact_values[i])) {
            const double* x = &mesh.node_coordinates()[3 * i];
            throw std::runtime_error(fmt::format(
                "problem.exact = '{}' is {} at ({:.6g}, {:.6g}, {:.6g}) (node {}): the error "
                "norms need an exact solution that is finite everywhere",
                exact.text(),
                std::isnan(exact_values[i]) ? "NaN" : (exact_values[i] > 0 ? "+infinity" : "-infinity"), x[0],
                x[1], x[2], i));
        }
}

}  // namespace

template <typename V>
NodalErrors compute_errors(const Mesh& mesh, const Array<V>& u, const Expression& exact,
                           const EquispacedConversion* equispaced)
{
    if (u.size() != static_cast<std::size_t>(mesh.num_nodes()))
        throw std::invalid_argument("compute_errors: one value per node expected");
    const ExecPtr& exec = u.executor();
    StageLaps laps;
    const Array<ExprInstruction> program = program_on(exec, exact);
    // The integrals over the mesh, or over each cell type's block of a mesh of several types.
    ErrorSums sums;
    ElementData<double> geometry;
    const auto integrate = [&](const Mesh& cells) {
        // Exact to degree 2k+2 with the fewest points (the integrands are smooth: negative
        // weights do no harm; on tetrahedra 35 points instead of 64 at P2).
        const ReferenceElement ref = make_reference_element(
            cells.cell_type, cells.degree, fewest_points_rule(cells.cell_type, 2 * cells.degree + 2));
        geometry = make_geometry_data<double>(exec, cells, ref);
        laps.lap_after(*exec, "geometry");
        const ErrorSums part = GPUFEM_DISPATCH(*exec, error_integrals(*exec, program.data(), geometry, u.data()));
        laps.lap("integrals");
        sums.l2 += part.l2;
        sums.h1 += part.h1;
        sums.l2_exact += part.l2_exact;
    };
    if (!mesh.is_mixed()) {
        integrate(mesh);
    } else {
        std::vector<CellBlock> blocks = cell_blocks(mesh);
        laps.lap("cell blocks");
        for (CellBlock& block : blocks) {
            const BlockDeviceCopy on_device(block.mesh, mesh, exec);
            integrate(block.mesh);
        }
    }
    const index_type n = mesh.num_nodes();
    Array<double> exact_values(exec, n), error(exec, n);
    NodalErrors result;
    result.norms.max_nodal = GPUFEM_DISPATCH(
        *exec, nodal_errors(*exec, program.data(), geometry.coordinates.data(), n, u.data(),
                            exact_values.data(), error.data()));
    result.norms.l2 = std::sqrt(sums.l2);
    result.norms.h1_semi = std::sqrt(sums.h1);
    result.norms.l2_exact = std::sqrt(sums.l2_exact);
    exec->synchronize();
    laps.lap("nodal values");
    // An exact solution that is not finite somewhere gives no error norm: say where, rather
    // than report a norm of NaN (once shown as null with a relative error of 0). The largest
    // nodal error is NaN or infinite wherever an exact value is: only then is the node sought.
    if (!std::isfinite(result.norms.max_nodal)) check_exact_is_finite(mesh, exact, exact_values.to_host_vector());
    if (equispaced) {
        result.exact = equispaced->converted(exact_values).to_host_vector();
        result.error = equispaced->converted(error).to_host_vector();
    } else {
        result.exact = exact_values.to_host_vector();
        result.error = error.to_host_vector();
    }
    laps.lap("copies to the host");
    if (!std::isfinite(sums.l2_exact))
        throw std::runtime_error(fmt::format(
            "problem.exact = '{}' is not finite at some quadrature point of the error integrals: "
            "the error norms need an exact solution that is finite everywhere in the domain",
            exact.text()));
    laps.lap("checks");
    spdlog::debug("error norms: {}", laps.text);
    return result;
}

ErrorNorms compute_errors(const Mesh& mesh, std::span<const double> u, const Expression& exact)
{
    const Array<double> on_host = Array<double>::from_host(Executor::create_cpu(), u);
    return compute_errors(mesh, on_host, exact).norms;
}

template NodalErrors compute_errors(const Mesh&, const Array<float>&, const Expression&, const EquispacedConversion*);
template NodalErrors compute_errors(const Mesh&, const Array<double>&, const Expression&, const EquispacedConversion*);

}  // namespace gpufem
