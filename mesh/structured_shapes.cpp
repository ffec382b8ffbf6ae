#include "mesh/structured_shapes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <future>
#include <memory>
#include <stdexcept>

#include "mesh/gll_points.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_size_guard.hpp"
#include "mesh/shapes/cell_shape.hpp"
#include "mesh/stage_laps.hpp"
#include "mesh/structured_grid.hpp"

namespace gpufem {
namespace {

/// A point of the node lattice, or an offset between two (x, y, z; z = 0 in 2D).
using Lattice = std::array<long long, 3>;

/// The nodes of one cell or facet inside a box: their lattice offsets from the box's lowest
/// lattice point, in Gmsh's node order.
using NodePattern = std::vector<Lattice>;

/// Unit offset along an axis.
Lattice unit(int axis)
{
    Lattice e{0, 0, 0};
    e[axis] = 1;
    return e;
}

Lattice operator+(const Lattice& a, const Lattice& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Lattice operator*(long long s, const Lattice& a) { return {s * a[0], s * a[1], s * a[2]}; }

/// A simplex or box inside a unit box: a corner and its dim edge vectors (corner offsets in
/// box units, each component 0 or 1).
struct Frame {
    Lattice corner;
    std::vector<Lattice> edges;
};

/// The node pattern of a Lagrange element of `type` and order k placed on `frame`: the
/// reference node u (simplices: [0,1] coordinates; lines, quadrilaterals, hexahedra: [-1,1],
/// mapped to [0,1]) goes to k corner + sum_i k u_i edge_i, a lattice point since k u_i is an
/// integer for every Lagrange node.
/// `reference` holds the element's lattice points (equispaced_reference_nodes(type, k)): from
/// degree 5 the grid places the nodes (StructuredGrid::position), not the pattern.
NodePattern node_pattern(ElementType type, int k, const std::vector<double>& reference,
                         const Frame& frame)
{
    const ShapeTraits& shape = cell_shape(type);
    const int dim = shape.dim;
    NodePattern pattern;
    for (std::size_t q = 0; q < reference.size() / dim; ++q) {
        Lattice offset = static_cast<long long>(k) * frame.corner;
        for (int i = 0; i < dim; ++i) {
            const double u = shape.symmetric_axes[static_cast<std::size_t>(i)] ? (reference[q * dim + i] + 1.0) / 2.0
                                                                                : reference[q * dim + i];
            const long long steps = std::llround(k * u);
            if (std::abs(k * u - static_cast<double>(steps)) > 1e-9)
                throw std::logic_error("node_pattern: a Lagrange node off the lattice");
            offset = offset + steps * frame.edges[static_cast<std::size_t>(i)];
        }
        pattern.push_back(offset);
    }
    return pattern;
}

/// The cells that fill one box, as frames: the shape's grid_box_cells (one box, 2 triangles
/// split along the diagonal from the lower-left corner, or the 6 tetrahedra of Kuhn's split).
std::vector<Frame> box_cells(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    if (shape.grid_box_cells.empty()) throw std::logic_error("box_cells: not a cell type of a generated shape");
    std::vector<Frame> frames;
    for (const LatticeFrame& cell : shape.grid_box_cells) {
        Frame frame{{cell.corner[0], cell.corner[1], cell.corner[2]}, {}};
        for (int i = 0; i < shape.dim; ++i) {
            const LatticeVector& e = cell.edges[static_cast<std::size_t>(i)];
            frame.edges.push_back({e[0], e[1], e[2]});
        }
        frames.push_back(frame);
    }
    return frames;
}

/// The facets of the box cells on the box face x[axis] = side (0 or 1), as frames: a line
/// (2D), a quadrilateral, or the 2 triangles that Kuhn's split leaves on every face (diagonal
/// from the face's lowest corner, as in 2D).
std::vector<Frame> box_facets(ElementType cell_type, int axis, int side)
{
    const Lattice corner = static_cast<long long>(side) * unit(axis);
    if (element_dimension(cell_type) == 2) return {{corner, {unit(1 - axis)}}};
    const Lattice b = unit(axis == 0 ? 1 : 0), c = unit(axis == 2 ? 1 : 2);
    if (cell_shape(cell_type).box) return {{corner, {b, c}}};
    return {{corner, {b, b + c}}, {corner, {b + c, c}}};
}

/// The shape of a facet of a generated cell type (all its facets have one shape).
ElementType facet_type(ElementType cell_type)
{
    const ShapeTraits& shape = cell_shape(cell_type);
    return shape.dim == 2 ? ElementType::line : shape.face_type(0);
}

/// A side of the domain made of box faces: the plane x[axis] = plane (in box units) with the
/// domain on the side below it (side 1: the boxes have x[axis] = plane - 1) or above it (side
/// 0), over the boxes [lo, hi) in the other axes (in increasing axis order; 2D: one range).
struct BoxSide {
    int axis;
    int side;
    long long plane;
    std::array<long long, 2> lo, hi;
};

/// The sides of the domain, in the order the group 'boundary' lists them.
std::vector<BoxSide> grid_sides(const StructuredGrid& grid)
{
    const long long n = grid.n;
    if (grid.notch)  // x = -1, x = 0 below y = 0, x = 1, y = -1, y = 0 right of x = 0, y = 1
        return {{0, 0, 0, {0, 0}, {2 * n, 1}},     {0, 1, n, {0, 0}, {n, 1}},
                {0, 1, 2 * n, {n, 0}, {2 * n, 1}}, {1, 0, 0, {0, 0}, {n, 1}},
                {1, 0, n, {n, 0}, {2 * n, 1}},     {1, 1, 2 * n, {0, 0}, {2 * n, 1}}};
    std::vector<BoxSide> sides;
    for (int axis = 0; axis < grid.dim; ++axis) {
        const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
        const std::array<long long, 2> hi = {grid.boxes[b], grid.dim == 3 ? grid.boxes[c] : 1};
        sides.push_back({axis, 0, 0, {0, 0}, hi});
        sides.push_back({axis, 1, grid.boxes[axis], {0, 0}, hi});
    }
    return sides;
}

/// The node number of a lattice point.
long long point_index(const StructuredGrid& grid, const Lattice& p)
{
    return grid.point_index(p[0], p[1], p[2]);
}


/// Throws MeshSourceError unless the mesh of `refine` refinements fits 32-bit indices and
/// 80% of the host's memory (check_mesh_estimate); returns n.
long long checked_boxes_per_unit(const ShapeRequest& request, int refine, int degree,
                                 const std::string& source)
{
    // One box per unit length gives the shape's dimension and boxes per unit of its measure.
    const StructuredGrid unit_grid = box_grid(request.shape, 1, 1);
    const double boxes_per_measure = static_cast<double>(unit_grid.num_boxes());
    const double cells_per_box = static_cast<double>(box_cells(request.elements).size());
    const double nodes_per_cell = lagrange_node_count(request.elements, degree);
    const double n0 = std::ceil(1.0 / request.size - 1e-9);  // double: h may be tiny
    check_mesh_estimate(source, refine, [&](int r) {
        const double n = n0 * std::pow(2.0, r);
        const double cells = boxes_per_measure * std::pow(n, unit_grid.dim) * cells_per_box;
        const double nodes = boxes_per_measure * std::pow(n * degree + 1, unit_grid.dim);
        return MeshEstimate{cells, nodes, cells * nodes_per_cell,
                            nodes * 3 * sizeof(double) + cells * (nodes_per_cell + 1) * 4};
    });
    return static_cast<long long>(n0) << refine;
}

/// A range of boxes: those whose lowest corner lies in [lo, hi) (box units, per axis).
struct BoxWindow {
    long long lo[3];
    long long hi[3];
};

/// The window of every box of grid.
BoxWindow whole_window(const StructuredGrid& grid)
{
    return {{0, 0, 0}, {grid.boxes[0], grid.boxes[1], grid.boxes[2]}};
}

/// The boxes of a side within window: [u_lo, u_hi) x [v_lo, v_hi) in the side's two other
/// axes (2D: one row), and the layer of boxes across it; empty when the window misses it.
struct SideBoxes {
    long long across = 0, u_lo = 0, u_hi = 0, v_lo = 0, v_hi = 0;
    long long count() const { return std::max(0LL, u_hi - u_lo) * std::max(0LL, v_hi - v_lo); }
};

SideBoxes side_boxes(const StructuredGrid& grid, const BoxSide& side, const BoxWindow& window)
{
    const int b = side.axis == 0 ? 1 : 0, c = side.axis == 2 ? 1 : 2;
    SideBoxes out;
    out.across = side.side == 1 ? side.plane - 1 : side.plane;
    if (out.across < window.lo[side.axis] || out.across >= window.hi[side.axis]) return out;
    out.u_lo = std::max(side.lo[0], window.lo[b]);
    out.u_hi = std::min(side.hi[0], window.hi[b]);
    out.v_lo = grid.dim == 3 ? std::max(side.lo[1], window.lo[c]) : side.lo[1];
    out.v_hi = grid.dim == 3 ? std::min(side.hi[1], window.hi[c]) : side.hi[1];
    return out;
}

/// The facets of one boundary group: those of the sides for which `takes` holds, on the boxes
/// of window (the connectivity reserved first: a cube's whole boundary has millions of entries).
template <typename Takes>
BoundaryFacets side_facets(const StructuredGrid& grid, ElementType cell_type, const PhysicalGroup& group,
                           const BoxWindow& window, Takes&& takes)
{
    BoundaryFacets facets;
    facets.group = group;
    facets.type = facet_type(cell_type);
    facets.degree = grid.k;
    facets.nodes_per_facet = lagrange_node_count(facets.type, grid.k);
    const std::vector<double> reference = equispaced_reference_nodes(facets.type, grid.k);
    std::vector<std::pair<BoxSide, std::vector<NodePattern>>> taken;
    std::size_t entries = 0;
    for (const BoxSide& side : grid_sides(grid)) {
        if (!takes(side)) continue;
        std::vector<NodePattern> patterns;
        for (const Frame& frame : box_facets(cell_type, side.axis, side.side))
            patterns.push_back(node_pattern(facets.type, grid.k, reference, frame));
        entries += static_cast<std::size_t>(side_boxes(grid, side, window).count()) * patterns.size() *
                   static_cast<std::size_t>(facets.nodes_per_facet);
        taken.emplace_back(side, std::move(patterns));
    }
    facets.connectivity.reserve(entries);
    for (const auto& [side, patterns] : taken) {
        const int b = side.axis == 0 ? 1 : 0, c = side.axis == 2 ? 1 : 2;
        const SideBoxes boxes = side_boxes(grid, side, window);
        for (long long v = boxes.v_lo; v < boxes.v_hi; ++v)
            for (long long u = boxes.u_lo; u < boxes.u_hi; ++u) {
                Lattice box{0, 0, 0};
                box[side.axis] = boxes.across;
                box[b] = u;
                if (grid.dim == 3) box[c] = v;
                const Lattice base = static_cast<long long>(grid.k) * box;
                for (const NodePattern& pattern : patterns)
                    for (const Lattice& offset : pattern)
                        facets.connectivity.push_back(
                            static_cast<index_type>(point_index(grid, base + offset)));
            }
    }
    return facets;
}

/// Position of a side's plane along its axis.
double side_position(const StructuredGrid& grid, const BoxSide& side)
{
    return grid.origin[side.axis] + static_cast<double>(side.plane) / static_cast<double>(grid.n);
}

/// The boundary groups of a generated shape on the boxes of window: the shape's planes, then
/// every side as 'boundary'.
std::vector<BoundaryFacets> boundary_groups(const StructuredGrid& grid, const std::string& shape, ElementType type,
                                            const BoxWindow& window)
{
    // The groups do not depend on each other: each is made on a thread of its own (a cube's
    // whole boundary, the last and largest, took as long as its six planes together).
    const std::vector<PlaneGroup>& planes = shape_plane_groups(shape);
    std::vector<std::future<BoundaryFacets>> made;
    int tag = 1;
    for (const PlaneGroup& plane : planes)
        made.push_back(std::async(std::launch::async, [&grid, type, window, plane, tag = tag++] {
            return side_facets(grid, type, PhysicalGroup{plane.name, grid.dim - 1, tag}, window,
                               [&](const BoxSide& side) {
                                   return side.axis == plane.axis &&
                                          std::abs(side_position(grid, side) - plane.value) < 1e-12;
                               });
        }));
    made.push_back(std::async(std::launch::async, [&grid, type, window, tag] {
        return side_facets(grid, type, PhysicalGroup{"boundary", grid.dim - 1, tag}, window,
                           [](const BoxSide&) { return true; });
    }));
    std::vector<BoundaryFacets> groups;
    for (auto& group : made) groups.push_back(group.get());
    const bool whole = window.lo[0] == 0 && window.hi[0] == grid.boxes[0] && window.lo[1] == 0 &&
                       window.hi[1] == grid.boxes[1] && window.lo[2] == 0 && window.hi[2] == grid.boxes[2];
    for (std::size_t g = 0; g < planes.size(); ++g)
        if (whole && groups[g].connectivity.empty())
            throw std::logic_error("generate_shape_mesh: no side in the plane of group '" +
                                   std::string(planes[g].name) + "'");
    return groups;
}

/// groups = count copies of tag, written by the host's threads (the first to touch the pages of
/// a HostVector, which comes unwritten).
void tag_every_cell(HostVector<int>& groups, long long count, int tag)
{
    groups.resize(static_cast<std::size_t>(count));
    int* out = groups.data();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < count; ++c) out[c] = tag;
}

/// The cells of a box as lattice offsets (3 ints per node, cell after cell), the same for
/// every box; per_box: the cells of a box.
std::vector<int> box_patterns(ElementType type, int degree, int& per_box)
{
    std::vector<int> patterns;
    const std::vector<double> reference = equispaced_reference_nodes(type, degree);
    const std::vector<Frame> frames = box_cells(type);
    for (const Frame& frame : frames)
        for (const Lattice& offset : node_pattern(type, degree, reference, frame))
            for (long long component : offset) patterns.push_back(static_cast<int>(component));
    per_box = static_cast<int>(frames.size());
    return patterns;
}

}  // namespace

StructuredGrid box_grid(const std::string& shape, long long n, int k)
{
    StructuredGrid grid;
    grid.n = n;
    grid.k = k;
    if (k >= first_gll_degree) {
        const std::vector<double> nodes = gll_points(k + 1);
        for (int l = 0; l <= k; ++l) grid.gll_fractions[l] = 0.5 * (nodes[static_cast<std::size_t>(l)] + 1.0);
        grid.gll_fractions[0] = 0.0;
    }
    if (shape == "unit_cube") {
        grid.dim = 3;
        grid.boxes[0] = grid.boxes[1] = grid.boxes[2] = n;
    } else if (shape == "unit_square") {
        grid.boxes[0] = grid.boxes[1] = n;
    } else if (shape == "l_shape") {
        grid.boxes[0] = grid.boxes[1] = 2 * n;
        grid.origin[0] = grid.origin[1] = -1.0;
        grid.notch = true;
    } else {
        throw std::logic_error("box_grid: '" + shape + "' is not a generated shape");
    }
    return grid;
}

MeshCounts shape_mesh_counts(const ShapeRequest& request, int refine, int degree,
                             const std::string& source)
{
    const long long n = checked_boxes_per_unit(request, refine, degree, source);
    const StructuredGrid grid = box_grid(request.shape, n, degree);
    MeshCounts counts;
    counts.dim = grid.dim;
    counts.cell_type = request.elements;
    counts.degree = degree;
    counts.nodes = static_cast<double>(grid.num_points());
    counts.cells = static_cast<double>(grid.num_boxes()) * static_cast<double>(box_cells(request.elements).size());
    counts.nodes_per_cell = lagrange_node_count(request.elements, degree);
    // Every side's facets are in 'boundary' and in the plane group of the side (if any).
    const ElementType facet = facet_type(request.elements);
    double side_facets = 0;
    for (const BoxSide& side : grid_sides(grid)) {
        double boxes = static_cast<double>(side.hi[0] - side.lo[0]);
        if (grid.dim == 3) boxes *= static_cast<double>(side.hi[1] - side.lo[1]);
        side_facets += boxes * static_cast<double>(box_facets(request.elements, side.axis, side.side).size());
    }
    const double groups = shape_plane_groups(request.shape).empty() ? 1.0 : 2.0;
    counts.facet_entries = groups * side_facets * lagrange_node_count(facet, degree);
    counts.shape = request.shape;
    counts.boxes_per_unit = n;
    return counts;
}

Mesh generate_shape_mesh(const ShapeRequest& request, int refine, int degree,
                         const std::string& source, const ExecPtr& device)
{
    const long long n = checked_boxes_per_unit(request, refine, degree, source);
    const StructuredGrid grid = box_grid(request.shape, n, degree);
    const ElementType type = request.elements;

    Mesh mesh;
    mesh.dim = grid.dim;
    mesh.cell_type = type;
    mesh.degree = degree;
    mesh.nodes_per_cell = lagrange_node_count(type, degree);
    mesh.source = source;

    int per_box = 0;
    const std::vector<int> patterns = box_patterns(type, degree, per_box);
    const long long points = checked_index(grid.num_points(), "nodes of " + source);
    const long long boxes = grid.num_boxes();
    const long long entries = boxes * per_box * mesh.nodes_per_cell;
    checked_index(entries, "cell node entries of " + source);

    // On a device executor the same arrays are also written there (while the host writes its
    // own), so that assembly finds the mesh on the device instead of uploading it.
    StageLaps laps;
    std::shared_ptr<MeshOnDevice> copy;
    Array<int> device_patterns;
    if (device && device->is_cuda()) {
        copy = std::make_shared<MeshOnDevice>();
        device_patterns = Array<int>::from_host(device, patterns);
        copy->coordinates = Array<double>(device, 3 * static_cast<std::size_t>(points));
        copy->cells = Array<index_type>(device, static_cast<std::size_t>(entries));
        kernels::cuda::fill_structured_mesh(*device, grid, device_patterns.data(), per_box,
                                            mesh.nodes_per_cell, copy->coordinates.data(),
                                            copy->cells.data());
    }
    mesh.coordinates.resize(3 * static_cast<std::size_t>(points));
    mesh.cells.resize(static_cast<std::size_t>(entries));
    static const ExecPtr host = Executor::create_cpu();
    kernels::cpu::fill_structured_mesh(*host, grid, patterns.data(), per_box, mesh.nodes_per_cell,
                                       mesh.coordinates.data(), mesh.cells.data());
    laps.lap("host nodes and cells");
    if (copy) {
        device->synchronize();
        mesh.device = std::move(copy);
        laps.lap("device's wait");
    }

    const long long cell_count = boxes * per_box;
    mesh.generated_grid = GeneratedGrid{request.shape, n};
    mesh.subdomains = {PhysicalGroup{"domain", grid.dim, 1}};
    tag_every_cell(mesh.cell_group, cell_count, 1);
    laps.lap("cell groups");

    mesh.boundaries = boundary_groups(grid, request.shape, type, whole_window(grid));
    laps.lap("boundary groups");
    spdlog::debug("mesh {}: {}", source, laps.text);
    return mesh;
}

ShapeGrid make_shape_grid(const ShapeRequest& request, int refine, int degree, const std::string& source)
{
    const long long n0 = static_cast<long long>(std::ceil(1.0 / request.size - 1e-9));
    const StructuredGrid unit_grid = box_grid(request.shape, 1, 1);
    const double points = std::pow(static_cast<double>(n0) * std::pow(2.0, refine) * degree + 1, unit_grid.dim);
    if (!(points < 2147483647.0))
        throw MeshSourceError(source + ": " + std::to_string(static_cast<long long>(points)) +
                              " nodes would not fit 32-bit indices");
    ShapeGrid out;
    out.grid = box_grid(request.shape, n0 << refine, degree);
    out.shape = request.shape;
    out.type = request.elements;
    out.patterns = box_patterns(request.elements, degree, out.cells_per_box);
    out.nodes_per_cell = lagrange_node_count(request.elements, degree);
    out.source = source;
    return out;
}

std::vector<BoundaryFacets> shape_boundaries(const ShapeGrid& shape, const long long lo[3], const long long hi[3])
{
    return boundary_groups(shape.grid, shape.shape, shape.type, BoxWindow{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}});
}

}  // namespace gpufem
