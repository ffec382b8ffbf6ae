#include "solver/case/case_skeleton.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// The column where the lines' comments start.
constexpr std::size_t comment_column = 30;

/// A line of YAML with a comment aligned after it ("" comment: the code alone).
std::string line(const std::string& code, const std::string& comment = "")
{
    if (comment.empty()) return code + "\n";
    const std::size_t pad = code.size() < comment_column ? comment_column - code.size() : 1;
    return code + std::string(pad, ' ') + "# " + comment + "\n";
}

/// "a, b and c".
std::string names_text(const std::vector<GroupSummary>& groups)
{
    std::string out;
    for (std::size_t k = 0; k < groups.size(); ++k)
        out += (k == 0 ? "" : (k + 1 == groups.size() ? " and " : ", ")) + yaml_scalar(groups[k].name);
    return out;
}

/// The comment at the top: how to run the case, and what the mesh holds.
std::string header(const SkeletonMesh& mesh, const MeshSummary& s)
{
    std::string out = "# A case for " + yaml_scalar(mesh.path) + ", written by gpufem new-case.\n" +
                      "# Edit the values, then run it: gpufem run CASE.yaml\n" +
                      "# Every key, its default and its checks: gpufem run --help (docs/case-reference.md).\n";
    out += fmt::format("# The mesh: {}D, {}, {} nodes of order {}.\n", s.dim, cell_counts_text(s), s.nodes,
                       s.geometry_order);
    const std::vector<GroupSummary> regions = s.regions(), boundaries = s.boundary_groups();
    if (!regions.empty()) out += "# Regions: " + names_text(regions) + ".\n";
    if (!boundaries.empty()) out += "# Boundary groups: " + names_text(boundaries) + ".\n";
    return out;
}

/// mesh: and degree:, with the optional mesh keys as comments.
std::string mesh_block(const SkeletonMesh& mesh)
{
    std::string out = "mesh:\n";
    out += line("  " + mesh.key + ": " + yaml_scalar(mesh.path), "relative to this file");
    if (mesh.key == "geo") out += line("  # size: 0.05", "the largest element size (default: the file's own)");
    out += line("  # refine: 1", "split every cell in 4 (2D) or 8 (3D) after meshing");
    return out + line("degree: 1", "polynomial degree of the elements, 1 to 4 (quadrilaterals, hexahedra: 8)");
}

/// kappa: one value per region when every cell lies in a named region, else one value.
std::string kappa_lines(const MeshSummary& s)
{
    const std::vector<GroupSummary> regions = s.regions();
    if (regions.empty() || s.cells_in_no_region > 0)
        return line("  kappa: 1", "a number or an expression of x, y, z, e.g. \"1 + x*y\"");
    std::string out = line("  kappa:", "per region; each a number or an expression, e.g. \"1 + x*y\"");
    for (const GroupSummary& r : regions) out += line("    " + yaml_scalar(r.name) + ": 1");
    return out;
}

/// Dirichlet on the first boundary group; the others listed for Neumann or Robin conditions.
std::string condition_lines(const MeshSummary& s)
{
    const std::vector<GroupSummary> groups = s.boundary_groups();
    if (groups.empty())
        return line("  c: 1", "reaction term: keeps the problem well posed without boundary groups") +
               "  # The mesh has no boundary groups: name them in Gmsh (Physical Curve in 2D, Physical\n"
               "  # Surface in 3D) to give them conditions.\n";
    std::string out = line("  dirichlet:", "u given on these groups");
    out += line("    " + yaml_scalar(groups[0].name) + ": 0");
    if (groups.size() == 1) return out;
    out += "  # The other groups are insulated (kappa du/dn = 0) unless given a condition:\n";
    out += line("  # neumann:", "kappa du/dn, outward normal: positive flows in");
    for (std::size_t k = 1; k < groups.size(); ++k) out += line("  #   " + yaml_scalar(groups[k].name) + ": 0");
    out += line("  # robin:", "-kappa du/dn = h (u - u_inf): exchange with the surroundings");
    for (std::size_t k = 1; k < groups.size(); ++k)
        out += line("  #   " + yaml_scalar(groups[k].name) + ": {h: 10, u_inf: 0}");
    return out;
}

/// problem: the coefficients and the boundary conditions.
std::string problem_block(const MeshSummary& s)
{
    std::string out = line("problem:", "-div(kappa grad u) = f");
    out += kappa_lines(s);
    out += line("  f: 1", "the source; a number, an expression, or per region");
    return out + condition_lines(s);
}

/// solver: CG with AMG, and output:.
std::string solver_and_output_blocks()
{
    return line("solver:") + line("  method: cg", "symmetric problems (bicgstab with convection)") +
           line("  preconditioner: amg", "algebraic multigrid: few iterations on any mesh") +
           line("  tolerance: 1e-8", "relative residual to reach") + line("output:") +
           line("  write: true", "result.vtu, for ParaView") +
           line("  fluxes: auto", "the flux through each boundary group, in report.json");
}

/// Whether YAML reads `text` back as this string without quotes.
bool plain_yaml(const std::string& text)
{
    static constexpr std::array<std::string_view, 11> keywords = {"true", "false", "null", "yes", "no", "on",
                                                                  "off", "y", "n", "~", ""};
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (std::find(keywords.begin(), keywords.end(), lower) != keywords.end()) return false;
    const auto plain_char = [](unsigned char ch) { return std::isalnum(ch) || ch == '_' || ch == '.' || ch == '/' || ch == '-'; };
    const unsigned char first = static_cast<unsigned char>(text[0]);
    return (std::isalpha(first) || first == '_' || first == '.' || first == '/') &&
           std::all_of(text.begin(), text.end(), plain_char);
}

}  // namespace

std::string yaml_scalar(const std::string& text)
{
    if (plain_yaml(text)) return text;
    std::string out = "\"";
    for (const char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\';
        if (static_cast<unsigned char>(ch) < 0x20) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(ch));
            continue;
        }
        out += ch;
    }
    return out + "\"";
}

std::string case_skeleton(const SkeletonMesh& mesh, const MeshSummary& summary)
{
    return header(mesh, summary) + mesh_block(mesh) + problem_block(summary) + solver_and_output_blocks();
}

}  // namespace gpufem
