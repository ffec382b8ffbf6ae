#include "assembly/lma_operator.hpp"

#include <span>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/element_colouring.hpp"
#include "assembly/phase_clock.hpp"
#include "linalg/blas1.hpp"
#include "linalg/precision.hpp"

namespace gpufem {

template <typename V>
LmaOperator<V>::LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe,
                            index_type num_nodes, const Array<V>& element_matrices,
                            const Array<std::uint8_t>& dirichlet_mask, LmaOptions options,
                            index_type colour_split)
    : exec_(exec), npe_(npe), num_nodes_(num_nodes), options_(options),
      kernel_(lma_resolve_kernel(options.kernel, npe, options.symmetric,
                                 options.scatter == LmaScatter::colour))
{
    check_inputs(cells, dirichlet_mask);
    const std::size_t n = num_cells_;
    if (element_matrices.size() != n * npe * npe)
        throw std::invalid_argument("make_lma_operator: element matrices need num_cells*npe*npe values");

    // Cell order: by colour for the colour variant (each colour starts at an aligned slot, the
    // gaps are padding, order -1); as given for the atomic one, which needs no order array
    // and no host copy of the connectivity (100M hexahedra: 3.2 GB each way).
    Array<index_type> device_order;
    if (options.scatter == LmaScatter::colour) {
        if (colour_split < -1 || colour_split > num_cells_)
            throw std::invalid_argument("make_lma_operator: the colour split lies outside the cells");
        const bool split = colour_split >= 0;
        StepLaps laps(*exec);
        const HostVector<index_type> host_cells = cells.to_host_vector();
        laps("cells to the host");
        HostVector<index_type> order;
        order.reserve(n + 64 * static_cast<std::size_t>(lma_position_alignment));
        append_colouring(host_cells, 0, split ? colour_split : num_cells_, order);
        colours_before_split_ = num_colours();
        if (split) append_colouring(host_cells, colour_split, num_cells_, order);
        laps("colouring");
        stride_ = static_cast<index_type>(order.size());
        device_order = Array<index_type>::from_host(exec, std::span<const index_type>(order.data(), order.size()));
        laps("order to the device");
        spdlog::debug("lma colour scatter, {} cells, {} colours: {}", num_cells_, num_colours(), laps.text());
    } else {
        colour_begin_ = {0};
        colour_end_ = {num_cells_};
        colours_before_split_ = 1;
        stride_ = lma_stride(num_cells_);
    }
    const index_type* order = device_order.empty() ? nullptr : device_order.data();
    interleave_connectivity(cells, dirichlet_mask, order);

    // The element matrices are read where they are when they already live on exec's backend.
    Array<V> copied;
    const bool in_place = element_matrices.executor()->backend() == exec->backend() &&
                          element_matrices.executor()->device_id() == exec->device_id();
    if (!in_place) copied = element_matrices.clone_to(exec);
    const V* ke = in_place ? element_matrices.data() : copied.data();
    matrices_ = Array<V>(exec, static_cast<std::size_t>(stride_) * lma_entries_per_cell(npe, options.symmetric));
    GPUFEM_DISPATCH(*exec, lma_interleave(*exec, stride_, npe, options.symmetric, order,
                                          num_cells_, ke, matrices_.data()));
    finish_setup(dirichlet_mask);
    exec->synchronize();  // device_order (and a copied ke) are freed on return
}

template <typename V>
LmaOperator<V>::LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe,
                            index_type num_nodes, InterleavedElementMatrices<V> matrices,
                            const Array<std::uint8_t>& dirichlet_mask, LmaOptions options)
    : exec_(exec), npe_(npe), num_nodes_(num_nodes), options_(options),
      kernel_(lma_resolve_kernel(options.kernel, npe, options.symmetric,
                                 options.scatter == LmaScatter::colour))
{
    if (options.scatter != LmaScatter::atomic)
        throw std::invalid_argument("make_lma_operator: interleaved matrices take the atomic scatter");
    check_inputs(cells, dirichlet_mask);
    stride_ = lma_stride(num_cells_);
    if (matrices.values.size() != static_cast<std::size_t>(stride_) * lma_entries_per_cell(npe, options.symmetric) ||
        matrices.values.executor() != exec)
        throw std::invalid_argument("make_lma_operator: the interleaved matrices do not match the cells");
    colour_begin_ = {0};
    colour_end_ = {num_cells_};
    colours_before_split_ = 1;
    interleave_connectivity(cells, dirichlet_mask, nullptr);
    matrices_ = std::move(matrices.values);
    finish_setup(dirichlet_mask);
    exec->synchronize();
}

template <typename V>
template <typename W>
LmaOperator<V>::LmaOperator(const LmaOperator<W>& from, InPrecision)
    : exec_(from.exec_), npe_(from.npe_), num_cells_(from.num_cells_), num_nodes_(from.num_nodes_),
      stride_(from.stride_), options_(from.options_), kernel_(from.kernel_),
      connectivity_(converted<index_type>(from.connectivity_)), matrices_(converted<V>(from.matrices_)),
      mask_(converted<std::uint8_t>(from.mask_)), dirichlet_(converted<index_type>(from.dirichlet_)),
      colour_begin_(from.colour_begin_), colour_end_(from.colour_end_),
      colours_before_split_(from.colours_before_split_)
{
    GPUFEM_DISPATCH(*exec_, lma_configure(*exec_, args(), kernel_));
    this->diagonal_ = converted<V>(from.diagonal());
    exec_->synchronize();
}

template <typename V>
std::unique_ptr<LmaOperator<float>> LmaOperator<V>::lma_float_copy() const
{
    return std::unique_ptr<LmaOperator<float>>(new LmaOperator<float>(*this, typename LmaOperator<float>::InPrecision{}));
}

template <typename V>
std::unique_ptr<LinearOperator<float>> LmaOperator<V>::float_copy() const
{
    return lma_float_copy();
}

template <typename V>
void LmaOperator<V>::append_colouring(std::span<const index_type> cells, index_type first, index_type last,
                                      HostVector<index_type>& order)
{
    const auto npe = static_cast<std::size_t>(npe_);
    const ElementColouring colouring = colour_elements(cells.subspan(first * npe, (last - first) * npe), npe_, num_nodes_);
    for (int c = 0; c < colouring.num_colours(); ++c) {
        colour_begin_.push_back(static_cast<index_type>(order.size()));
        for (index_type k = colouring.colour_offsets[c]; k < colouring.colour_offsets[c + 1]; ++k)
            order.push_back(first + colouring.cells[k]);
        colour_end_.push_back(static_cast<index_type>(order.size()));
        order.resize(lma_stride(static_cast<index_type>(order.size())), index_type(-1));
    }
}

template <typename V>
void LmaOperator<V>::check_inputs(const Array<index_type>& cells, const Array<std::uint8_t>& dirichlet_mask)
{
    if (npe_ <= 0 || cells.size() % static_cast<std::size_t>(npe_) != 0)
        throw std::invalid_argument("make_lma_operator: connectivity size is not a multiple of npe");
    num_cells_ = static_cast<index_type>(cells.size() / npe_);
    if (!dirichlet_mask.empty() && dirichlet_mask.size() != static_cast<std::size_t>(num_nodes_))
        throw std::invalid_argument("make_lma_operator: Dirichlet mask needs one value per node");
}

template <typename V>
void LmaOperator<V>::interleave_connectivity(const Array<index_type>& cells,
                                             const Array<std::uint8_t>& dirichlet_mask,
                                             const index_type* order)
{
    // Interleaved on exec, Dirichlet nodes stored as ~node.
    if (!dirichlet_mask.empty()) mask_ = dirichlet_mask.clone_to(exec_);
    Array<index_type> copied_cells;
    const bool cells_in_place = cells.executor()->backend() == exec_->backend() &&
                                cells.executor()->device_id() == exec_->device_id();
    if (!cells_in_place) copied_cells = cells.clone_to(exec_);
    connectivity_ = Array<index_type>(exec_, static_cast<std::size_t>(npe_) * stride_);
    GPUFEM_DISPATCH(*exec_, lma_interleave_connectivity(
                                *exec_, stride_, npe_, order, num_cells_,
                                cells_in_place ? cells.data() : copied_cells.data(),
                                mask_.empty() ? nullptr : mask_.data(), connectivity_.data()));
    exec_->synchronize();  // copied_cells is freed on return
}

template <typename V>
void LmaOperator<V>::finish_setup(const Array<std::uint8_t>& dirichlet_mask)
{
    if (!dirichlet_mask.empty()) dirichlet_ = masked_nodes(exec_, dirichlet_mask);
    const LmaArgs<V> a = args();
    GPUFEM_DISPATCH(*exec_, lma_configure(*exec_, a, kernel_));
    this->diagonal_ = Array<V>(exec_, num_nodes_);
    fill(this->diagonal_, V(0));
    for (int c = 0; c < num_colours(); ++c)
        GPUFEM_DISPATCH(*exec_, lma_diagonal(*exec_, a, colour_begin_[c], colour_end_[c],
                                             this->diagonal_.data()));
}

template <typename V>
LmaArgs<V> LmaOperator<V>::args() const
{
    return {npe_, options_.symmetric, stride_, connectivity_.data(), matrices_.data()};
}

template <typename V>
void LmaOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *exec_;
    GPUFEM_DISPATCH(exec, lma_prepare(exec, num_nodes_, alpha, x.data(), beta, y.data(),
                                      dirichlet_.data(), static_cast<index_type>(dirichlet_.size()),
                                      this->diagonal_.data()));
    apply_colours(0, num_colours(), alpha, x.data(), y.data());
}

template <typename V>
void LmaOperator<V>::apply_colours(int first, int last, V alpha, const V* x, V* y) const
{
    const Executor& exec = *exec_;
    const LmaArgs<V> a = args();
    const bool atomic = options_.scatter == LmaScatter::atomic;
    if (first < 0 || first > last || last > num_colours())
        throw std::out_of_range(fmt::format("LmaOperator::apply_colours: colours [{}, {}) of {}", first, last,
                                            num_colours()));
    for (int c = first; c < last; ++c)
        GPUFEM_DISPATCH(exec, lma_apply_cells(exec, a, colour_begin_[c], colour_end_[c], alpha, x, y, atomic, kernel_));
}

template <typename V>
void LmaOperator<V>::set_kernel(LmaKernel kernel)
{
    const LmaKernel resolved =
        lma_resolve_kernel(kernel, npe_, options_.symmetric, options_.scatter == LmaScatter::colour);
    GPUFEM_DISPATCH(*exec_, lma_configure(*exec_, args(), resolved));
    kernel_ = resolved;
    options_.kernel = kernel;
}

template <typename V>
void LmaOperator<V>::eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const
{
    if (g.size() != static_cast<std::size_t>(num_nodes_) || rhs.size() != g.size())
        throw std::invalid_argument("LmaOperator::eliminate_dirichlet: vectors need one value per node");
    if (mask_.empty()) return;
    lift_dirichlet(g, rhs);
    GPUFEM_DISPATCH(*exec_, lma_dirichlet_rows(*exec_, num_nodes_, mask_.data(),
                                               this->diagonal_.data(), g.data(), rhs.data()));
}

template <typename V>
void LmaOperator<V>::lift_dirichlet(const Array<V>& g, Array<V>& rhs) const
{
    if (g.size() != static_cast<std::size_t>(num_nodes_) || rhs.size() != g.size())
        throw std::invalid_argument("LmaOperator::lift_dirichlet: vectors need one value per node");
    if (mask_.empty()) return;
    const Executor& exec = *exec_;
    const LmaArgs<V> a = args();
    for (int c = 0; c < num_colours(); ++c)
        GPUFEM_DISPATCH(exec, lma_dirichlet_lift(exec, a, colour_begin_[c], colour_end_[c],
                                                 g.data(), rhs.data()));
}

template <typename V>
std::size_t LmaOperator<V>::bytes_stored() const
{
    return matrices_.bytes() + connectivity_.bytes() + this->diagonal_.bytes() + mask_.bytes() +
           dirichlet_.bytes() + 2 * colour_begin_.size() * sizeof(index_type);
}

template <typename V>
std::size_t LmaOperator<V>::spmv_min_bytes() const
{
    const std::size_t cells = num_cells_, cell_nodes = cells * npe_;
    std::size_t bytes = cells * lma_entries_per_cell(npe_, options_.symmetric) * sizeof(V) +
                        cell_nodes * sizeof(index_type) + cell_nodes * sizeof(V) +
                        2 * static_cast<std::size_t>(num_nodes_) * sizeof(V);
    bytes += dirichlet_.size() * (sizeof(index_type) + 3 * sizeof(V));
    return bytes;
}

template <typename V>
std::string LmaOperator<V>::parameters() const
{
    const std::string kernel = lma_kernel_name(kernel_);
    return std::string("scatter=") + (options_.scatter == LmaScatter::atomic ? "atomic" : "colour") +
           " symmetric=" + (options_.symmetric ? "yes" : "no") + " kernel=" + kernel +
           " colours=" + std::to_string(num_colours()) + " npe=" + std::to_string(npe_);
}

Array<index_type> masked_nodes(const ExecPtr& exec, const Array<std::uint8_t>& mask)
{
    const std::vector<std::uint8_t> host = mask.to_host();
    std::vector<index_type> nodes;
    for (std::size_t i = 0; i < host.size(); ++i)
        if (host[i]) nodes.push_back(static_cast<index_type>(i));
    return Array<index_type>::from_host(exec, nodes);
}

template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec,
                                                  const Array<index_type>& cells, int npe,
                                                  index_type num_nodes,
                                                  const Array<V>& element_matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options, index_type colour_split)
{
    return std::make_unique<LmaOperator<V>>(exec, cells, npe, num_nodes, element_matrices,
                                            dirichlet_mask, options, colour_split);
}

template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec, const Array<index_type>& cells,
                                                  int npe, index_type num_nodes,
                                                  InterleavedElementMatrices<V> matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options)
{
    return std::make_unique<LmaOperator<V>>(exec, cells, npe, num_nodes, std::move(matrices),
                                            dirichlet_mask, options);
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template class LmaOperator<V>;                                                              \
    template std::unique_ptr<LmaOperator<V>> make_lma_operator(                                 \
        const ExecPtr&, const Array<index_type>&, int, index_type, InterleavedElementMatrices<V>, \
        const Array<std::uint8_t>&, LmaOptions);                                                \
    template std::unique_ptr<LmaOperator<V>> make_lma_operator(                                 \
        const ExecPtr&, const Array<index_type>&, int, index_type, const Array<V>&,            \
        const Array<std::uint8_t>&, LmaOptions, index_type);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem

