#include "solver/case_format_options.hpp"

#include <bit>
#include <string_view>

namespace gpufem {
namespace {

constexpr std::string_view option_keys[] = {"coop",  "repeat",          "block", "tune",
                                            "slice", "threads_per_row", "sigma", "max_bytes",
                                            "alpha", "slice_height",    "streams",
                                            "scatter", "symmetric", "kernel"};
constexpr std::string_view scatters[] = {"atomic", "colour"};
constexpr std::string_view lma_kernels[] = {"auto", "cell", "tile", "twin", "row", "reg"};
constexpr std::string_view booleans[] = {"true", "false"};

bool to_bool(const CaseReader& reader, const CaseValue& value)
{
    return reader.to_choice(value, booleans) == "true";
}

int to_power_of_two(const CaseReader& reader, const CaseValue& value, int max)
{
    const int v = reader.to_int(value, 1);
    if (v > max || !std::has_single_bit(static_cast<unsigned>(v)))
        reader.fail(value, "expected a power of two from 1 to " + std::to_string(max) + ", got " +
                               std::to_string(v));
    return v;
}

}  // namespace

FormatOptions read_format_options(const CaseReader& reader, const CaseValue& value,
                                  nlohmann::json& resolved)
{
    FormatOptions o;
    for (const CaseValue& e : reader.entries(value, option_keys)) {
        if (e.key == "coop") o.csr_coop = to_power_of_two(reader, e, 32);
        if (e.key == "repeat") o.csr_repeat = reader.to_int(e, 1);
        if (e.key == "block") {
            o.csr_block = reader.to_int(e, 32);
            if (o.csr_block % 32 != 0 || o.csr_block > 1024)
                reader.fail(e, "expected a multiple of 32 from 32 to 1024, got " +
                                   std::to_string(o.csr_block));
        }
        if (e.key == "tune") o.csr_tune = to_bool(reader, e);
        if (e.key == "slice") o.sellp_slice = reader.to_int(e, 1);
        if (e.key == "threads_per_row") o.sellp_threads = to_power_of_two(reader, e, 32);
        if (e.key == "sigma") o.sellp_sigma = reader.to_int(e, 1);
        if (e.key == "max_bytes") {
            const double bytes = reader.to_double(e, "a number of bytes >= 0");
            if (bytes < 0) reader.fail(e, "expected a number of bytes >= 0");
            o.bdia_max_bytes = static_cast<std::size_t>(bytes);
        }
        if (e.key == "alpha") {
            o.staircase_alpha = reader.to_double(e, "a number in [0, 1)");
            if (o.staircase_alpha < 0 || o.staircase_alpha >= 1)
                reader.fail(e, "expected a number in [0, 1), got " + std::to_string(o.staircase_alpha));
        }
        if (e.key == "slice_height") o.staircase_slice = reader.to_int(e, 1);
        if (e.key == "streams") o.staircase_streams = to_bool(reader, e);
        if (e.key == "scatter") o.lma_colour = reader.to_choice(e, scatters) == "colour";
        if (e.key == "symmetric") o.lma_symmetric = to_bool(reader, e);
        if (e.key == "kernel") o.lma_kernel = std::string(reader.to_choice(e, lma_kernels));
    }
    resolved = {{"coop", o.csr_coop},
                {"repeat", o.csr_repeat},
                {"block", o.csr_block},
                {"tune", o.csr_tune},
                {"slice", o.sellp_slice},
                {"threads_per_row", o.sellp_threads},
                {"sigma", o.sellp_sigma},
                {"max_bytes", o.bdia_max_bytes},
                {"alpha", o.staircase_alpha},
                {"slice_height", o.staircase_slice},
                {"streams", o.staircase_streams},
                {"scatter", o.lma_colour ? "colour" : "atomic"},
                {"symmetric", o.lma_symmetric},
                {"kernel", o.lma_kernel}};
    return o;
}

}  // namespace gpufem
