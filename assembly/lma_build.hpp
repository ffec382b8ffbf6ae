#pragma once
// The `lma` format: element matrices computed on the executor and kept as an LMA operator,
// with the Dirichlet nodes of the problem eliminated like in the assembled matrix.
#include "assembly/problem_spec.hpp"
#include "linalg/format_build.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Computes every cell's element matrix (element kernels of the mesh's order) and builds the
/// LMA operator (options.lma_colour: colour or atomic scatter; options.lma_symmetric). The
/// operator is the assembled system's matrix after symmetric Dirichlet elimination, so the
/// right-hand side and initial guess of assemble_poisson go with it unchanged.
template <typename V>
FormatBuild<V> build_lma_format(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                const FormatOptions& options);

}  // namespace gpufem
