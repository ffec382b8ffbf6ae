#include "solver/bench_lma_formats.hpp"

#include <sstream>
#include <stdexcept>

#include "assembly/lma_system.hpp"

namespace gpufem {
namespace {

constexpr LmaKernel every_kernel[] = {LmaKernel::cell, LmaKernel::tile, LmaKernel::twin};

std::string label_of(const FormatOptions& o)
{
    std::string label = std::string("lma-") + (o.lma_colour ? "colour" : "atomic") +
                        (o.lma_symmetric ? "-sym" : "");
    if (o.lma_kernel != "auto") label += ":" + o.lma_kernel;
    return label;
}

}  // namespace

bool is_lma_format(const std::string& name)
{
    return name == "lma" || name.rfind("lma-", 0) == 0 || name.rfind("lma:", 0) == 0;
}

std::vector<LmaBenchFormat> expand_lma_format(const std::string& name, const FormatOptions& base)
{
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("format '" + name + "': " + why +
                                    " (expected lma[-atomic|-colour|-all][-sym|-full][:KERNEL|:all])");
    };
    if (!is_lma_format(name)) fail("not an lma format");
    const std::size_t colon = name.find(':');
    const std::string head = name.substr(0, colon);
    std::vector<bool> scatters{base.lma_colour}, storages{base.lma_symmetric};
    bool both_storages = false, storage_given = false;
    std::stringstream tokens(head);
    std::string token;
    std::getline(tokens, token, '-');  // "lma"
    while (std::getline(tokens, token, '-')) {
        if (token == "atomic") scatters = {false};
        else if (token == "colour") scatters = {true};
        else if (token == "all") {
            scatters = {false, true};
            both_storages = true;
        } else if (token == "sym" || token == "full") {
            storages = {token == "sym"};
            storage_given = true;
        } else fail("unknown part '" + token + "'");
    }
    if (both_storages && !storage_given) storages = {false, true};
    std::vector<std::string> kernels{base.lma_kernel};
    if (colon != std::string::npos) {
        const std::string kernel = name.substr(colon + 1);
        if (kernel == "all") {
            kernels.clear();
            for (LmaKernel k : every_kernel) kernels.push_back(lma_kernel_name(k));
        } else {
            try {
                lma_kernel_from_name(kernel);
            } catch (const std::invalid_argument& e) {
                fail(e.what());
            }
            kernels = {kernel};
        }
    }
    std::vector<LmaBenchFormat> formats;
    for (bool symmetric : storages)
        for (bool colour : scatters)
            for (const std::string& kernel : kernels) {
                LmaBenchFormat f;
                f.options = base;
                f.options.lma_colour = colour;
                f.options.lma_symmetric = symmetric;
                f.options.lma_kernel = kernel;
                f.label = label_of(f.options);
                formats.push_back(std::move(f));
            }
    return formats;
}

std::vector<std::string> default_lma_formats() { return {"lma-all"}; }

template <typename V>
const LmaOperator<V>& LmaBenchBuilder<V>::build(const LmaBenchFormat& format, double& build_seconds,
                                                std::string& host_steps)
{
    const bool colour = format.options.lma_colour, symmetric = format.options.lma_symmetric;
    if (!last_.op || colour != last_colour_ || symmetric != last_symmetric_) {
        last_ = FormatBuild<V>();  // free the previous operator first
        last_ = std::move(assemble_lma_system<V>(exec_, mesh_, problem_, format.options).format);
        last_colour_ = colour;
        last_symmetric_ = symmetric;
    }
    auto& op = dynamic_cast<LmaOperator<V>&>(*last_.op);
    op.set_kernel(lma_kernel_from_name(format.options.lma_kernel));
    build_seconds = last_.convert_seconds;
    host_steps = last_.host_steps;
    return op;
}

template class LmaBenchBuilder<float>;
template class LmaBenchBuilder<double>;

}  // namespace gpufem
