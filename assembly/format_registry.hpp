#pragma once
// Every format a case can name: linalg's assembled formats plus the matrix-free formats the
// finite-element discretisation builds from its mesh (lma), registered in
// assembly/format_registry.cpp.
#include "assembly/discretisation.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/format_registry.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Builds a matrix-free system from the finite-element mesh and problem on exec: the
/// operator (with its diagonal), the right-hand side and initial guess of the assembled
/// system (Dirichlet conditions eliminated the same way).
template <typename V>
using ElementOperatorBuilder = DiscreteSystem<V> (*)(const ExecPtr& exec, const Mesh& mesh,
                                                     const ProblemSpec& problem,
                                                     const FormatOptions& options);

/// What a matrix-free format built from element data keeps in
/// FormatEntry::build_from_discretisation.
struct ElementOperatorBuilders {
    ElementOperatorBuilder<float> build_float = nullptr;
    ElementOperatorBuilder<double> build_double = nullptr;
};

/// Every format: assembled_formats() followed by the matrix-free ones.
const FormatRegistry& format_registry();

}  // namespace gpufem
