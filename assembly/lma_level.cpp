// The element-matrix level `lma` in the operator level registry: its options
// (format_options.lma), the builder the finite-element discretisation calls, and the variants
// benchmarks expand (lma[-atomic|-colour|-all][-sym|-full][:KERNEL|:all]).
#include <sstream>
#include <stdexcept>

#include "assembly/operator_levels.hpp"
#include "assembly/lma_system.hpp"
#include "assembly/part_lma_operator.hpp"

namespace gpufem {
namespace {

constexpr std::string_view scatter_names[] = {"atomic", "colour"};
constexpr std::string_view kernel_names[] = {"auto", "cell", "tile", "twin"};

LmaOptions parse_lma_options(const OptionReader& reader)
{
    LmaOptions o;
    if (reader.has("scatter"))
        o.scatter = reader.get_choice("scatter", scatter_names) == "colour" ? LmaScatter::colour
                                                                            : LmaScatter::atomic;
    if (reader.has("symmetric")) o.symmetric = reader.get_bool("symmetric");
    if (reader.has("kernel")) o.kernel = lma_kernel_from_name(reader.get_choice("kernel", kernel_names));
    return o;
}

nlohmann::json lma_options_json(const LmaOptions& o)
{
    return {{"scatter", o.scatter == LmaScatter::colour ? "colour" : "atomic"},
            {"symmetric", o.symmetric},
            {"kernel", lma_kernel_name(o.kernel)}};
}

template <typename V>
DiscreteSystem<V> build_lma(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                            const FormatOptions& options)
{
    LmaSystem<V> lma = assemble_lma_system<V>(exec, mesh, problem, options.get<LmaOptions>("lma"));
    DiscreteSystem<V> system;
    system.op = std::move(lma.format);
    system.rhs = std::move(lma.rhs);
    system.initial_guess = std::move(lma.initial_guess);
    system.dirichlet_count = lma.dirichlet_count;
    system.assembly_times = lma.times;  // the operator is the element matrices: all in assembly
    return system;
}

/// "lma-colour-sym:twin" for the options.
std::string label_of(const LmaOptions& o)
{
    std::string label = std::string("lma-") + (o.scatter == LmaScatter::colour ? "colour" : "atomic") +
                        (o.symmetric ? "-sym" : "");
    if (o.kernel != LmaKernel::automatic) label += std::string(":") + lma_kernel_name(o.kernel);
    return label;
}

/// suffix: [-atomic|-colour|-all][-sym|-full][:KERNEL|:all]; -all takes both scatters and
/// (unless -sym or -full follows) both storages; :all each kernel but auto.
std::vector<FormatVariant> lma_variants(std::string_view suffix, const FormatOptions& base_options)
{
    const std::string name = "lma" + std::string(suffix);
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("format '" + name + "': " + why +
                                    " (expected lma[-atomic|-colour|-all][-sym|-full][:KERNEL|:all])");
    };
    const LmaOptions base = base_options.get<LmaOptions>("lma");
    const std::size_t colon = name.find(':');
    std::vector<LmaScatter> scatters{base.scatter};
    std::vector<bool> storages{base.symmetric};
    bool both_storages = false, storage_given = false;
    std::stringstream tokens(name.substr(0, colon));
    std::string token;
    std::getline(tokens, token, '-');  // "lma"
    if (token != "lma") fail("not an lma format");
    while (std::getline(tokens, token, '-')) {
        if (token == "atomic") scatters = {LmaScatter::atomic};
        else if (token == "colour") scatters = {LmaScatter::colour};
        else if (token == "all") {
            scatters = {LmaScatter::atomic, LmaScatter::colour};
            both_storages = true;
        } else if (token == "sym" || token == "full") {
            storages = {token == "sym"};
            storage_given = true;
        } else fail("unknown part '" + token + "'");
    }
    if (both_storages && !storage_given) storages = {false, true};
    std::vector<LmaKernel> kernels{base.kernel};
    if (colon != std::string::npos) {
        const std::string kernel = name.substr(colon + 1);
        if (kernel == "all") {
            kernels = {LmaKernel::cell, LmaKernel::tile, LmaKernel::twin};
        } else {
            try {
                kernels = {lma_kernel_from_name(kernel)};
            } catch (const std::invalid_argument& e) {
                fail(e.what());
            }
        }
    }
    std::vector<FormatVariant> variants;
    for (bool symmetric : storages)
        for (LmaScatter scatter : scatters)
            for (LmaKernel kernel : kernels) {
                LmaOptions o = base;
                o.scatter = scatter;
                o.symmetric = symmetric;
                o.kernel = kernel;
                FormatVariant v{label_of(o), base_options};
                v.options.set("lma", o);
                variants.push_back(std::move(v));
            }
    return variants;
}

/// The LMA system of a rank's part (assembly/part_lma_operator.hpp).
template <typename V>
PartMatrixFreeSystem<V> build_part_lma(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                       const ProblemSpec& problem, const FormatOptions& options,
                                       const DirichletAdjustment<V>& owners_dirichlet)
{
    return assemble_part_lma_system<V>(exec, mesh, owned, problem, options.get<LmaOptions>("lma"), owners_dirichlet);
}

}  // namespace

OperatorLevelEntry lma_level_entry()
{
    OperatorLevelEntry e;
    e.name = "lma";
    e.summary = "matrix-free: element matrices kept, y = sum_e P_e^T K_e P_e x (Reguly & Giles 2012)";
    e.options = option_codec<LmaOptions>(
        {{"scatter", "atomic", "add element results with atomics, or `colour` (one launch per "
                               "element colour, no atomics, bitwise reproducible)"},
         {"symmetric", "false", "keep only the upper triangle of each element matrix"},
         {"kernel", "auto", "the cuda apply kernel: auto | cell (one thread per cell) | tile (a "
                            "block per tile of cells, a thread per cell and row) | twin (tiles, "
                            "row blocks paired in rounds: each symmetric entry leaves DRAM "
                            "once); auto: cell up to 8 nodes per cell, twin for symmetric "
                            "storage with atomics from 27, tile otherwise"}},
        parse_lma_options, lma_options_json);
    e.build_float = build_lma<float>;
    e.build_double = build_lma<double>;
    // The atomic scatter keeps the element matrices in the mesh's cell order; the colour
    // scatter reorders them by colour.
    e.keeps_element_matrices = [](const FormatOptions& options) {
        return options.get<LmaOptions>("lma").scatter == LmaScatter::atomic;
    };
    e.build_part_float = build_part_lma<float>;
    e.build_part_double = build_part_lma<double>;
    e.variants = lma_variants;
    e.bench_default_suffix = "-all";
    e.memory = [](const MatrixShape& m, const FormatOptions& options) {
        // Element matrices (full or upper triangle), their cells' node lists, the diagonal and
        // the Dirichlet mask and list. The atomic variant's element kernels write the stored
        // layout directly; the colour variant's are built from all full element matrices and
        // load vectors, ordered by colour.
        const auto o = options.get<LmaOptions>("lma");
        const double p = m.nodes_per_cell;
        const double entries = o.symmetric ? p * (p + 1) / 2 : p * p;
        const double stride = m.cells + 32;
        const double stored = stride * (entries * m.value_bytes + 4 * p) + m.rows * (m.value_bytes + 5);
        const double build = o.scatter == LmaScatter::atomic
                                 ? 0.0
                                 : m.cells * p * (p + 1) * m.value_bytes + 4 * stride;
        return FormatMemory{stored, stored + build, 4 * m.cells * p + 8 * stride};
    };
    return e;
}

}  // namespace gpufem
