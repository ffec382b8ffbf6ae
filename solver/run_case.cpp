#include "solver/run_case.hpp"

#include <chrono>
#include <numeric>

#include <spdlog/spdlog.h>

#include "assembly/error_norms.hpp"
#include "assembly/lma_system.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/vtk_writer.hpp"
#include "solver/krylov.hpp"
#include "solver/output_files.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

template <typename V>
void solve_and_write(const CaseSpec& spec, const RunOptions& options, const ExecPtr& exec,
                     const Mesh& mesh, RunRecord& record)
{
    spdlog::info("assembling on {} ({})", backend_name(exec->backend()), exec->device_name());
    FormatBuild<V> format;
    Array<V> b, x;
    auto start = clock_type::now();
    if (spec.format == "lma") {
        // Matrix-free: element matrices and loads, no assembled matrix at any point.
        LmaSystem<V> lma = assemble_lma_system<V>(exec, mesh, spec.problem, spec.format_options);
        record.time_assembly = lma.times;
        record.time_operator = 0;  // the operator is the element matrices: all in assembly
        record.rows = mesh.num_nodes();
        record.dirichlet_rows = lma.dirichlet_count;
        format = std::move(lma.format);
        b = std::move(lma.rhs);
        x = std::move(lma.initial_guess);
        spdlog::info("element matrices of {} cells kept (matrix-free) in {:.3f} s", mesh.num_cells(),
                     lma.times.total());
    } else {
        LinearSystem<V> system = assemble_poisson<V>(exec, mesh, spec.problem);
        record.time_assembly = system.times;
        record.rows = system.matrix.rows;
        record.nnz = system.matrix.nnz();
        record.row_stats = row_stats(system.matrix);
        record.dirichlet_rows = system.dirichlet_count;
        spdlog::info("assembled {} unknowns, {} non-zeros in {:.3f} s", record.rows, record.nnz,
                     system.times.total());
        start = clock_type::now();
        format = build_format<V>(spec.format, std::move(system.matrix), spec.format_options);
        record.time_operator = seconds_since(start);
        b = std::move(system.rhs);
        x = std::move(system.initial_guess);
    }
    if (record.dirichlet_rows == 0)
        spdlog::warn("no Dirichlet condition: the matrix is singular; a Krylov solver finds a "
                     "solution only if the data are compatible, defined up to a constant");
    const LinearOperator<V>& op = *format.op;
    record.bytes_stored = op.bytes_stored();
    record.spmv_min_bytes = op.spmv_min_bytes();
    record.format_host_steps = format.host_steps;
    spdlog::info("format {}: converted in {:.4f} s{}{}", spec.format, format.convert_seconds,
                 op.parameters().empty() ? "" : ", " + op.parameters(),
                 format.host_steps.empty() ? "" : " (on the host: " + format.host_steps + ")");

    // Formats that renumber the unknowns (bdia, staircase) solve in their own order.
    const bool permuted = !format.permutation.empty();
    if (permuted) {
        Array<V> tmp(exec, b.size());
        permute_vector(format.permutation, b, tmp, false);
        b.swap(tmp);
        permute_vector(format.permutation, x, tmp, false);
        x.swap(tmp);
    }

    SolveOptions solve_options;
    solve_options.tolerance = spec.solver.tolerance;
    solve_options.max_iterations = spec.solver.max_iterations;
    solve_options.preconditioner = parse_preconditioner(spec.solver.preconditioner);
    solve_options.check_every = spec.solver.check_every;
    solve_options.graph = parse_graph_mode(spec.solver.cuda_graph);
    solve_options.time_spmv = spec.solver.time_spmv;
    spdlog::info("solving with {} ({}, preconditioner {}, tolerance {:.1e}, at most {} iterations)",
                 spec.solver.method, spec.solver.variant, spec.solver.preconditioner,
                 spec.solver.tolerance, spec.solver.max_iterations);
    start = clock_type::now();
    record.solve = solve(parse_method(spec.solver.method), parse_variant(spec.solver.variant), op, b,
                         x, solve_options);
    exec->synchronize();
    record.time_solve = seconds_since(start);
    record.spmv_seconds = record.solve.spmv_seconds;
    record.spmv_clock = record.solve.spmv_clock;
    record.spmvs_per_iteration = spec.solver.method == "bicgstab" ? 2 : 1;
    record.format_parameters = op.parameters();
    if (!record.format_parameters.empty())
        spdlog::info("format {} after the solve: {}", spec.format, record.format_parameters);
    if (record.solve.converged()) {
        spdlog::info("{}", record.solve.message);
    } else {
        spdlog::error("solver {}: {}", solve_status_name(record.solve.status), record.solve.message);
    }
    if (permuted) {
        Array<V> tmp(exec, x.size());
        permute_vector(format.permutation, x, tmp, true);
        x.swap(tmp);
    }

    const std::vector<V> xh = x.to_host();
    const std::vector<double> u(xh.begin(), xh.end());
    std::vector<MeshField> point_fields{{"u", u}};
    start = clock_type::now();
    if (!spec.problem.exact.empty()) {
        const Expression exact(spec.problem.exact);
        record.errors = compute_errors(mesh, u, exact);
        std::vector<double> exact_values = nodal_values(mesh, exact);
        std::vector<double> error(u.size());
        for (std::size_t i = 0; i < u.size(); ++i) error[i] = u[i] - exact_values[i];
        point_fields.push_back({"u_exact", std::move(exact_values)});
        point_fields.push_back({"error", std::move(error)});
    }
    record.time_errors = seconds_since(start);

    if (!options.write_outputs) return;
    start = clock_type::now();
    StagedOutputs outputs(output_folder(spec, options));
    write_vtu(outputs.stage("result.vtu"), mesh, point_fields, {});
    outputs.write_text("spmv_timings.csv", make_spmv_csv(record));
    record.time_output = seconds_since(start);
    outputs.write_text("report.json", make_report(spec, record).dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote result.vtu, report.json, spmv_timings.csv to {}", outputs.dir().string());
}

}  // namespace

std::filesystem::path output_folder(const CaseSpec& spec, const RunOptions& options)
{
    if (!options.output_dir.empty()) return options.output_dir;
    const auto folder = spec.case_path.empty() ? std::filesystem::current_path()
                                               : spec.case_path.parent_path();
    return folder / spec.name;
}

std::string resolve_backend(const std::string& backend)
{
    if (backend == "cpu") return "cpu";
    if (backend == "cuda") {
        if (Executor::cuda_device_count() == 0)
            throw std::runtime_error(Executor::cuda_built()
                                         ? "backend 'cuda' requested but no CUDA device is present"
                                         : "backend 'cuda' requested but gpufem was built without CUDA");
        return "cuda";
    }
    return Executor::cuda_device_count() > 0 ? "cuda" : "cpu";
}

RunRecord run_case(const CaseSpec& spec, const RunOptions& options)
{
    RunRecord record;
    record.backend = resolve_backend(spec.backend);
    const ExecPtr exec = record.backend == "cuda" ? Executor::create_cuda(0) : Executor::create_cpu();
    record.device = exec->device_name();
    record.precision = spec.precision;
    record.format = spec.format;
    if (spec.precision == "float" && spec.solver.tolerance < 1e-6)
        spdlog::warn("solver.tolerance {:.1e} is below what float arithmetic can reach; the "
                     "solve may stop at max_iterations", spec.solver.tolerance);

    spdlog::info("case {}: loading mesh", spec.name);
    auto start = clock_type::now();
    const Mesh mesh = load_mesh(spec.mesh);
    record.time_mesh = seconds_since(start);
    record.mesh_source = mesh.source;
    record.dim = mesh.dim;
    record.cell_type = element_type_name(mesh.cell_type);
    record.nodes = mesh.num_nodes();
    record.cells = mesh.num_cells();
    record.boundary_groups = mesh.boundary_names();
    if (mesh.cell_type == ElementType::tetrahedron && spec.mesh.refine > 0)
        spdlog::warn("mesh.refine on tetrahedra: Gmsh splits each tetrahedron into 8 along an "
                     "arbitrary inner diagonal, which degrades the cells and slows convergence; "
                     "prefer a smaller mesh.size");
    spdlog::info("mesh: {} cells ({}), {} nodes ({:.3f} s)", record.cells, record.cell_type, record.nodes,
                 record.time_mesh);

    if (spec.precision == "float") {
        solve_and_write<float>(spec, options, exec, mesh, record);
    } else {
        solve_and_write<double>(spec, options, exec, mesh, record);
    }
    return record;
}

}  // namespace gpufem
