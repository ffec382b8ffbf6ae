#pragma once
// The `pa` level: partial assembly with sum factorisation on quadrilaterals and hexahedra.
// Only the geometric and coefficient factors at the quadrature points are stored (once per
// cell on affine cells with coefficients constant on them); each apply recomputes the element
// actions from them with one-dimensional contractions (see pa_kernels.hpp), so memory and
// traffic grow like the points, not like the element matrices' k^{2d} entries.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "assembly/element_data.hpp"
#include "assembly/pa_kernels.hpp"
#include "assembly/pa_tensor_basis.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// A = sum_e P_e^T K_e P_e (+ the Robin facets' boundary mass matrices) applied by sum
/// factorisation, Dirichlet nodes eliminated symmetrically (the operator of the assembled
/// matrix after apply_dirichlet: masked rows and columns zero except a_ii). Its diagonal() is
/// the assembled one (kept on Dirichlet rows). Gives a float copy of itself for a multigrid
/// cycle in single precision.
template <typename V>
class PaOperator final : public LinearOperator<V>, public FloatCopyable {
public:
    /// From the element data of a box mesh (geometry, coefficients at the rule's points, on
    /// exec) and the element's tensor structure; dirichlet_mask: one byte per node, or
    /// empty; robin: the Robin facets with their matrices (applied facet by facet beside the
    /// cells). Adds each cell's load into rhs (one value per node, on exec).
    PaOperator(const ExecPtr& exec, const ElementData<V>& data, const PaTensorBasis& basis,
               const Array<std::uint8_t>& dirichlet_mask, Array<V>& rhs, RobinFacets robin = {});

    index_type rows() const override { return num_nodes_; }
    index_type cols() const override { return num_nodes_; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "pa"; }
    /// Factors, lexicographic nodes, tables, diagonal, mask, Dirichlet list and Robin facets.
    std::size_t bytes_stored() const override;
    /// Factors and node indices once, x gathered once per cell-node, y read and written once
    /// (and the Dirichlet nodes' index, x, diagonal and y once).
    std::size_t spmv_min_bytes() const override;
    /// e.g. "degree=3 points=4^3 factors=6 per point" ("per cell": see keep_cell_factors).
    std::string parameters() const override;
    /// The operator with its factors, tables, diagonal and (double) Robin matrices copied in
    /// float: half the bytes of a product for a float multigrid cycle.
    std::unique_ptr<LinearOperator<float>> float_copy() const override;

    /// The eliminated right-hand side from the unconstrained one: on Dirichlet rows
    /// rhs_i = a_ii g_i; on the others rhs_i -= sum over Dirichlet j of a_ij g_j (the full
    /// operator's a_ij). g: one value per node (only Dirichlet ones read).
    void eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const;

    /// p-multigrid's coarse operator from the factors: adds (P^T K~_e P)_ij of every cell e
    /// into values[cell_to_csr[E ncl^2 + i ncl + j]], as element_galerkin_add does
    /// (assembly/element_galerkin_kernels.hpp): K~_e the cell's element matrix with Dirichlet
    /// rows and columns zeroed but their diagonal kept, projections P (npe x ncl per child,
    /// rows in the element's own node order) and E from coarsening. Arrays on executor().
    void add_element_galerkin(int ncl, const std::vector<double>& projections, const CellCoarsening& coarsening,
                              const index_type* cell_to_csr, V* values) const;
    /// y += alpha K_e x_e over the cells [begin, end) of the mesh's order (Dirichlet rows and
    /// columns skipped): a part of the operator's product (arrays of rows() values on executor()).
    void add_cells(V alpha, const V* x, V* y, index_type begin, index_type end) const;
    /// y += alpha M_f x_f over the Robin facets (free rows and columns): the rest of a product.
    void add_facets(V alpha, const V* x, V* y) const;
    /// What add_cells moves at least for `cells` cells: their factors and node indices, and x
    /// gathered per cell node.
    std::size_t cell_bytes(index_type cells) const;
    /// What add_facets moves at least: the facets' matrices and nodes, x gathered per node.
    std::size_t facet_bytes() const;
    /// Whether the operator holds Robin facets (its element Galerkin products leave them out).
    bool has_robin() const { return !robin_.empty(); }
    /// p-multigrid's coarse level of a lower degree on the same cells, in the Galerkin sense on
    /// every cell without a Dirichlet node: this operator's factors, shared and not copied,
    /// with the lower degree's 1D basis and derivative at this operator's points (basis,
    /// derivative: q1 x pc, q1 this operator's points per direction), so that each cell's
    /// action is B_c^T G B_c (P^T K_e P with P the exact interpolation, the fine space holding
    /// the coarse one). coarse_nodes: each cell's coarse unknowns in lexicographic order, ~node
    /// for the coarse Dirichlet nodes (pc^dim a cell, on executor()); coarse_size unknowns;
    /// coarse_mask one byte per coarse unknown (its Dirichlet nodes, eliminated as here) or
    /// empty. Throws std::invalid_argument on tables or nodes of the wrong size and with Robin
    /// facets (their boundary terms are not on the cells).
    std::unique_ptr<PaOperator<V>> coarse_level(int pc, const std::vector<double>& basis,
                                                const std::vector<double>& derivative, Array<index_type> coarse_nodes,
                                                index_type coarse_size, Array<std::uint8_t> coarse_mask) const;
    /// One byte per node, set on the Dirichlet nodes (empty: none).
    const Array<std::uint8_t>& dirichlet_mask() const { return mask_; }
    /// The 1D quadrature points of the tables (q1 of them).
    const std::vector<double>& points_1d() const { return points_1d_; }
    /// The cells it applies.
    index_type cells() const { return num_cells_; }
    /// Quadrature points per direction of each cell.
    int points_per_direction() const { return q1_; }
    /// The signs of det J at the points of the cells it was made from, found with its factors
    /// (check_jacobian_signs reads them; a coarse level's or a copy's: none counted).
    const JacobianSigns& jacobian_signs() const { return jacobian_signs_; }
    /// Whether the operator's cells are those of a mesh of this cell type and degree.
    bool covers(int dim, int degree, index_type cells) const
    {
        return dim == dim_ && degree == p1_ - 1 && cells == num_cells_;
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    template <typename W>
    friend class PaOperator;
    struct InPrecision {};
    struct CoarseLevel {};
    /// coarse_level's operator: fine's factors and executor, the rest given.
    PaOperator(const PaOperator& fine, CoarseLevel, int pc, Array<index_type> coarse_nodes, index_type coarse_size,
               Array<std::uint8_t> coarse_mask);
    /// Adds the coarse operator's entries of the cells without a Dirichlet node by sum
    /// factorisation when projections are a lower degree's basis on the same cells (3D);
    /// returns whether it did (the general kernel then takes only the other cells).
    bool add_tensor_galerkin(int ncl, const std::vector<double>& projections, const CellCoarsening& coarsening,
                             const index_type* cell_to_csr, V* values) const;

    /// A copy of from in V's precision (float_copy).
    template <typename W>
    PaOperator(const PaOperator<W>& from, InPrecision);

    PaArgs<V> args() const;
    /// Keeps the factors per cell instead of per point when every cell's are the same at all
    /// its points up to the weights (pa_cell_factors): an affine mesh with coefficients
    /// constant on each cell moves 1 / points of the factors' bytes in a product.
    void keep_cell_factors(const std::vector<double>& weights_of_lex);
    /// y += alpha M_f x_f over the Robin facets, free rows, free (or the Dirichlet) columns.
    void facet_action(V alpha, const V* x, V* y, bool dirichlet_columns) const;

    ExecPtr exec_;
    int dim_ = 0, p1_ = 0, q1_ = 0;
    bool lower_order_ = false;
    index_type num_cells_ = 0;
    index_type num_nodes_ = 0;
    Array<index_type> nodes_;     ///< [e][l] lexicographic, ~node if Dirichlet
    /// [c][e][q], or [c][e] with point_weights_; shared with the coarse levels made from this
    /// operator (coarse_level)
    std::shared_ptr<const Array<V>> factors_;
    /// The rule's weight at each lexicographic point when the factors are per cell (PaArgs::
    /// point_weights); null: per point
    std::shared_ptr<const Array<V>> point_weights_;
    bool shares_factors_ = false;  ///< another operator's factors (not counted in bytes_stored)
    JacobianSigns jacobian_signs_;
    Array<V> basis_, derivative_; ///< q1 x p1 tables
    Array<std::uint8_t> mask_;    ///< empty: no Dirichlet nodes
    Array<index_type> dirichlet_; ///< the Dirichlet nodes, ascending
    std::vector<int> gmsh_of_lex_;  ///< the element's node at each lexicographic position
    /// The 1D nodes and points of the tables (a coarse level has no nodes of its own here:
    /// add_element_galerkin is not for it)
    std::vector<double> nodes_1d_, points_1d_;
    RobinFacets robin_;             ///< the Robin facets and their matrices (empty: none)
};

}  // namespace gpufem
