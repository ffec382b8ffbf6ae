#pragma once
// The warning of a float run whose case data holds numbers float cannot represent: they
// would become zero or infinite when the coefficients are evaluated in float.
#include <string>
#include <vector>

#include "assembly/problem_spec.hpp"

namespace gpufem {

/// One sentence per expression of problem (kappa, f, exact, the boundary conditions) that
/// holds a number literal outside float's range (below its smallest normal value or above its
/// largest): "problem.f holds 1e-300, ..."; empty when every literal fits.
std::vector<std::string> float_range_warnings(const ProblemSpec& problem);

}  // namespace gpufem
