#include "assembly/lma_operator.hpp"

#include <numeric>
#include <stdexcept>

#include "assembly/element_colouring.hpp"
#include "assembly/lma_kernels.hpp"

/// Calls the CPU or CUDA version of a kernel with the same arguments.
#define GPUFEM_LMA_DISPATCH(exec, kernel, ...)                                             \
    ((exec).is_cuda() ? kernels::cuda::kernel(exec, __VA_ARGS__)                          \
                      : kernels::cpu::kernel(exec, __VA_ARGS__))

namespace gpufem {

template <typename V>
LmaOperator<V>::LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe,
                            index_type num_nodes, const Array<V>& element_matrices,
                            const Array<std::uint8_t>& dirichlet_mask, LmaOptions options)
    : exec_(exec), npe_(npe), num_nodes_(num_nodes), options_(options)
{
    if (npe <= 0 || cells.size() % static_cast<std::size_t>(npe) != 0)
        throw std::invalid_argument("make_lma_operator: connectivity size is not a multiple of npe");
    num_cells_ = static_cast<index_type>(cells.size() / npe);
    const std::size_t n = num_cells_;
    if (element_matrices.size() != n * npe * npe)
        throw std::invalid_argument("make_lma_operator: element matrices need num_cells*npe*npe values");
    if (!dirichlet_mask.empty() && dirichlet_mask.size() != static_cast<std::size_t>(num_nodes))
        throw std::invalid_argument("make_lma_operator: Dirichlet mask needs one value per node");

    // Cell order: by colour for the colour variant, as given for the atomic one.
    const std::vector<index_type> host_cells = cells.to_host();
    std::vector<index_type> order;
    if (options.scatter == LmaScatter::colour) {
        ElementColouring colouring = colour_elements(host_cells, npe, num_nodes);
        order = std::move(colouring.cells);
        colour_offsets_ = std::move(colouring.colour_offsets);
    } else {
        order.resize(n);
        std::iota(order.begin(), order.end(), index_type(0));
        colour_offsets_ = {0, num_cells_};
    }

    // Connectivity interleaved on the host (the colouring is a host step anyway).
    std::vector<index_type> interleaved(host_cells.size());
    for (std::size_t p = 0; p < n; ++p)
        for (int i = 0; i < npe; ++i)
            interleaved[i * n + p] = host_cells[static_cast<std::size_t>(order[p]) * npe + i];
    connectivity_ = Array<index_type>::from_host(exec, interleaved);

    const Array<index_type> device_order = Array<index_type>::from_host(exec, order);
    // The element matrices are read where they are when they already live on exec's backend.
    Array<V> copied;
    const bool in_place = element_matrices.executor()->backend() == exec->backend() &&
                          element_matrices.executor()->device_id() == exec->device_id();
    if (!in_place) copied = element_matrices.clone_to(exec);
    const V* ke = in_place ? element_matrices.data() : copied.data();
    matrices_ = Array<V>(exec, n * lma_entries_per_cell(npe, options.symmetric));
    GPUFEM_LMA_DISPATCH(*exec, lma_interleave, num_cells_, npe, options.symmetric,
                        device_order.data(), ke, matrices_.data());
    if (!dirichlet_mask.empty()) mask_ = dirichlet_mask.clone_to(exec);

    diagonal_ = Array<V>(exec, num_nodes);
    LmaArgs<V> args{npe_, options_.symmetric, num_cells_, connectivity_.data(), matrices_.data(), nullptr};
    GPUFEM_LMA_DISPATCH(*exec, lma_diagonal, args, num_nodes_, diagonal_.data());
    exec->synchronize();  // device_order (and a copied ke) are freed on return
}

template <typename V>
void LmaOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *exec_;
    const std::uint8_t* mask = mask_.empty() ? nullptr : mask_.data();
    GPUFEM_LMA_DISPATCH(exec, lma_prepare, num_nodes_, alpha, x.data(), beta, y.data(), mask,
                        diagonal_.data());
    const LmaArgs<V> args{npe_, options_.symmetric, num_cells_, connectivity_.data(),
                          matrices_.data(), mask};
    const bool atomic = options_.scatter == LmaScatter::atomic;
    for (int c = 0; c < num_colours(); ++c)
        GPUFEM_LMA_DISPATCH(exec, lma_apply_cells, args, colour_offsets_[c],
                            colour_offsets_[c + 1], alpha, x.data(), y.data(), atomic);
}

template <typename V>
std::size_t LmaOperator<V>::bytes_stored() const
{
    return matrices_.bytes() + connectivity_.bytes() + diagonal_.bytes() + mask_.bytes() +
           colour_offsets_.size() * sizeof(index_type);
}

template <typename V>
std::size_t LmaOperator<V>::spmv_min_bytes() const
{
    const std::size_t cell_nodes = static_cast<std::size_t>(num_cells_) * npe_;
    std::size_t bytes = matrices_.bytes() + connectivity_.bytes() + cell_nodes * sizeof(V) +
                        2 * static_cast<std::size_t>(num_nodes_) * sizeof(V);
    if (!mask_.empty()) bytes += mask_.bytes() + diagonal_.bytes();
    return bytes;
}

template <typename V>
std::string LmaOperator<V>::parameters() const
{
    return std::string("scatter=") + (options_.scatter == LmaScatter::atomic ? "atomic" : "colour") +
           " symmetric=" + (options_.symmetric ? "yes" : "no") +
           " colours=" + std::to_string(num_colours()) + " npe=" + std::to_string(npe_);
}

template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec,
                                                  const Array<index_type>& cells, int npe,
                                                  index_type num_nodes,
                                                  const Array<V>& element_matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options)
{
    return std::make_unique<LmaOperator<V>>(exec, cells, npe, num_nodes, element_matrices,
                                            dirichlet_mask, options);
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template class LmaOperator<V>;                                                              \
    template std::unique_ptr<LmaOperator<V>> make_lma_operator(                                 \
        const ExecPtr&, const Array<index_type>&, int, index_type, const Array<V>&,            \
        const Array<std::uint8_t>&, LmaOptions);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem

#undef GPUFEM_LMA_DISPATCH
