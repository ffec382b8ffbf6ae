#include "assembly/lma_build.hpp"

#include <chrono>

#include "assembly/boundary_conditions.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/poisson_assembly.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_lma_format(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                const FormatOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    const ReferenceElement ref = make_reference_element(
        mesh.cell_type, mesh.order, assembly_quadrature_degree(mesh.cell_type, mesh.order));
    const ElementData<V> data =
        make_element_data<V>(exec, mesh, ref, Expression(problem.kappa), Expression(problem.f));
    const std::size_t npe = mesh.nodes_per_cell, cells = mesh.num_cells();
    Array<V> ke(exec, cells * npe * npe), fe(exec, cells * npe);
    if (exec->is_cuda()) {
        kernels::cuda::element_matrices(*exec, data, ke.data(), fe.data());
    } else {
        kernels::cpu::element_matrices(*exec, data, ke.data(), fe.data());
    }
    const DirichletNodes dirichlet = dirichlet_nodes(mesh, problem.dirichlet);
    const Array<std::uint8_t> mask = dirichlet.count > 0
                                         ? Array<std::uint8_t>::from_host(exec, dirichlet.mask)
                                         : Array<std::uint8_t>();
    LmaOptions lma;
    lma.scatter = options.lma_colour ? LmaScatter::colour : LmaScatter::atomic;
    lma.symmetric = options.lma_symmetric;
    FormatBuild<V> build;
    build.op = make_lma_operator<V>(exec, data.cells, static_cast<int>(npe), mesh.num_nodes(), ke,
                                    mask, lma);
    exec->synchronize();
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.lma_colour) build.host_steps = "element colouring (greedy)";
    return build;
}

template FormatBuild<float> build_lma_format(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                             const FormatOptions&);
template FormatBuild<double> build_lma_format(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                              const FormatOptions&);

}  // namespace gpufem
