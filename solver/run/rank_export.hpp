#pragma once
// --export-matrix under mpirun: the whole system written as one process writes it (A.mtx,
// b.mtx and x.mtx in the mesh's numbering, solver/run/run_case.cpp's export), from each
// rank's owned rows, right-hand side and solution, which rank 0 gathers and writes.
#include <filesystem>
#include <string>
#include <vector>

#include "linalg/communicator.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

/// One rank's share of the system to export, on the host, in the part's order.
struct RankRowsToExport {
    Csr<double> rows;               ///< owned rows x the part's unknowns (owned, then ghosts)
    std::vector<double> rhs, x;     ///< the owned rows' right-hand side and solution
    /// The whole system's number of each of the part's unknowns (owned, then ghosts).
    const std::vector<index_type>* global = nullptr;
};

/// A rank's share from its owned rows (on any executor), right-hand side and solution (part
/// order), and the part's global numbers.
template <typename V>
RankRowsToExport rows_to_export(const Csr<V>& rows, const Array<V>& rhs, const Array<V>& x,
                                const std::vector<index_type>& global);

/// The whole system from every rank's share (mine, this rank's) written by rank 0 into dir
/// (staged, renamed when complete), what: the files' comment. Collective over host. Throws
/// std::runtime_error on rank 0 when the shares do not number every row once or the files
/// cannot be written.
void export_rank_system(const Communicator& host, const RankRowsToExport& mine, const std::filesystem::path& dir,
                        const std::string& what);

}  // namespace gpufem
