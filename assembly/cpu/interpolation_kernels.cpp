#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <vector>

#include "assembly/interpolation_kernels.hpp"
#include "linalg/cpu/chunked_loops.hpp"
#include "linalg/host_vector.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// a[i] = a[0] + ... + a[i] over n entries in place, by the host's threads: each block of
/// entries summed on its own, then the blocks' totals carried.
void inclusive_scan(index_type* a, long long n)
{
    constexpr long long block = 1LL << 16;
    const long long blocks = (n + block - 1) / block;
    std::vector<index_type> carry(static_cast<std::size_t>(blocks) + 1, 0);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < blocks; ++b) {
        const long long end = std::min(n, (b + 1) * block);
        for (long long i = b * block + 1; i < end; ++i) a[i] += a[i - 1];
        carry[static_cast<std::size_t>(b) + 1] = a[end - 1];
    }
    for (long long b = 0; b < blocks; ++b) carry[b + 1] += carry[b];
#pragma omp parallel for schedule(static)
    for (long long b = 1; b < blocks; ++b)
        for (long long i = b * block; i < std::min(n, (b + 1) * block); ++i) a[i] += carry[b];
}

}  // namespace

long long number_coarse_nodes(const Executor&, const CoarseLatticeView& view, index_type* column)
{
    const long long n = view.num_nodes;
    if (n == 0) return 0;
    HostVector<index_type> rank(static_cast<std::size_t>(n));  // marks, then their prefix sum
    chunked_for(n, [&](long long node) { rank[node] = 0; });
    chunked_for(view.num_cells, [&](long long e) {
        for (int m = 0; m < view.coarse_per_cell; ++m) {  // cells share nodes: marked atomically
            const int local = coarse_local_node(view, e, m);
            if (local >= 0)
                std::atomic_ref<index_type>(rank[view.cells[e * view.nodes_per_cell + local]])
                    .store(1, std::memory_order_relaxed);
        }
    });
    inclusive_scan(rank.data(), n);
    chunked_for(n, [&](long long node) {
        const bool marked = rank[node] > (node > 0 ? rank[node - 1] : 0);
        column[node] = marked ? rank[node] - 1 : -1;
    });
    return rank[n - 1];
}

void list_coarse_nodes(const Executor&, const index_type* column, long long num_nodes, index_type* column_nodes)
{
    chunked_for(num_nodes, [&](long long node) {
        if (column[node] >= 0) column_nodes[column[node]] = static_cast<index_type>(node);
    });
}

void coarse_cell_nodes(const Executor&, const CoarseLatticeView& view, const index_type* column,
                       index_type* coarse_cells)
{
    const int ncl = view.coarse_per_cell;
    chunked_for(view.num_cells, [&](long long e) {
        for (int m = 0; m < ncl; ++m) {
            const int local = coarse_local_node(view, e, m);
            coarse_cells[e * ncl + m] = local < 0 ? -1 : column[view.cells[e * view.nodes_per_cell + local]];
        }
    });
}

void node_owner_slots(const Executor&, const CoarseLatticeView& view, long long* owner)
{
    chunked_for(view.num_nodes, [&](long long node) { owner[node] = LLONG_MAX; });
    const int npc = view.nodes_per_cell;
    chunked_for(view.num_cells * npc, [&](long long slot) {
        if (view.cells[slot] < 0) return;  // a smaller type's padding
        std::atomic_ref<long long> seen_at(owner[view.cells[slot]]);
        long long seen = seen_at.load(std::memory_order_relaxed);
        while (slot < seen && !seen_at.compare_exchange_weak(seen, slot, std::memory_order_relaxed)) {
        }
    });
    chunked_for(view.num_nodes, [&](long long node) {
        if (owner[node] == LLONG_MAX) owner[node] = -1;  // in no cell
    });
}

long long interpolation_row_offsets(const Executor&, const CoarseLatticeView& view, const long long* owner,
                                    const index_type* row_nodes, long long rows, const int* row_length,
                                    index_type* ptr)
{
    ptr[0] = 0;
    chunked_for(rows, [&](long long i) {
        const long long slot = owner[interpolation_row_node(row_nodes, i)];
        ptr[i + 1] = slot < 0 ? 0 : row_length[reference_row(view, slot)];
    });
    inclusive_scan(ptr + 1, rows);
    return ptr[rows];
}

template <typename V>
void interpolation_entries(const Executor&, const CoarseLatticeView& view,
                           const ReferenceInterpolationView& reference, const long long* owner,
                           const index_type* row_nodes, long long rows, const index_type* column,
                           const index_type* ptr, index_type* col, V* val)
{
    chunked_for(rows, [&](long long i) {
        write_interpolation_row(view, reference, owner, row_nodes, i, column, ptr, col, val);
    });
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(interpolation_entries)

}  // namespace gpufem::kernels::cpu
