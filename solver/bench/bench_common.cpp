#include "solver/bench/bench_common.hpp"

#include <algorithm>

#include "linalg/array.hpp"
#include "linalg/interval_timer.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {

void write_bench_file(const CaseSpec& spec, const std::filesystem::path& output_dir, const std::string& name,
                      const std::string& text)
{
    RunOptions run_options;
    run_options.output_dir = output_dir;
    StagedOutputs outputs(output_folder(spec, run_options));
    outputs.write_text(name, text);
    outputs.commit();
}

double total(const std::vector<double>& values)
{
    double s = 0;
    for (double v : values) s += v;
    return s;
}

double median(std::vector<double> values)
{
    if (values.empty()) return 0.0;
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

double seconds_per_iteration(double long_seconds, int long_its, double short_seconds, int short_its)
{
    const double mean = long_seconds / std::max(1, long_its);
    if (long_its <= short_its) return mean;
    const double marginal = (long_seconds - short_seconds) / (long_its - short_its);
    return marginal >= 0.25 * mean ? marginal : mean;
}

double measure_copy_bandwidth(const ExecPtr& exec)
{
    const std::size_t bytes = exec->is_cuda() ? (std::size_t(1) << 30) : (std::size_t(1) << 28);
    Array<char> a(exec, bytes), b(exec, bytes);
    copy_bytes(*exec, b.data(), *exec, a.data(), bytes);  // first touch / warm-up
    auto timer = make_interval_timer(exec);
    for (int i = 0; i < 20; ++i) {
        timer->start();
        copy_bytes(*exec, i % 2 ? a.data() : b.data(), *exec, i % 2 ? b.data() : a.data(), bytes);
        timer->stop();
    }
    return 2.0 * bytes / median(timer->seconds());
}

}  // namespace gpufem
