#pragma once
// The PDE data of a case: -div(kappa grad u) + b . grad u + c u = f with Dirichlet, Neumann
// and Robin conditions; kappa, f, c and b each one expression everywhere or one per region.
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

/// A coefficient given as data: the per-cell field `field` of the mesh file's $ElementData
/// (file "") or a cell array of the .vtu `file` on the same mesh (Mesh::cell_fields), constant
/// on each cell.
struct CellDataRef {
    std::string field;  ///< "" = none
    std::string file;   ///< "" = the mesh file; else the .vtu's path
    bool given() const { return !field.empty(); }
};

/// A coefficient's value on one region (a physical group of the mesh's dimension): its
/// components' expressions (a scalar: one; a velocity: one per dimension; a symmetric tensor:
/// its upper triangle by rows, xx xy yy or xx xy xz yy yz zz).
struct RegionValue {
    std::string region;
    std::vector<std::string> components;
    CellDataRef data;  ///< given: the region's value is this cell data (components empty)
};

/// Coefficients and boundary data, all as expression texts (see Expression). A coefficient's
/// map of regions, when given, replaces its value everywhere: every cell must then lie in one
/// of the regions it names (assembly/coefficients.hpp).
struct ProblemSpec {
    std::string kappa = "1";
    /// kappa as a symmetric tensor everywhere (xx xy yy, or xx xy xz yy yz zz); empty: the
    /// scalar kappa.
    std::vector<std::string> kappa_tensor;
    std::vector<RegionValue> kappa_regions;  ///< kappa per region (scalars or tensors)
    CellDataRef kappa_data;                  ///< given: kappa everywhere is this cell data
    std::string f = "0";
    std::vector<RegionValue> f_regions;
    CellDataRef f_data;
    /// c of the reaction term c u (>= 0); "0" and no regions: none.
    std::string reaction = "0";
    std::vector<RegionValue> reaction_regions;
    CellDataRef reaction_data;
    std::string exact;                         ///< optional exact solution ("" = none)
    /// Constant convection velocity b (2 or 3 components; empty = no convection term). The
    /// term b . grad u makes the operator non-symmetric (solve with BiCGSTAB).
    std::vector<double> convection;
    /// b as expressions (one per dimension), in place of convection; empty: convection's.
    std::vector<std::string> convection_field;
    std::vector<RegionValue> convection_regions;  ///< b per region
    std::vector<BoundaryCondition> dirichlet;  ///< in case-file order; later groups win on shared nodes
    std::vector<BoundaryCondition> neumann;
    std::vector<RobinCondition> robin;         ///< in case-file order; one condition per group
};

/// Whether the problem has a convection term b . grad u.
inline bool has_convection(const ProblemSpec& p)
{
    return !p.convection.empty() || !p.convection_field.empty() || !p.convection_regions.empty();
}

/// Whether the problem may have a reaction term c u (c given other than as the constant "0").
inline bool has_reaction(const ProblemSpec& p)
{
    return p.reaction != "0" || !p.reaction_regions.empty() || p.reaction_data.given();
}

/// Whether something besides Dirichlet conditions fixes the solution's constant: a Robin
/// condition or a reaction term.
inline bool fixed_without_dirichlet(const ProblemSpec& p)
{
    return !p.robin.empty() || has_reaction(p);
}

}  // namespace gpufem
