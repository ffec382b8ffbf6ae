#pragma once
// Cases run through the pipeline on the CPU backend for the problem tests (Robin conditions,
// regions, fluxes): a case's solution, its errors over a sweep of sizes, the convergence rates
// expected of them, and the message of a case that is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fv_test_support.hpp"

namespace gpufem::test {

/// The CPU executor the tests share.
inline const ExecPtr& cpu_executor()
{
    static const ExecPtr exec = Executor::create_cpu();
    return exec;
}

/// The solution of a case (host copy), expected to converge.
inline std::vector<double> solution_of(const std::string& yaml, const std::filesystem::path& dir = {})
{
    const auto run = run_fv_case(yaml, cpu_executor(), dir);
    EXPECT_TRUE(run->solved.result.converged()) << run->solved.result.message;
    return run->solved.x.to_host();
}

/// The errors of yaml run with its placeholder replaced by each of values in turn.
inline std::vector<ErrorNorms> errors_at(const std::string& yaml, const std::string& placeholder,
                                         const std::vector<std::string>& values, const std::filesystem::path& dir = {})
{
    std::vector<ErrorNorms> errors;
    for (const std::string& value : values) {
        std::string text = yaml;
        text.replace(text.find(placeholder), placeholder.size(), value);
        const auto run = run_fv_case(text, cpu_executor(), dir);
        EXPECT_TRUE(run->solved.result.converged()) << run->solved.result.message;
        errors.push_back(*run->output.errors);
    }
    return errors;
}

/// Expects L2 rate k + 1 and H1 rate k (+- 0.25) between successive halvings of h; without
/// h1 (finite volumes' cell-centred errors) the L2 rate 2.
inline void expect_rates(const std::vector<ErrorNorms>& e, int k, const std::string& what, bool h1 = true)
{
    for (std::size_t i = 1; i < e.size(); ++i) {
        const double l2 = std::log2(e[i - 1].l2 / e[i].l2);
        const double rate_h1 = h1 ? std::log2(e[i - 1].h1_semi / e[i].h1_semi) : 0.0;
        std::cout << fmt::format("[ rate     ] {} level {}: L2 {:.3e} (rate {:.2f})", what, i, e[i].l2, l2)
                  << (h1 ? fmt::format("  H1 {:.3e} (rate {:.2f})", e[i].h1_semi, rate_h1) : "") << "\n";
        EXPECT_NEAR(l2, h1 ? k + 1 : 2, 0.25) << what << " level " << i;
        if (h1) EXPECT_NEAR(rate_h1, k, 0.25) << what << " level " << i;
    }
}

/// The message of the error a case gives when read or assembled ("accepted" when none).
inline std::string case_error_of(const std::string& yaml, const std::filesystem::path& dir = {})
{
    try {
        run_fv_case(yaml, cpu_executor(), dir, false);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "accepted";
}

/// Expects the message to hold every part.
inline void expect_says(const std::string& message, const std::vector<std::string>& parts)
{
    for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
}

}  // namespace gpufem::test
