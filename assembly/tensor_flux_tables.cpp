#include "assembly/tensor_flux_tables.hpp"

#include <vector>

#include "assembly/pa_tensor_basis.hpp"
#include "assembly/poisson_assembly.hpp"

namespace gpufem {
namespace {

/// values converted to V on exec.
template <typename V>
Array<V> table_on(const ExecPtr& exec, const std::vector<double>& values)
{
    return Array<V>::from_host(exec, std::vector<V>(values.begin(), values.end()));
}

}  // namespace

template <typename V>
std::optional<TensorFluxTables<V>> TensorFluxTables<V>::make(const ExecPtr& exec, const Mesh& mesh)
{
    const bool box = mesh.cell_type == ElementType::hexahedron || mesh.cell_type == ElementType::quadrilateral;
    if (mesh.is_mixed() || !box || mesh.degree < 2 || mesh.degree + 1 > tensor_flux_max_p1)
        return std::nullopt;
    const PaTensorBasis basis = make_pa_tensor_basis(assembly_reference_element(mesh));
    if (basis.q1 != basis.p1) return std::nullopt;
    TensorFluxTables tables;
    tables.p1_ = basis.p1;
    tables.gmsh_of_lex_ = Array<int>::from_host(exec, basis.gmsh_of_lex);
    tables.rule_of_lex_ = Array<int>::from_host(exec, basis.rule_of_lex);
    tables.basis_ = table_on<V>(exec, basis.basis);
    tables.derivative_ = table_on<V>(exec, basis.derivative);
    std::vector<double> identity(static_cast<std::size_t>(basis.p1 * basis.p1), 0.0);
    for (int i = 0; i < basis.p1; ++i) identity[static_cast<std::size_t>(i * basis.p1 + i)] = 1.0;
    tables.identity_ = table_on<V>(exec, identity);
    tables.node_derivative_ = table_on<V>(exec, basis.derivative_at_nodes);
    return tables;
}

template <typename V>
TensorFluxArgs<V> TensorFluxTables<V>::at_points() const
{
    return {p1_, gmsh_of_lex_.data(), rule_of_lex_.data(), basis_.data(), derivative_.data()};
}

template <typename V>
TensorFluxArgs<V> TensorFluxTables<V>::at_nodes() const
{
    return {p1_, gmsh_of_lex_.data(), gmsh_of_lex_.data(), identity_.data(), node_derivative_.data()};
}

template class TensorFluxTables<float>;
template class TensorFluxTables<double>;

}  // namespace gpufem
