#pragma once
// Staircase SELL (Wikberg 2025, §4.3; docs/references.md): the layout, the host-side
// index structure (row order and groups) and the kernels over it, declared once and
// implemented in cpu/ and cuda/.
//
// The matrix is renumbered symmetrically (rows and columns) by the permutation sigma: the
// Cuthill–McKee order, then a stable sort by row length (CM order breaks ties). The rows of
// the new order are cut into groups ("steps") of rows that share a stored length; each group
// is a run of SELL slices of `slice_height` rows, column-major within a slice (entry k of the
// slice's rows lies contiguously), every row padded to the group's length with value 0 and
// column -1. Only the last group may hold padding rows past the end of the matrix.
#include <cstddef>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {

/// One group ("step") of a staircase matrix: `rows` consecutive rows of the new order stored
/// as rows / slice_height slices of `length` entries per row.
struct StaircaseGroup {
    index_type length = 0;     ///< stored entries per row (the paper's step_lengths)
    index_type row_start = 0;  ///< first row of the group in the new order (row_ptr)
    index_type rows = 0;       ///< stored rows, a multiple of the slice height (step_blocks * sh)
    index_type offset = 0;     ///< index of the group's first entry in values / col_idx (step_ptr)
};

/// A matrix in staircase SELL layout on one executor. Entry k of row j of a group g lives at
/// g.offset + (j / sh) * g.length * sh + k * sh + j % sh  (j counted from g.row_start).
template <typename V>
struct StaircaseMatrix {
    index_type rows = 0;
    index_type cols = 0;
    index_type slice_height = 0;         ///< sh: rows per slice
    index_type block = 256;              ///< cuda: threads per block of the SpMV (32..1024)
    std::vector<StaircaseGroup> groups;  ///< host copy: the launch arguments (ascending length)
    Array<StaircaseGroup> group_table;   ///< the same on the executor (conversion, single launch)
    Array<index_type> col_idx;           ///< column of each stored entry, -1 for padding
    Array<V> values;                     ///< value of each stored entry, 0 for padding

    /// Entries stored, padding included.
    std::size_t stored_entries() const { return values.size(); }
    /// Bytes held on the executor (values, columns, group table).
    std::size_t bytes_stored() const
    {
        return values.bytes() + col_idx.bytes() + group_table.bytes();
    }
};

/// The paper's sigma (new index -> old index): the rows of `cm_order` (new -> old, e.g. the
/// Cuthill–McKee order) stably sorted by ascending row length, row_ptr giving the lengths.
std::vector<index_type> staircase_row_order(const std::vector<index_type>& cm_order,
                                            const std::vector<index_type>& row_ptr);

/// The paper's Algorithm 3: groups from rows_with_length[L] = number of rows with L entries
/// (L = 0 .. longest row; trailing empty bins are ignored). Walking the lengths upwards, a bin holding fewer than alpha * rows
/// rows (rows carried into it included) is merged into the next longer bin; otherwise it keeps
/// floor(R / sh) full slices and carries the R mod sh rows left over into the next bin. The
/// longest bin keeps ceil(R / sh) slices, so padding rows only ever end the last group.
/// Empty groups are dropped. Throws std::invalid_argument for slice_height < 1 or alpha < 0
/// and std::overflow_error when the stored entries exceed int32.
std::vector<StaircaseGroup> staircase_groups(const std::vector<index_type>& rows_with_length,
                                             double alpha, index_type slice_height);

/// Lays out `permuted` (already in the new order, every row no longer than its group's length)
/// in the given groups, on permuted's executor (the fill runs on the device for CUDA).
template <typename V>
StaircaseMatrix<V> make_staircase_matrix(const Csr<V>& permuted, std::vector<StaircaseGroup> groups,
                                         index_type slice_height);

/// CUDA streams and events a staircase operator owns (opaque cudaStream_t / cudaEvent_t).
struct StaircaseStreams {
    int device = 0;              ///< the CUDA device they belong to
    std::vector<void*> streams;  ///< one per group (round-robin past kMaxStreams)
    void* fork = nullptr;        ///< recorded on the executor's stream, waited on by `streams`
    std::vector<void*> joins;    ///< one per stream, waited on by the executor's stream
    /// More groups than this share streams round-robin.
    static constexpr int kMaxStreams = 32;
};

#define GPUFEM_KERNEL_LIST "linalg/staircase_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

namespace kernels::cuda {
/// Creates min(groups, kMaxStreams) non-blocking streams and their events on exec's device.
GPUFEM_CUDA_INLINE StaircaseStreams create_staircase_streams(const Executor& exec,
                                                             int groups) GPUFEM_CUDA_BODY
/// Destroys what create_staircase_streams made (nothing when empty).
GPUFEM_CUDA_INLINE void destroy_staircase_streams(StaircaseStreams& streams) noexcept
    GPUFEM_CUDA_NOTHROW_BODY
}  // namespace kernels::cuda

/// Options of the `staircase` format (format_options.staircase, Wikberg 2025, §4.3).
struct StaircaseOptions {
    double alpha = 0.01;      ///< merge row-length groups smaller than alpha * rows
    index_type slice_height = 32;  ///< rows per slice (sh)
    bool streams = true;      ///< one CUDA stream per group (false: a single launch)
    bool cuthill_mckee = true;  ///< Cuthill-McKee order before the length sort (false: the
                                ///< matrix's own order, sorted by length)
    index_type block = 256;   ///< cuda: threads per block of the SpMV, a multiple of 32 up to
                              ///< 1024 (the paper: the slice height)
};

/// The `staircase` format: Cuthill-McKee order (unless options.cuthill_mckee is false), rows grouped by length, small groups merged,
/// slices of slice_height rows; the permutation is returned with the operator. Throws
/// std::invalid_argument for a non-square matrix or bad options.
template <typename V>
FormatBuild<V> build_staircase_format(Csr<V> matrix, const StaircaseOptions& options);

}  // namespace gpufem
