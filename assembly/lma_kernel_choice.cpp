// Names of the LMA apply kernels and the rule behind `auto` (declared in lma_kernels.hpp).
#include <algorithm>
#include <stdexcept>

#include "assembly/lma_kernels.hpp"

namespace gpufem {
namespace {

constexpr LmaKernel all_kernels[] = {LmaKernel::automatic, LmaKernel::cell, LmaKernel::tile,
                                     LmaKernel::twin};

}  // namespace

const char* lma_kernel_name(LmaKernel kernel)
{
    switch (kernel) {
    case LmaKernel::automatic: return "auto";
    case LmaKernel::cell: return "cell";
    case LmaKernel::tile: return "tile";
    case LmaKernel::twin: return "twin";
    }
    return "?";
}

LmaKernel lma_kernel_from_name(const std::string& name)
{
    std::string known;
    for (LmaKernel k : all_kernels) {
        if (name == lma_kernel_name(k)) return k;
        known += std::string(known.empty() ? "" : ", ") + lma_kernel_name(k);
    }
    throw std::invalid_argument("unknown LMA kernel '" + name + "' (known: " + known + ")");
}

LmaKernel lma_resolve_kernel(LmaKernel kernel, int npe, bool symmetric, bool colour)
{
    if (kernel != LmaKernel::automatic) return kernel;
    // From the H100 degree sweeps (FP64, about 1M unknowns; docs/performance.md): up to npe 8 one cell per
    // thread streams best; beyond, a tile of cells per block with rows spread over its
    // threads. Symmetric storage from npe 27 (3D Q2 and up) needs twin, whose second reads
    // hit L1 (tile's come from DRAM once a tile's packed matrices outgrow the caches); the
    // colour scatter's launches hold too few cells for twin's large blocks and stay on tile.
    // Past npe 128 twin's tiles of 32 cells need more than 1024 threads.
    if (npe <= 8) return LmaKernel::cell;
    if (symmetric && !colour && npe >= 27 && npe <= 128) return LmaKernel::twin;
    return LmaKernel::tile;
}

}  // namespace gpufem
