#pragma once
// The PDE data of a case: -div(kappa grad u) + b . grad u = f with Dirichlet, Neumann and
// Robin conditions.
#include <string>
#include <vector>

namespace gpufem {

/// A boundary condition on one named physical group: u = value (Dirichlet) or
/// kappa du/dn = value (Neumann, outward normal), value an expression of x, y, z.
struct BoundaryCondition {
    std::string group;
    std::string expression;
};

/// A Robin condition on one named physical group: -kappa du/dn = h (u - u_inf) (outward
/// normal; a convective heat transfer with coefficient h >= 0 to an ambient value u_inf), h and
/// u_inf expressions of x, y, z.
struct RobinCondition {
    std::string group;
    std::string h;
    std::string u_inf = "0";
};

/// Coefficients and boundary data, all as expression texts (see Expression).
struct ProblemSpec {
    std::string kappa = "1";
    std::string f = "0";
    std::string exact;                         ///< optional exact solution ("" = none)
    /// Constant convection velocity b (2 or 3 components; empty = no convection term). The
    /// term b . grad u makes the operator non-symmetric (solve with BiCGSTAB).
    std::vector<double> convection;
    std::vector<BoundaryCondition> dirichlet;  ///< in case-file order; later groups win on shared nodes
    std::vector<BoundaryCondition> neumann;
    std::vector<RobinCondition> robin;         ///< in case-file order; one condition per group
};

}  // namespace gpufem
