#pragma once
// The tables the tensor flux kernels (assembly/tensor_flux_kernels.hpp) read, made once for a
// mesh of quadrilaterals or hexahedra on an executor: the 1D basis and derivatives from the nodes to the
// assembly rule's points and to the nodes themselves, and the lexicographic orders.
#include <optional>

#include "assembly/tensor_flux_kernels.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The tensor flux kernels' tables on one executor.
template <typename V>
class TensorFluxTables {
public:
    /// The tables of mesh's cells on exec, or nothing where the tensor kernels do not apply:
    /// a mesh that is not all quadrilaterals or all hexahedra of degree 2 to 8 whose assembly
    /// rule has as many Gauss points per direction as nodes.
    static std::optional<TensorFluxTables> make(const ExecPtr& exec, const Mesh& mesh);

    /// The pass at the assembly rule's points (element data of the assembly reference element).
    TensorFluxArgs<V> at_points() const;
    /// The pass at the nodes (element data whose points are the element's nodes, in its order).
    TensorFluxArgs<V> at_nodes() const;

private:
    TensorFluxTables() = default;
    int p1_ = 0;
    Array<int> gmsh_of_lex_, rule_of_lex_;
    Array<V> basis_, derivative_;            ///< at the rule's points
    Array<V> identity_, node_derivative_;    ///< at the nodes
};

}  // namespace gpufem
