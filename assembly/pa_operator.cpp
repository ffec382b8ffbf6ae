#include "assembly/pa_operator.hpp"

#include <optional>
#include <stdexcept>
#include <vector>

#include "assembly/lma_kernels.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/robin_kernels.hpp"
#include "linalg/blas1.hpp"
#include "linalg/precision.hpp"

namespace gpufem {
namespace {

/// The table as V on exec.
template <typename V>
Array<V> table_on(const ExecPtr& exec, const std::vector<double>& table)
{
    return Array<V>::from_host(exec, std::vector<V>(table.begin(), table.end()));
}

/// A copy of the Robin facets (their matrices stay in double) on their executors.
RobinFacets copy_of(const RobinFacets& from)
{
    RobinFacets out;
    out.located = from.located;
    for (const RobinFacetBlock& block : from.blocks)
        out.blocks.push_back({block.nodes_per_facet, converted<index_type>(block.nodes), converted<double>(block.matrices),
                              converted<index_type>(block.owner), converted<index_type>(block.places)});
    return out;
}

}  // namespace

template <typename V>
template <typename W>
PaOperator<V>::PaOperator(const PaOperator<W>& from, InPrecision)
    : exec_(from.exec_), dim_(from.dim_), p1_(from.p1_), q1_(from.q1_), lower_order_(from.lower_order_),
      num_cells_(from.num_cells_), num_nodes_(from.num_nodes_), nodes_(converted<index_type>(from.nodes_)),
      factors_(std::make_shared<const Array<V>>(converted<V>(*from.factors_))),
      point_weights_(from.point_weights_ ? std::make_shared<const Array<V>>(converted<V>(*from.point_weights_))
                                         : nullptr),
      basis_(converted<V>(from.basis_)),
      derivative_(converted<V>(from.derivative_)), mask_(converted<std::uint8_t>(from.mask_)),
      dirichlet_(converted<index_type>(from.dirichlet_)), gmsh_of_lex_(from.gmsh_of_lex_),
      nodes_1d_(from.nodes_1d_), points_1d_(from.points_1d_), robin_(copy_of(from.robin_))
{
    this->diagonal_ = converted<V>(from.diagonal());
    exec_->synchronize();
}

template <typename V>
std::unique_ptr<LinearOperator<float>> PaOperator<V>::float_copy() const
{
    return std::unique_ptr<LinearOperator<float>>(new PaOperator<float>(*this, typename PaOperator<float>::InPrecision{}));
}

template <typename V>
PaOperator<V>::PaOperator(const ExecPtr& exec, const ElementData<V>& data, const PaTensorBasis& basis,
                          const Array<std::uint8_t>& dirichlet_mask, Array<V>& rhs, RobinFacets robin)
    : exec_(exec), dim_(basis.dim), p1_(basis.p1), q1_(basis.q1), lower_order_(data.args().has_lower_order != 0),
      num_cells_(data.num_cells), num_nodes_(data.num_nodes), robin_(std::move(robin))
{
    const int npe = static_cast<int>(basis.gmsh_of_lex.size());
    gmsh_of_lex_ = basis.gmsh_of_lex;
    nodes_1d_ = basis.nodes_1d;
    points_1d_ = basis.points_1d;
    const int points = static_cast<int>(basis.rule_of_lex.size());
    if (data.nodes_per_cell != npe || data.num_points != points || data.dim != dim_)
        throw std::invalid_argument("PaOperator: the element data do not match the tensor basis");
    if (!dirichlet_mask.empty() && dirichlet_mask.size() != static_cast<std::size_t>(num_nodes_))
        throw std::invalid_argument("PaOperator: the Dirichlet mask needs one value per node");
    if (rhs.size() != static_cast<std::size_t>(num_nodes_))
        throw std::invalid_argument("PaOperator: the right-hand side needs one value per node");
    const Executor& ex = *exec;
    if (!dirichlet_mask.empty()) {
        mask_ = dirichlet_mask.clone_to(exec);
        dirichlet_ = masked_nodes(exec, mask_);
    }
    const Array<int> gmsh_of_lex = Array<int>::from_host(exec, basis.gmsh_of_lex);
    nodes_ = Array<index_type>(exec, static_cast<std::size_t>(num_cells_) * npe);
    GPUFEM_DISPATCH(ex, pa_lexicographic_nodes(ex, num_cells_, npe, data.cells.data(), gmsh_of_lex.data(),
                                               mask_.empty() ? nullptr : mask_.data(), nodes_.data()));
    basis_ = table_on<V>(exec, basis.basis);
    derivative_ = table_on<V>(exec, basis.derivative);

    const Array<int> rule_of_lex = Array<int>::from_host(exec, basis.rule_of_lex);
    const std::size_t cell_points = static_cast<std::size_t>(num_cells_) * points;
    auto factors = std::make_shared<Array<V>>(exec, cell_points * pa_point_components(dim_, lower_order_));
    V* factor_data = factors->data();
    factors_ = std::move(factors);
    {
        Array<V> loads(exec, cell_points);  // freed (in stream order) before the per-cell copy
        const PaArgs<V> a = args();
        jacobian_signs_ =
            GPUFEM_DISPATCH(ex, pa_point_factors(ex, data.args(), a, rule_of_lex.data(), factor_data, loads.data()));
        GPUFEM_DISPATCH(ex, pa_loads(ex, a, loads.data(), rhs.data()));
    }
    keep_cell_factors(basis.weights_of_lex);
    this->diagonal_ = Array<V>(exec, num_nodes_);
    fill(this->diagonal_, V(0));
    GPUFEM_DISPATCH(ex, pa_diagonal(ex, args(), this->diagonal_.data()));
    for (const RobinFacetBlock& block : robin_.blocks)
        GPUFEM_DISPATCH(ex, add_facet_diagonal(ex, facet_matrices(block), this->diagonal_.data()));
    exec->synchronize();  // the tables and loads above are freed on return
}

template <typename V>
PaOperator<V>::PaOperator(const PaOperator& fine, CoarseLevel, int pc, Array<index_type> coarse_nodes,
                          index_type coarse_size, Array<std::uint8_t> coarse_mask)
    : exec_(fine.exec_), dim_(fine.dim_), p1_(pc), q1_(fine.q1_), lower_order_(fine.lower_order_),
      num_cells_(fine.num_cells_), num_nodes_(coarse_size), nodes_(std::move(coarse_nodes)), factors_(fine.factors_),
      point_weights_(fine.point_weights_), shares_factors_(true), mask_(std::move(coarse_mask)),
      points_1d_(fine.points_1d_)
{
    const int npe = pa_nodes_per_cell(args());
    gmsh_of_lex_.resize(static_cast<std::size_t>(npe));
    for (int l = 0; l < npe; ++l) gmsh_of_lex_[static_cast<std::size_t>(l)] = l;  // its nodes are lexicographic
    if (!mask_.empty()) dirichlet_ = masked_nodes(exec_, mask_);
}

template <typename V>
std::unique_ptr<PaOperator<V>> PaOperator<V>::coarse_level(int pc, const std::vector<double>& basis,
                                                           const std::vector<double>& derivative,
                                                           Array<index_type> coarse_nodes, index_type coarse_size,
                                                           Array<std::uint8_t> coarse_mask) const
{
    const std::size_t table = static_cast<std::size_t>(q1_) * static_cast<std::size_t>(pc);
    const std::size_t per_cell = dim_ == 2 ? static_cast<std::size_t>(pc * pc) : static_cast<std::size_t>(pc * pc * pc);
    if (pc < 2 || pc > q1_ || basis.size() != table || derivative.size() != table)
        throw std::invalid_argument("PaOperator::coarse_level: the coarse tables are not q1 x pc");
    if (coarse_nodes.size() != per_cell * static_cast<std::size_t>(num_cells_) ||
        (!coarse_mask.empty() && coarse_mask.size() != static_cast<std::size_t>(coarse_size)))
        throw std::invalid_argument("PaOperator::coarse_level: the coarse nodes or mask do not match the cells");
    if (!robin_.empty()) throw std::invalid_argument("PaOperator::coarse_level: not with Robin facets");
    std::unique_ptr<PaOperator<V>> out(
        new PaOperator<V>(*this, CoarseLevel{}, pc, std::move(coarse_nodes), coarse_size, std::move(coarse_mask)));
    out->basis_ = table_on<V>(exec_, basis);
    out->derivative_ = table_on<V>(exec_, derivative);
    out->diagonal_ = Array<V>(exec_, coarse_size);
    fill(out->diagonal_, V(0));
    const Executor& ex = *exec_;
    GPUFEM_DISPATCH(ex, pa_diagonal(ex, out->args(), out->diagonal_.data()));
    return out;
}

template <typename V>
PaArgs<V> PaOperator<V>::args() const
{
    return {dim_, p1_, q1_, lower_order_, num_cells_, nodes_.data(), factors_->data(), basis_.data(),
            derivative_.data(), point_weights_ ? point_weights_->data() : nullptr};
}

template <typename V>
void PaOperator<V>::keep_cell_factors(const std::vector<double>& weights_of_lex)
{
    const PaArgs<V> a = args();
    if (static_cast<int>(weights_of_lex.size()) != pa_points_per_cell(a))
        throw std::invalid_argument("PaOperator: the tensor basis has no weight per point");
    auto weights = std::make_shared<Array<V>>(
        Array<V>::from_host(exec_, std::vector<V>(weights_of_lex.begin(), weights_of_lex.end())));
    auto cell = std::make_shared<Array<V>>(
        exec_, static_cast<std::size_t>(num_cells_) * pa_point_components(dim_, lower_order_));
    const Executor& ex = *exec_;
    if (!GPUFEM_DISPATCH(ex, pa_cell_factors(ex, a, weights->data(), cell->data()))) return;
    factors_ = std::move(cell);
    point_weights_ = std::move(weights);
}

template <typename V>
void PaOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *exec_;
    GPUFEM_DISPATCH(exec, lma_prepare(exec, num_nodes_, alpha, x.data(), beta, y.data(), dirichlet_.data(),
                                      static_cast<index_type>(dirichlet_.size()), this->diagonal_.data()));
    GPUFEM_DISPATCH(exec, pa_apply_cells(exec, args(), 0, num_cells_, alpha, x.data(), y.data(), PaColumns::free));
    add_facets(alpha, x.data(), y.data());
}

template <typename V>
void PaOperator<V>::add_facets(V alpha, const V* x, V* y) const
{
    facet_action(alpha, x, y, false);
}

template <typename V>
void PaOperator<V>::facet_action(V alpha, const V* x, V* y, bool dirichlet_columns) const
{
    const std::uint8_t* mask = mask_.empty() ? nullptr : mask_.data();
    for (const RobinFacetBlock& block : robin_.blocks)
        GPUFEM_DISPATCH(*exec_, add_facet_action(*exec_, facet_matrices(block), alpha, x, mask, dirichlet_columns, y));
}

template <typename V>
std::size_t PaOperator<V>::facet_bytes() const
{
    std::size_t bytes = 0;
    for (const RobinFacetBlock& block : robin_.blocks)
        bytes += block.matrices.bytes() + block.nodes.size() * (sizeof(index_type) + 2 * sizeof(V));
    return bytes;
}

template <typename V>
void PaOperator<V>::add_cells(V alpha, const V* x, V* y, index_type begin, index_type end) const
{
    GPUFEM_DISPATCH(*exec_, pa_apply_cells(*exec_, args(), begin, end, alpha, x, y, PaColumns::free));
}

template <typename V>
std::size_t PaOperator<V>::cell_bytes(index_type cells) const
{
    const PaArgs<V> a = args();
    const std::size_t points = point_weights_ ? 1 : pa_points_per_cell(a), npe = pa_nodes_per_cell(a);
    return static_cast<std::size_t>(cells) *
           (points * pa_point_components(dim_, lower_order_) * sizeof(V) + npe * (sizeof(index_type) + sizeof(V)));
}

template <typename V>
void PaOperator<V>::eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const
{
    if (g.size() != static_cast<std::size_t>(num_nodes_) || rhs.size() != g.size())
        throw std::invalid_argument("PaOperator::eliminate_dirichlet: vectors need one value per node");
    if (mask_.empty()) return;
    const Executor& exec = *exec_;
    GPUFEM_DISPATCH(exec,
                    pa_apply_cells(exec, args(), 0, num_cells_, V(-1), g.data(), rhs.data(), PaColumns::dirichlet));
    facet_action(V(-1), g.data(), rhs.data(), true);
    GPUFEM_DISPATCH(exec, lma_dirichlet_rows(exec, num_nodes_, mask_.data(), this->diagonal_.data(), g.data(),
                                             rhs.data()));
}

template <typename V>
void PaOperator<V>::add_element_galerkin(int ncl, const std::vector<double>& projections,
                                         const CellCoarsening& coarsening, const index_type* cell_to_csr,
                                         V* values) const
{
    const std::size_t npe = gmsh_of_lex_.size(), per_child = npe * ncl;
    if (ncl <= 0 || projections.size() % per_child != 0)
        throw std::invalid_argument("PaOperator::add_element_galerkin: projections are not npe x ncl per child");
    std::vector<V> lexicographic(projections.size());  // rows in the operator's node order
    for (std::size_t c = 0; c < projections.size() / per_child; ++c)
        for (std::size_t l = 0; l < npe; ++l)
            for (int j = 0; j < ncl; ++j)
                lexicographic[c * per_child + l * ncl + j] =
                    static_cast<V>(projections[c * per_child + gmsh_of_lex_[l] * ncl + j]);
    const bool tensor = add_tensor_galerkin(ncl, projections, coarsening, cell_to_csr, values);
    const Array<V> p = Array<V>::from_host(exec_, lexicographic);
    GPUFEM_DISPATCH(*exec_,
                    pa_element_galerkin(*exec_, args(), ncl, p.data(), coarsening, cell_to_csr, values, tensor));
    exec_->synchronize();  // p is freed on return
}

template <typename V>
bool PaOperator<V>::add_tensor_galerkin(int ncl, const std::vector<double>& projections,
                                        const CellCoarsening& coarsening, const index_type* cell_to_csr,
                                        V* values) const
{
    if (dim_ != 3 || coarsening.parent || coarsening.child) return false;
    PaTensorBasis fine;
    fine.dim = dim_;
    fine.p1 = p1_;
    fine.q1 = q1_;
    fine.gmsh_of_lex = gmsh_of_lex_;
    fine.nodes_1d = nodes_1d_;
    fine.points_1d = points_1d_;
    const std::optional<PaCoarseTables> coarse = pa_coarse_tables(fine, ElementType::hexahedron, ncl, projections);
    if (!coarse || coarse->pc > q1_) return false;
    const Array<V> basis = table_on<V>(exec_, coarse->basis), derivative = table_on<V>(exec_, coarse->derivative);
    const Array<int> local_of_lex = Array<int>::from_host(exec_, coarse->local_of_lex);
    GPUFEM_DISPATCH(*exec_, pa_element_galerkin_tensor(*exec_, args(), coarse->pc, basis.data(), derivative.data(),
                                                       local_of_lex.data(), cell_to_csr, values));
    exec_->synchronize();  // the tables are freed on return
    return true;
}

template <typename V>
std::size_t PaOperator<V>::bytes_stored() const
{
    std::size_t bytes = (shares_factors_ ? 0 : factors_->bytes() + (point_weights_ ? point_weights_->bytes() : 0)) +
                        nodes_.bytes() + basis_.bytes() + derivative_.bytes() +
                        this->diagonal_.bytes() + mask_.bytes() + dirichlet_.bytes();
    for (const RobinFacetBlock& block : robin_.blocks) bytes += block.matrices.bytes() + block.nodes.bytes();
    return bytes;
}

template <typename V>
std::size_t PaOperator<V>::spmv_min_bytes() const
{
    return cell_bytes(num_cells_) + facet_bytes() + 2 * static_cast<std::size_t>(num_nodes_) * sizeof(V) +
           dirichlet_.size() * (sizeof(index_type) + 3 * sizeof(V));
}

template <typename V>
std::string PaOperator<V>::parameters() const
{
    return "degree=" + std::to_string(p1_ - 1) + " points=" + std::to_string(q1_) + "^" + std::to_string(dim_) +
           " factors=" + std::to_string(pa_point_components(dim_, lower_order_)) +
           (point_weights_ ? " per cell" : " per point");
}

template class PaOperator<float>;
template class PaOperator<double>;

}  // namespace gpufem
