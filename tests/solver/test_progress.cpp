// Progress lines and phase errors. Progress lines: drawn after the delay with phase, detail, percentage and times, erased at the
// end, nothing when disabled; the solve's status from the residuals the solver reports.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "solver/run/phase_errors.hpp"
#include "solver/run/progress_line.hpp"
#include "solver/run/solve_progress.hpp"

using namespace gpufem;

namespace {

/// Everything written to a temporary stream while body runs with these settings.
template <typename Body>
std::string captured(bool enabled, double delay, Body&& body)
{
    std::FILE* stream = std::tmpfile();
    const ProgressSettings before = progress_settings();
    set_progress_settings({enabled, delay, 0.01, stream});
    body();
    set_progress_settings(before);
    std::string text;
    std::rewind(stream);
    for (int c; (c = std::fgetc(stream)) != EOF;) text += static_cast<char>(c);
    std::fclose(stream);
    return text;
}

}  // namespace

TEST(ProgressLine, DrawsPhaseDetailFractionAndTimesThenErases)
{
    const std::string text = captured(true, 0.0, [] {
        const ProgressLine line("output", [] { return ProgressStatus{0.5, -1, "result.vtu"}; });
        EXPECT_TRUE(line.active());
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
    });
    EXPECT_NE(text.find("\r\033[Koutput: result.vtu  50%  elapsed "), std::string::npos) << text;
    EXPECT_NE(text.find(", ETA "), std::string::npos) << text;
    ASSERT_GE(text.size(), 4u);
    EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K") << "the line is erased at the end";
}

TEST(ProgressLine, ShortPhasesAndDisabledProgressDrawNothing)
{
    EXPECT_EQ(captured(true, 5.0, [] {
                  const ProgressLine line("solve", [] { return ProgressStatus{}; });
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
              }),
              "");
    EXPECT_EQ(captured(false, 0.0, [] {
                  const ProgressLine line("solve", [] { return ProgressStatus{}; });
                  EXPECT_FALSE(line.active());
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
              }),
              "");
}

TEST(SolveProgress, FractionRateAndEtaFromTheResiduals)
{
    SolveProgress progress(1e-8, 10000);
    EXPECT_EQ(progress.status().detail, "starting");
    progress.record(10, 1e-2);
    ProgressStatus s = progress.status();
    EXPECT_NEAR(s.fraction, 0.25, 1e-6);  // log(1e-2) / log(1e-8)
    EXPECT_NE(s.detail.find("iteration 10, residual 1.00e-02 (tolerance 1e-08)"), std::string::npos)
        << s.detail;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    progress.record(20, 1e-4);
    s = progress.status();
    EXPECT_NEAR(s.fraction, 0.5, 1e-6);
    // (1e-4 / 1e-2)^(1/10) = 0.6310 per iteration; 1e-4 -> 1e-8 takes 20 more iterations.
    EXPECT_NE(s.detail.find("rate 0.6310/iteration"), std::string::npos) << s.detail;
    EXPECT_GT(s.eta_seconds, 0.0);
    EXPECT_LT(s.eta_seconds, 60.0);
}

TEST(ProgressLine, DurationsReadNaturally)
{
    EXPECT_EQ(format_duration(1.234), "1.2 s");
    EXPECT_EQ(format_duration(185), "3 min 05 s");
    EXPECT_EQ(format_duration(7325), "2 h 02 min");
    EXPECT_EQ(format_duration(-1), "?");
}

TEST(PhaseErrors, OutOfMemoryAndCudaErrorsNameThePhase)
{
    const auto message = [](auto&& fn) {
        try {
            fn();
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([] { in_phase("assembly", [] { throw std::bad_alloc(); }); }).rfind(
                  "out of host memory in the assembly phase: ", 0),
              0u);
    EXPECT_EQ(message([] {
                  in_phase("solve", [] { throw std::runtime_error("CUDA out of memory: 512 MiB"); });
              }),
              "in the solve phase: CUDA out of memory: 512 MiB");
    EXPECT_EQ(message([] { in_phase("mesh", [] { throw std::runtime_error("mesh file 'a' not found"); }); }),
              "mesh file 'a' not found");
    EXPECT_EQ(in_phase("errors", [] { return 42; }), 42);
    // With the phase's memory estimate, the message says what was expected.
    const PhaseEstimate estimate{"solve", 1.5e9, 12.25e9};
    EXPECT_EQ(message([&] {
                  in_phase("solve", [] { throw std::runtime_error("CUDA out of memory: 512 MiB"); }, &estimate);
              }),
              "in the solve phase (about 1.50 GB on the host and 12.25 GB on the device were "
              "estimated for it): CUDA out of memory: 512 MiB");
    const PhaseEstimate host_only{"assembly", 3.2e9, 0};
    EXPECT_EQ(message([&] { in_phase("assembly", [] { throw std::bad_alloc(); }, &host_only); })
                  .rfind("out of host memory in the assembly phase (about 3.20 GB were estimated for it): ", 0),
              0u);
}
