#include "assembly/lagrange_discretisation.hpp"

#include <any>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/fe_fluxes.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/pa_transfer.hpp"
#include "assembly/pmg_coarse_operators.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/stage_laps.hpp"
#include "assembly/operator_levels.hpp"

namespace gpufem {

template <typename V>
LagrangeDiscretisation<V>::LagrangeDiscretisation(const Mesh& mesh, const ProblemSpec& problem,
                                                  bool first_level_from_factors, bool through_degree_two)
    : mesh_(mesh), space_(isoparametric_space(mesh)), problem_(problem),
      pmg_degrees_(mesh.degree > 1 ? pmg_coarse_degrees(mesh.degree, first_level_from_factors && has_box_cells(mesh),
                                                      through_degree_two && has_simplex_cells(mesh))
                                   : std::vector<int>{})
{
    check_degree_for_cells(mesh, mesh.degree);  // a MeshSourceError, a std::runtime_error
}

template <typename V>
std::string LagrangeDiscretisation<V>::describe() const
{
    return fmt::format("Lagrange finite elements of degree {}", space_.degree);
}

template <typename V>
LinearSystem<V> LagrangeDiscretisation<V>::assemble(const ExecPtr& exec, CsrOffsets offsets) const
{
    return assemble_poisson<V>(exec, mesh_, problem_, offsets);
}

template <typename V>
DiscreteSystem<V> LagrangeDiscretisation<V>::assemble_matrix_free(const ExecPtr& exec,
                                                                  const OperatorLevelEntry& level,
                                                                  const FormatOptions& options) const
{
    const ElementOperatorBuilder<V> build = level.builder<V>();
    if (!build) throw std::invalid_argument("format '" + level.name + "' is not available for finite elements");
    return build(exec, mesh_, problem_, options);
}

template <typename V>
std::vector<Csr<V>> LagrangeDiscretisation<V>::pmg_interpolations(const ExecPtr& exec) const
{
    return gpufem::pmg_interpolations<V>(mesh_, exec, true, pmg_degrees_);
}

template <typename V>
std::optional<PmgMatrixFreeTransfers<V>> LagrangeDiscretisation<V>::pmg_matrix_free_transfers(const ExecPtr& exec) const
{
    std::optional<TransferOperators<V>> first =
        pa_first_transfer<V>(mesh_, exec, pmg_degrees_.empty() ? 0 : pmg_degrees_.front());
    if (!first) return std::nullopt;
    return PmgMatrixFreeTransfers<V>{std::move(*first),
                                     gpufem::pmg_interpolations<V>(mesh_, exec, false, pmg_degrees_)};
}

template <typename V>
std::vector<std::optional<StructuredGrid>> LagrangeDiscretisation<V>::pmg_coarse_grids() const
{
    return gpufem::pmg_coarse_grids(mesh_, pmg_degrees_);
}

template <typename V>
std::vector<Csr<V>> LagrangeDiscretisation<V>::pmg_coarse_operators(const ExecPtr& exec,
                                                                    const LinearOperator<V>* op,
                                                                    bool first_given) const
{
    return gpufem::pmg_coarse_operators<V>(exec, mesh_, problem_, op, first_given, pmg_degrees_);
}

template <typename V>
SolutionOutput LagrangeDiscretisation<V>::solution_output(const Array<V>& u) const
{
    SolutionOutput out;
    StageLaps laps;  // the debug line below: where the errors phase goes
    std::optional<EquispacedConversion> equispaced;
    if (equispaced_points_) equispaced.emplace(u.executor(), mesh_);
    out.point_fields_equispaced = equispaced.has_value();
    HostVector<V> uh = equispaced ? equispaced->converted(u).to_host_vector() : u.to_host_vector();
    if constexpr (std::is_same_v<V, double>)
        out.point_fields.push_back({"u", std::move(uh)});  // no second host copy
    else
        out.point_fields.push_back({"u", HostVector<double>(uh.begin(), uh.end())});
    laps.lap("u to the host");
    this->solution_is_ready(out.point_fields.front());  // its buffer stays put as fields are added
    laps.lap("u handed over");
    if (this->flux_output()) {
        // The cells' fields go to the callback as soon as they are on the host; their values
        // stay where they are as they are moved into out.
        SolutionFluxes fluxes = fe_fluxes(mesh_, problem_, u, {},
                                           {this->flux_fields_float32(), this->cell_fields_ready(),
                                            equispaced ? &*equispaced : nullptr});
        for (MeshField& field : fluxes.point_fields) out.point_fields.push_back(std::move(field));
        for (MeshField& field : fluxes.cell_fields) out.cell_fields.push_back(std::move(field));
        out.fluxes = std::move(fluxes.report);
        laps.lap("fluxes");
    }
    if (!problem_.exact.empty()) {
        // The fields at the equispaced points converted on u's executor, as the others.
        NodalErrors errors = compute_errors(mesh_, u, Expression(problem_.exact), equispaced ? &*equispaced : nullptr);
        out.errors = errors.norms;
        laps.lap("error norms");
        // Moved in, not copied (a braced list of fields would copy two arrays of a value per node).
        out.point_fields.emplace_back("u_exact", std::move(errors.exact));
        out.point_fields.emplace_back("error", std::move(errors.error));
        laps.lap("error fields");
    }
    spdlog::debug("solution output: {}", laps.text);
    return out;
}

template <typename V>
bool LagrangeDiscretisation<V>::give_equispaced_point_fields()
{
    equispaced_points_ = mesh_has_gll_nodes(mesh_);
    return equispaced_points_;
}

template class LagrangeDiscretisation<float>;
template class LagrangeDiscretisation<double>;

}  // namespace gpufem
