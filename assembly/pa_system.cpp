#include "assembly/pa_system.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "assembly/boundary_conditions.hpp"
#include "assembly/phase_clock.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/element_data.hpp"
#include "assembly/mesh_check.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/reference_element.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

/// Throws naming the format where the mesh needs what pa does not have.
void check_pa_applies(const Mesh& mesh)
{
    if (mesh.is_mixed())
        throw std::invalid_argument("format pa: the mesh mixes cell types; sum factorisation needs only "
                                    "quadrilaterals or only hexahedra (use lma or an assembled format)");
}

}  // namespace

template <typename V>
PaSystem<V> assemble_pa_system(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                               const DirichletAdjustment<V>& adjust)
{
    check_pa_applies(mesh);
    check_boundary_groups(mesh, problem);
    const ReferenceElement ref = assembly_reference_element(mesh);
    const PaTensorBasis basis = make_pa_tensor_basis(ref);
    PaSystem<V> system;
    // det J's signs come with the operator's point factors (by sum factorisation on a GPU).
    const ElementData<V> data = timed_problem_element_data<V>(exec, mesh, ref, problem, system.times, false);

    auto start = phase_clock::now();
    Array<double> coordinate_storage;
    const double* coordinates = double_coordinates(mesh, data, coordinate_storage);
    DirichletData<V> dirichlet = dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet);
    if (adjust) adjust(dirichlet);
    system.dirichlet_count = dirichlet.count;
    Array<std::uint8_t> mask;
    if (dirichlet.count > 0) mask = std::move(dirichlet.mask);
    system.initial_guess = std::move(dirichlet.values);
    system.rhs = Array<V>(exec, mesh.num_nodes());
    fill(system.rhs, V(0));
    add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
    RobinFacets robin = robin_facets(mesh, coordinates, problem.robin, system.rhs);
    system.times.boundary += phase_seconds(*exec, start);

    start = phase_clock::now();
    system.op = std::make_unique<PaOperator<V>>(exec, data, basis, mask, system.rhs, std::move(robin));
    system.times.values += phase_seconds(*exec, start);
    start = phase_clock::now();
    check_jacobian_signs(mesh, system.op->jacobian_signs(), data.num_points, exec);
    system.times.geometry += phase_seconds(*exec, start);

    start = phase_clock::now();
    system.op->eliminate_dirichlet(system.initial_guess, system.rhs);
    system.times.boundary += phase_seconds(*exec, start);
    return system;
}

template PaSystem<float> assemble_pa_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                           const DirichletAdjustment<float>&);
template PaSystem<double> assemble_pa_system(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                            const DirichletAdjustment<double>&);

}  // namespace gpufem
