#pragma once
// Small meshes whose summary (gpufem mesh-info) is known by construction: two structured
// blocks with named regions and boundaries, and hand-written .msh files with a distorted, an
// inverted, a clockwise and a folded cell.
#include <string>

#include <fmt/format.h>

namespace gpufem::test {

/// Two unit cubes side by side ([0, 2] x [0, 1] x [0, 1]) of n^3 hexahedra each: regions
/// "left_block" (x < 1) and "right_block", boundary groups "inlet" (x = 0) and "outlet"
/// (x = 2) of n^2 facets each; (2n + 1)(n + 1)^2 nodes.
inline std::string two_blocks_geo(int n)
{
    return fmt::format(R"(SetFactory("OpenCASCADE");
Box(1) = {{0, 0, 0, 1, 1, 1}};
Box(2) = {{1, 0, 0, 1, 1, 1}};
BooleanFragments{{ Volume{{1}}; Delete; }}{{ Volume{{2}}; Delete; }}
Transfinite Curve{{:}} = {};
Transfinite Surface{{:}};
Recombine Surface{{:}};
Transfinite Volume{{:}};
e = 1e-6;
Physical Volume("left_block") = Volume In BoundingBox{{-e, -e, -e, 1 + e, 1 + e, 1 + e}};
Physical Volume("right_block") = Volume In BoundingBox{{1 - e, -e, -e, 2 + e, 1 + e, 1 + e}};
Physical Surface("inlet") = Surface In BoundingBox{{-e, -e, -e, e, 1 + e, 1 + e}};
Physical Surface("outlet") = Surface In BoundingBox{{2 - e, -e, -e, 2 + e, 1 + e, 1 + e}};
)",
                       n + 1);
}

/// An MSH 2.2 file of one region "solid" (tag 7) and `elements` (MSH element lines), over
/// `nodes` (MSH node lines).
inline std::string msh_file(int dim, const std::string& nodes, int node_count, const std::string& elements,
                            int element_count)
{
    return fmt::format("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n{} 7 \"solid\"\n$EndPhysicalNames\n"
                       "$Nodes\n{}\n{}$EndNodes\n$Elements\n{}\n{}$EndElements\n",
                       dim, node_count, nodes, element_count, elements);
}

/// Two tetrahedra on the triangle (0,0,0), (1,0,0), (0,1,0): the first with its apex above
/// (positive), the second, cell 1, with its apex below (inverted: det J = -1, ratio -1).
inline std::string inverted_tetrahedron_msh()
{
    return msh_file(3, "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0 0 -1\n", 5,
                    "1 4 2 7 1 1 2 3 4\n2 4 2 7 1 1 2 3 5\n", 2);
}

/// The unit cube as one hexahedron with its corner (1, 1, 1) raised to (1, 1, 2): det J is 2
/// times the others' at that corner (the triple product of its edges) and equal at the other
/// seven, so its Jacobian ratio is 1/2.
inline std::string raised_corner_hexahedron_msh()
{
    return msh_file(3, "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 2\n8 0 1 1\n", 8,
                    "1 5 2 7 1 1 2 3 4 5 6 7 8\n", 1);
}

/// Three unit squares as quadrilaterals: counter-clockwise (cell 0), clockwise (cell 1: Gmsh
/// orients each surface as drawn, so this is valid) and folded into a bow tie (cell 2, its
/// det J changes sign: ratio -1).
inline std::string oriented_and_folded_quadrilaterals_msh()
{
    return msh_file(2,
                    "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 2 0 0\n6 3 0 0\n7 3 1 0\n8 2 1 0\n"
                    "9 4 0 0\n10 5 0 0\n11 5 1 0\n12 4 1 0\n",
                    12, "1 3 2 7 1 1 2 3 4\n2 3 2 7 1 5 8 7 6\n3 3 2 7 1 9 10 12 11\n", 3);
}

/// One triangle of order 2 on the corners (0,0), (1,0), (0,1), its long edge's midpoint
/// moved out by d = (0.1, 0.1): x = xi e1 + eta e2 + 4 xi eta d, so det J = 1 + 0.4 (xi + eta),
/// 1 at the corner (0,0) and 1.4 on the long edge: Jacobian ratio 1 / 1.4 = 5 / 7.
inline std::string curved_triangle_msh()
{
    return msh_file(2, "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0.5 0 0\n5 0.6 0.6 0\n6 0 0.5 0\n", 6,
                    "1 9 2 7 1 1 2 3 4 5 6\n", 1);
}

}  // namespace gpufem::test
