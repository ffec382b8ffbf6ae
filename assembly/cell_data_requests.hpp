#pragma once
// The per-cell fields a problem's coefficients are given as (kappa: {cell_data: NAME}), as
// requests for the mesh loader (mesh/cell_fields.hpp), which reads and checks them.
#include <vector>

#include "assembly/problem_spec.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {

/// The requests of every coefficient given as cell data (everywhere or on a region), each with
/// its key ("problem.kappa", "problem.f.rock") and its check (kappa positive, c >= 0, f
/// finite); several requests of one field are read once.
std::vector<CellFieldRequest> cell_data_requests(const ProblemSpec& problem);

/// Whether kappa is given as cell data anywhere (it may then jump across every face).
bool kappa_has_cell_data(const ProblemSpec& problem);

}  // namespace gpufem
