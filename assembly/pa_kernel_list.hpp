// Kernels of the partial-assembly (pa) operator, see assembly/pa_kernels.hpp.
// A kernel list (linalg/backend_kernels.hpp). No include guard, no includes: it is read once
// per backend namespace. cuda: the same contracts, asynchronous on the executor's stream.

/// nodes[e p1^dim + l] = cells[e npe + gmsh_of_lex[l]] for every cell e and lexicographic
/// local node l, stored as ~node where mask[node] != 0 (mask null: none).
GPUFEM_KERNEL_INLINE void pa_lexicographic_nodes(const Executor& exec, index_type num_cells, int npe,
                                                 const index_type* cells, const int* gmsh_of_lex,
                                                 const std::uint8_t* mask, index_type* nodes)
    GPUFEM_KERNEL_BODY

/// For every cell e and lexicographic point q (rule point rule_of_lex[q] of a's tables):
/// the point's factors (see PaArgs::factors; a.has_lower_order decides the components) into
/// factors[c cells points + e points + q], and w |det J| f into loads[e points + q]. Returns
/// the signs of det J at the points, as jacobian_signs (assembly/geometry_check_kernels.hpp)
/// finds them (the rule's point numbers). tensor: the operator's lexicographic nodes and 1D
/// tables (its factors unused). cpu: cells in parallel, each point's Jacobian from a's
/// reference gradients, then jacobian_signs; cuda in 3D: a thread per point, a block per cell,
/// the Jacobian by sum factorisation of the nodes' coordinates (O(k^4) per cell instead of
/// O(k^6)) and its sign counted there; in 2D a thread per (cell, point) as the cpu.
template <typename V>
JacobianSigns pa_point_factors(const Executor& exec, const ElementArgs<V>& a, const PaArgs<V>& tensor,
                               const int* rule_of_lex, V* factors, V* loads) GPUFEM_KERNEL_BODY

/// Whether every cell's factors (a's, per point) are the same at all its points up to the
/// point's quadrature weight (weights[q], lexicographic): every |f_c(e, q) / w_q - f_c(e, 0) /
/// w_0| at most 1e-11 (float: 1e-5, the factors' own rounding) of its scale on the cell (the
/// largest |f / w| of G_ab's sqrt(G_aa G_bb), of beta's components, of the reaction), and
/// every factor finite. Writes cell_factors[c cells + e] = f_c(e, 0) / w_0 for every cell
/// either way. cpu: cells in parallel; cuda: a thread per cell, one flag, read back.
template <typename V>
bool pa_cell_factors(const Executor& exec, const PaArgs<V>& a, const V* weights, V* cell_factors) GPUFEM_KERNEL_BODY

/// rhs[node] += sum_q loads[e points + q] N_l(q) for every cell e and local node l (Dirichlet
/// nodes included: their rows are set later). cpu: sequential over cells, a sum over the points
/// per node; cuda: a thread per point, transposed contractions with the basis, atomics.
template <typename V>
void pa_loads(const Executor& exec, const PaArgs<V>& a, const V* loads, V* rhs) GPUFEM_KERNEL_BODY

/// diag[node] += K_e(l, l) for every cell e and local node l, Dirichlet nodes included (the
/// assembled diagonal once diag starts at zero). cpu: a sum over the points per node; cuda: a
/// thread per point, each term of K_e(l, l) a transposed contraction with products of the 1D
/// tables (O(k^{d+1}) per cell instead of O(k^{2d})), atomics.
template <typename V>
void pa_diagonal(const Executor& exec, const PaArgs<V>& a, V* diag) GPUFEM_KERNEL_BODY

/// y[n_l] += alpha (K_e x_e)_l for every cell e in [begin, end) and free local node l
/// (Dirichlet rows skipped), x_e the cell's values of x at the nodes columns selects (the
/// others zero), by sum factorisation. cpu: sequential over cells; cuda: a block of threads
/// per few cells, a thread per quadrature point, contractions through shared memory, atomics
/// into y.
template <typename V>
void pa_apply_cells(const Executor& exec, const PaArgs<V>& a, index_type begin, index_type end, V alpha,
                    const V* x, V* y, PaColumns columns) GPUFEM_KERNEL_BODY

/// p-multigrid's coarse operator from the operator's factors: values[cell_to_csr[E ncl^2 +
/// i ncl + j]] += (P^T K~_e P)_ij for every cell e (dirichlet_cells_only: every cell with a
/// Dirichlet node), as element_galerkin_add does
/// (assembly/element_galerkin_kernels.hpp: E and P from coarsening), K~_e the cell's element
/// matrix with the Dirichlet nodes' rows and columns zeroed but their diagonal kept; p:
/// npe x ncl per child, rows in lexicographic node order. K~_e P is formed column by column
/// by the cell's sum-factorised action. cpu: sequential over cells; cuda: a block per cell,
/// atomics.
template <typename V>
void pa_element_galerkin(const Executor& exec, const PaArgs<V>& a, int ncl, const V* p,
                         const CellCoarsening& coarsening, const index_type* cell_to_csr, V* values,
                         bool dirichlet_cells_only) GPUFEM_KERNEL_BODY

/// The same for every cell without a Dirichlet node, by sum factorisation when the coarse
/// space is a lower degree on the same cells: there P^T K_e P = B_c^T G B_c, B_c the coarse
/// basis and its gradients at the cell's quadrature points, tabulated in 1D (coarse_basis,
/// coarse_derivative: q1 x pc); coarse node m (lexicographic) is the coarse element's node
/// local_of_lex[m], its place in values cell_to_csr[e ncl^2 + i ncl + j]. cpu: sequential over
/// cells, column m the coarse tables' cell action on m's unit vector; cuda: a block per cell, a
/// thread per point, one coarse column at a time (its gradients at the points are products of
/// table entries, then transposed contractions to the coarse nodes), atomics.
template <typename V>
void pa_element_galerkin_tensor(const Executor& exec, const PaArgs<V>& a, int pc, const V* coarse_basis,
                                const V* coarse_derivative, const int* local_of_lex, const index_type* cell_to_csr,
                                V* values) GPUFEM_KERNEL_BODY
