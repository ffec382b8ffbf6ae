#include "solver/multigrid/lattice_product.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <spdlog/spdlog.h>

#include "linalg/precision.hpp"
#include "solver/multigrid/aggregation.hpp"

namespace gpufem {
namespace {

/// The lattice of numbering (count points, the longest axis `longest`), on exec.
CoarseLattice lattice_of(const LatticeNumbering& numbering, index_type count, long long longest, int dim,
                         const ExecPtr& exec)
{
    CoarseLattice out;
    if (longest >= (1LL << lattice_axis_bits) || count <= 0) return out;
    out.dim = dim;
    out.points = Array<std::uint64_t>(exec, static_cast<std::size_t>(count));
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, amg_lattice_points(e, numbering, count, out.points.data()));
    if (longest < (1LL << narrow_axis_bits) - 1) {
        out.narrow = Array<std::uint32_t>(exec, static_cast<std::size_t>(count));
        GPUFEM_DISPATCH(e, amg_narrow_lattice_points(e, out.points.data(), count, out.narrow.data()));
    }
    return out;
}

}  // namespace

CoarseLattice coarse_lattice(const StructuredGrid& grid, const ExecPtr& exec)
{
    LatticeNumbering numbering;
    numbering.grid = grid;
    const long long widest = std::max({grid.boxes[0], grid.boxes[1], grid.boxes[2]});
    const long long longest = (grid.notch ? std::max(widest, 2 * grid.n) : widest) * grid.k + 1;  // L-shape: 2n boxes a side
    const long long count = grid.num_points();
    if (count > 2147483647LL) return {};
    return lattice_of(numbering, static_cast<index_type>(count), longest, grid.dim, exec);
}

CoarseLattice coarse_lattice(const std::vector<index_type>& offsets, const std::vector<GridBox>& boxes, int dim,
                             const ExecPtr& exec)
{
    long long longest = 0;
    for (const GridBox& box : boxes)
        for (int a = 0; a < 3; ++a) longest = std::max(longest, box.lo[a] + box.extent[a]);
    const Array<index_type> offsets_on = Array<index_type>::from_host(exec, offsets);
    const Array<GridBox> boxes_on = Array<GridBox>::from_host(exec, boxes);
    LatticeNumbering numbering;
    numbering.parts = static_cast<int>(boxes.size());
    numbering.offsets = offsets_on.data();
    numbering.boxes = boxes_on.data();
    CoarseLattice out = lattice_of(numbering, offsets.back(), longest, dim, exec);
    exec->synchronize();  // the tables go out of scope
    return out;
}

template <typename V, typename O>
Csr<V, O> joined(const Csr<V, O>& left, const Csr<V>& right)
{
    const ExecPtr& exec = left.executor();
    const Executor& e = *exec;
    const auto nnz = static_cast<std::size_t>(left.nnz() + right.nnz());
    Array<O> ptr(exec, static_cast<std::size_t>(left.rows) + 1);
    Array<index_type> col(exec, nnz);
    Array<V> val(exec, nnz);
    GPUFEM_DISPATCH(e, amg_join_columns(e, left, right, left.cols, ptr.data(), col.data(), val.data()));
    return Csr<V, O>{left.rows, left.cols + right.cols, std::move(ptr), std::move(col), std::move(val)};
}

namespace {

/// C = [a | ghost] B by windows (ghost null: a alone; A's values rounded to V as they are
/// read), or nullopt when a row leaves its window or the lattice is empty.
template <typename VA, typename V, typename O>
std::optional<Csr<V>> window_product(const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b,
                                     const CoarseLattice& lattice, WindowCentre centre, index_type first)
{
    if (a.cols + (ghost ? ghost->cols : 0) != b.rows) throw std::invalid_argument("lattice_product: inner dimensions differ");
    if (lattice.empty() || b.cols > static_cast<index_type>(lattice.points.size())) return std::nullopt;
    const Executor& e = *a.executor();
    Csr<V> c{a.rows, b.cols, Array<index_type>(a.executor(), static_cast<std::size_t>(a.rows) + 1), {}, {}};
    if (GPUFEM_DISPATCH(e, amg_lattice_product(e, a, ghost, b, lattice.points.data(), lattice.narrow.data(),
                                                      lattice.dim, centre, first, c)))
        return c;
    spdlog::debug("lattice product: a row of {} x {} leaves its window; the general product", a.rows, b.cols);
    return std::nullopt;
}

/// What a product of rows with 64-bit offsets that leave their windows gets: no general
/// product takes such rows.
[[noreturn]] void refuse_general_product()
{
    throw std::invalid_argument("p-multigrid: the Galerkin product of a matrix past 2^31 - 1 entries (64-bit "
                                "row offsets) is made on a generated grid's levels only; run on more ranks");
}

}  // namespace

template <typename V, typename O>
Csr<V> lattice_product(const Csr<V, O>& a, const Csr<V>& b, const CoarseLattice& lattice, WindowCentre centre,
                       index_type first)
{
    if (std::optional<Csr<V>> c = window_product(a, static_cast<const Csr<V>*>(nullptr), b, lattice, centre, first))
        return std::move(*c);
    if constexpr (std::is_same_v<O, index_type>) return sparse_product(a, b);
    else refuse_general_product();
}

template <typename V, typename O>
Csr<V> lattice_product(const Csr<V, O>& local, const Csr<V>& ghost, const Csr<V>& b, const CoarseLattice& lattice,
                       WindowCentre centre)
{
    if (local.rows != ghost.rows) throw std::invalid_argument("lattice_product: the blocks' rows differ");
    if (std::optional<Csr<V>> c = window_product(local, &ghost, b, lattice, centre, 0)) return std::move(*c);
    if constexpr (std::is_same_v<O, index_type>) return sparse_product(joined(local, ghost), b);
    else refuse_general_product();  // before a joined copy of the rank's rows is made
}

template <typename V, typename O>
Csr<V> lattice_galerkin(const Csr<V>& r, const Csr<V, O>& a, const Csr<V>& p, const CoarseLattice& lattice)
{
    return lattice_product(r, lattice_product(a, p, lattice, WindowCentre::lowest_of_b_row), lattice,
                           WindowCentre::row_point);
}

Csr<float> lattice_galerkin(const Csr<float>& r, const Csr<double>& a, const Csr<float>& p,
                            const CoarseLattice& lattice)
{
    std::optional<Csr<float>> ap =
        window_product(a, static_cast<const Csr<double>*>(nullptr), p, lattice, WindowCentre::lowest_of_b_row, 0);
    if (!ap) ap = sparse_product(rounded_to_float(a), p);  // a row off its window: the general product
    return lattice_product(r, *ap, lattice, WindowCentre::row_point);
}

#define GPUFEM_INSTANTIATE(V)                                                                              \
    template Csr<V> lattice_product(const Csr<V>&, const Csr<V>&, const CoarseLattice&, WindowCentre, index_type); \
    template Csr<V> lattice_product(const WideCsr<V>&, const Csr<V>&, const CoarseLattice&, WindowCentre,       \
                                    index_type);                                                               \
    template Csr<V> lattice_product(const Csr<V>&, const Csr<V>&, const Csr<V>&, const CoarseLattice&,          \
                                    WindowCentre);                                                             \
    template Csr<V> lattice_product(const WideCsr<V>&, const Csr<V>&, const Csr<V>&, const CoarseLattice&,      \
                                    WindowCentre);                                                             \
    template Csr<V> joined(const Csr<V>&, const Csr<V>&);                                                      \
    template WideCsr<V> joined(const WideCsr<V>&, const Csr<V>&);                                              \
    template Csr<V> lattice_galerkin(const Csr<V>&, const Csr<V>&, const Csr<V>&, const CoarseLattice&);         \
    template Csr<V> lattice_galerkin(const Csr<V>&, const WideCsr<V>&, const Csr<V>&, const CoarseLattice&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
