// Boundary-condition kernels: Dirichlet values at the nodes of a group's facets and the
// Neumann load of its facets.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/boundary_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// For k < n with node = nodes[k]: value = program at coordinates[3 node ..] (double),
/// mask[node] = 1, values[node] = value (a node listed twice gets the same value, so
/// the order of writes does not matter). Returns the first k whose value is not
/// finite, or -1.
template <typename V>
long long set_dirichlet_values(const Executor& exec, const ExprInstruction* program,
                               const double* coordinates, const index_type* nodes, index_type n,
                               std::uint8_t* mask, V* values) GPUFEM_KERNEL_BODY

/// rhs[node_i] += sum_q w_q |J_q| g(x_q) N_i(q) over the facets (nodes_per_facet node
/// indices each in facet_nodes) of an isoparametric Lagrange facet map. Returns the
/// first facet * num_points + q where g is not finite (rhs is then partly updated), or
/// -1. cpu: facets in order (deterministic); cuda: one thread per facet, atomic adds
/// (as the element scatter).
template <typename V>
long long add_neumann_load(const Executor& exec, const ExprInstruction* program,
                           const double* coordinates, const index_type* facet_nodes,
                           index_type num_facets, const FacetTables& tables, V* rhs)
    GPUFEM_KERNEL_BODY
