#pragma once
// Tunable parameters of the sparse formats (the case file's `format_options`).
#include <cstddef>
#include <string>

namespace gpufem {

/// Parameters of every format; each format reads its own. 0 means "choose automatically".
struct FormatOptions {
    // csr (000_…): threads per row, rows per thread group, block size; 0 = fixed rule.
    int csr_coop = 0;
    int csr_repeat = 0;
    int csr_block = 0;
    bool csr_tune = true;          ///< run-time tuner over the first SpMVs (000_… §6)
    // sellp (003_… §3.1): slice height b, threads per row t, sorting window sigma (rows).
    int sellp_slice = 32;
    int sellp_threads = 0;         ///< 0 = smallest power of two >= mean row length / 8, <= 32
    int sellp_sigma = 1;           ///< 1 = no sorting (SELL-P); > 1 = SELL-C-sigma
    // bdia (002_…): refuse when the band storage would exceed this many bytes (0 = the
    // executor's free memory decides).
    std::size_t bdia_max_bytes = 0;
    // staircase (004_… §4.3): merge groups smaller than alpha * rows; slice height; one
    // stream per group or a single launch.
    double staircase_alpha = 0.01;
    int staircase_slice = 32;
    bool staircase_streams = true;
    // lma (000_… §8.2): scatter with atomics (false) or by element colours (true); store only
    // the upper triangle of each element matrix.
    bool lma_colour = false;
    bool lma_symmetric = false;
    /// CUDA apply kernel: auto | cell | tile | twin | row | reg (assembly/lma_kernels.hpp).
    std::string lma_kernel = "auto";
};

}  // namespace gpufem
