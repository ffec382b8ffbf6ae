#pragma once
// The problem's coefficients in a case file: kappa (an expression, a sweep list, a symmetric
// tensor {xx, xy, ...}, cell data {cell_data: NAME(, file: PATH)} or a map of regions), f and
// c (an expression, cell data or a map of regions), and the convection velocity (a list of
// numbers or expressions, or a map of regions). A region's value may be cell data too.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assembly/problem_spec.hpp"
#include "solver/case/case_reader.hpp"

namespace gpufem {

/// problem.kappa into problem.kappa, kappa_tensor, kappa_data or kappa_regions; kappas gets a list's
/// expressions (a coefficient sweep, at most max_kappas) or the one expression. Constants are
/// checked (kappa > 0). Returns its resolved JSON.
nlohmann::json read_kappa(const CaseReader& reader, const CaseValue& value, ProblemSpec& problem,
                          std::vector<std::string>& kappas, std::size_t max_kappas);

/// problem.f or problem.c: an expression into global, cell data into data, or a map of regions
/// into regions (each region's value an expression or cell data); with nonnegative, constants
/// must be >= 0. Returns its resolved JSON.
nlohmann::json read_scalar_coefficient(const CaseReader& reader, const CaseValue& value, std::string& global,
                                       std::vector<RegionValue>& regions, CellDataRef& data, bool nonnegative);

/// problem.convection: a list of 2 or 3 numbers (problem.convection) or expressions
/// (problem.convection_field), or a map of regions to such lists. Returns its resolved JSON.
nlohmann::json read_convection(const CaseReader& reader, const CaseValue& value, ProblemSpec& problem);

}  // namespace gpufem
