#pragma once
// The `lma` format: element matrices computed on the executor and kept as an LMA operator,
// with the Dirichlet nodes of the problem eliminated like in the assembled matrix.
#include "assembly/problem_spec.hpp"
#include "linalg/format_build.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The operator of assemble_lma_system (lma_system.hpp) alone: every cell's element matrix
/// kept as an LMA operator (options.lma_colour: colour or atomic scatter; lma_symmetric;
/// lma_kernel). It is the assembled system's matrix after symmetric Dirichlet elimination, so
/// the right-hand side and initial guess of assemble_poisson (or of assemble_lma_system) go
/// with it unchanged. convert_seconds covers the element kernels and the layout.
template <typename V>
FormatBuild<V> build_lma_format(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                const FormatOptions& options);

}  // namespace gpufem
