// `gpufem study` and `gpufem report` through the program on the CPU backend: every point run
// once, the table complete, a resumed study that does not run finished points again, a point
// that does not fit skipped with its reason, the plots (PNG files of 800 x 500 pixels: they
// need python3-matplotlib), and reports of a run, a sweep and a failed run. Also the study
// file's errors, read in this process.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "solver/case/case_file.hpp"
#include "solver/run_gpufem.hpp"
#include "solver/study/study_output.hpp"
#include "solver/study/study_points.hpp"
#include "solver/study/study_spec.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

/// A tiny base case: Q1 on 4 x 4 squares, no result.vtu.
constexpr const char* tiny_case = R"yaml(mesh: {shape: unit_square, elements: quadrilateral, size: 0.25}
problem:
  f: "2*pi^2*sin(pi*x)*sin(pi*y)"
  exact: "sin(pi*x)*sin(pi*y)"
  dirichlet: {boundary: 0}
output: {write: false}
)yaml";

/// A study of it: 2 degrees x 2 formats, and a third "degree" point far too large to fit.
constexpr const char* tiny_study = R"yaml(title: tiny study
case: tiny.yaml
set: {solver.tolerance: 1e-10}
axes:
  size:
    - {label: small, mesh.refine: 0}
    - {label: huge, mesh: {shape: unit_cube, size: 0.25}, mesh.refine: 8}
  degree: [1, 2]
  format: [csr, ell]
choose: [format]
metric: iterations_per_second
x: degree
paper:
  source: a test
  gpu: none
  values:
    - {at: {size: small, degree: 1, format: csr}, value: 1000}
)yaml";

std::string read_text(const fs::path& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Width and height of a PNG file from its IHDR chunk; {0, 0} when it is not a PNG.
std::array<unsigned, 2> png_size(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 24> head{};
    in.read(reinterpret_cast<char*>(head.data()), head.size());
    if (!in || head[1] != 'P' || head[2] != 'N' || head[3] != 'G') return {0, 0};
    auto word = [&](int at) {
        return unsigned(head[at]) << 24 | unsigned(head[at + 1]) << 16 | unsigned(head[at + 2]) << 8 | head[at + 3];
    };
    return {word(16), word(20)};
}

/// Expects every named PNG in folder, non-empty, 800 x 500 pixels.
void expect_plots(const fs::path& folder, std::initializer_list<const char*> names)
{
    for (const char* name : names) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(fs::exists(folder / name)) << "missing (python3-matplotlib installed?)";
        EXPECT_GT(fs::file_size(folder / name), 1000u);
        EXPECT_EQ(png_size(folder / name), (std::array<unsigned, 2>{800, 500}));
    }
}

/// The row of study.json with this folder.
const nlohmann::json& row_named(const nlohmann::json& study, const std::string& folder)
{
    for (const nlohmann::json& row : study["points"])
        if (row["folder"] == folder) return row;
    throw std::runtime_error("no point " + folder);
}

/// A folder with the tiny case and study written in it.
struct StudyFolder {
    test::TempDir dir;
    fs::path study = dir.write("tiny_study.yaml", tiny_study);
    fs::path base = dir.write("tiny.yaml", tiny_case);
    fs::path out = dir.path() / "out";
    test::CommandResult run(const std::string& extra = "") const
    {
        return test::run_gpufem("study " + study.string() + " --backend cpu -o " + out.string() + " " + extra);
    }
};

}  // namespace

TEST(StudyFile, ExpandsEveryCombinationWithItsKeys)
{
    StudyFolder folder;
    const StudySpec spec = parse_study_file(folder.study, {"solver.max_iterations=50"});
    const std::vector<StudyPoint> points = expand_study(spec);
    ASSERT_EQ(points.size(), 8u);
    EXPECT_EQ(points[1].folder, "size-small_degree-1_format-ell");
    EXPECT_EQ(points[1].overrides,
              (std::vector<std::string>{"solver.tolerance=1e-10", "mesh.refine=0", "degree=1", "format=ell",
                                        "solver.max_iterations=50"}));
    EXPECT_EQ(point_labels(spec, points[7], false), "size huge, degree 2");
    EXPECT_EQ(spec.metric->name, "iterations_per_second");
}

TEST(StudyFile, ErrorsNameTheFileTheLineAndTheKey)
{
    test::TempDir dir;
    dir.write("tiny.yaml", tiny_case);
    const std::vector<std::pair<std::string, std::string>> bad{
        {"case: tiny.yaml\naxes: {degree: [1]}\nmetrik: x\n", ":3: metrik: unknown key"},
        {"case: tiny.yaml\naxes: {degree: [1]}\nmetric: speed\n", ":3: metric: unknown metric 'speed'"},
        {"case: tiny.yaml\naxes: {degree: []}\n", ":2: axes.degree: expected a non-empty list"},
        {"case: missing.yaml\naxes: {degree: [1]}\n", ":1: case: no such file"},
        {"case: tiny.yaml\naxes: {degree: [1], format: [csr]}\nx: format\n", ":3: x: 'format' is not an axis"},
        {"case: tiny.yaml\naxes: {degree: [1, 1]}\n", ":2: axes.degree: the label '1' is given twice"},
    };
    for (const auto& [text, expected] : bad) {
        SCOPED_TRACE(text);
        const fs::path file = dir.write("bad.yaml", text);
        try {
            parse_study_file(file);
            ADD_FAILURE() << "no error";
        } catch (const CaseError& e) {
            EXPECT_NE(std::string(e.what()).find("bad.yaml" + expected), std::string::npos) << e.what();
        }
    }
}

TEST(Study, ABadCaseKeyOfAnAxisIsAnErrorBeforeAnythingRuns)
{
    StudyFolder folder;
    folder.dir.write("bad_study.yaml", "case: tiny.yaml\naxes:\n  degree: [1]\n  format: [csr, nosuch]\n");
    const auto result = test::run_gpufem("study " + (folder.dir.path() / "bad_study.yaml").string() +
                                         " --backend cpu -o " + folder.out.string());
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("bad_study.yaml:4: axes.format"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("nosuch"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(folder.out / "study.json"));
}

TEST(Study, RunsEveryPointOnceSkipsWhatDoesNotFitAndResumes)
{
    StudyFolder folder;
    const auto first = folder.run();
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const nlohmann::json study = test::read_json(folder.out / "study.json");
    ASSERT_EQ(study["points"].size(), 8u);
    for (const nlohmann::json& row : study["points"]) {
        SCOPED_TRACE(row.dump());
        const bool huge = row["labels"]["size"] == "huge";
        EXPECT_EQ(row["status"], huge ? "skipped" : "done");
        if (huge) {
            EXPECT_NE(row["reason"].get<std::string>().find("does not fit"), std::string::npos);
            EXPECT_FALSE(fs::exists(folder.out / row["folder"].get<std::string>()));
        } else {
            EXPECT_GT(row["metrics"]["iterations_per_second"].get<double>(), 0);
            EXPECT_TRUE(fs::exists(folder.out / row["folder"].get<std::string>() / "report.json"));
        }
    }
    EXPECT_EQ(study["device"].get<std::string>().rfind("CPU", 0), 0u);
    EXPECT_GT(study["copy_bandwidth_GBps"].get<double>(), 0);
    // The table: a header and one line per point.
    const std::string csv = read_text(folder.out / "study.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
    const std::string md = read_text(folder.out / "study.md");
    for (const char* part : {"copy bandwidth measured in this run", "Fastest choice per point", "**Recommendation:**",
                             "size small, degree 1", "does not fit", "| degree 1, format csr, size small | iterations_per_second"})
        EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
    expect_plots(folder.out, {"study_iterations_per_second.png", "study_spmv_GBps.png"});

    // Interrupted before its last point ran: the resumed study runs that point alone.
    nlohmann::json cut = study;
    const std::string last = "points/size-small_degree-2_format-ell";
    cut["points"].erase(3);
    std::ofstream(folder.out / "study.json") << cut.dump(2);
    const auto kept_time = fs::last_write_time(folder.out / "points/size-small_degree-1_format-csr/report.json");
    const auto resumed = folder.run();
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    const nlohmann::json again = test::read_json(folder.out / "study.json");
    ASSERT_EQ(again["points"].size(), 8u);
    for (const std::string name : {"points/size-small_degree-1_format-csr", "points/size-small_degree-1_format-ell",
                                   "points/size-small_degree-2_format-csr"})
        EXPECT_EQ(row_named(again, name)["finished_at"], row_named(study, name)["finished_at"]) << name;
    EXPECT_EQ(fs::last_write_time(folder.out / "points/size-small_degree-1_format-csr/report.json"), kept_time);
    EXPECT_EQ(row_named(again, last)["status"], "done");
    std::size_t earlier = 0;
    for (std::size_t at = 0; (at = resumed.output.find("[finished earlier]", at)) != std::string::npos; ++at) ++earlier;
    EXPECT_EQ(earlier, 3u) << resumed.output;

    // gpufem report draws a study's plots and study.md again from study.json.
    fs::remove(folder.out / "study.md");
    fs::remove(folder.out / "study_iterations_per_second.png");
    const auto report = test::run_gpufem("report " + folder.out.string());
    ASSERT_EQ(report.exit_code, 0) << report.output;
    EXPECT_NE(read_text(folder.out / "study.md").find("**Recommendation:**"), std::string::npos);
    expect_plots(folder.out, {"study_iterations_per_second.png"});
}

TEST(Report, DrawsARunAndASweepAndRefusesAFailedRun)
{
    test::TempDir dir;
    const fs::path base = dir.write("tiny.yaml", tiny_case);
    const auto run = test::run_gpufem("run " + base.string() + " --backend cpu -q -o " + (dir.path() / "run").string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto report = test::run_gpufem("report " + (dir.path() / "run").string());
    ASSERT_EQ(report.exit_code, 0) << report.output;
    expect_plots(dir.path() / "run/report", {"residual.png", "phases.png", "spmv.png", "memory.png"});
    const std::string md = read_text(dir.path() / "run/report/report.md");
    EXPECT_NE(md.find("CPU"), std::string::npos) << md;
    EXPECT_NE(md.find("![residual.png](residual.png)"), std::string::npos) << md;

    const auto sweep = test::run_gpufem("run " + base.string() + " --backend cpu -q --set degree=[1,2] --set "
                                        "mesh.refine=[0,1] -o " + (dir.path() / "sweep").string());
    ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
    const auto sweep_report = test::run_gpufem("report " + (dir.path() / "sweep").string());
    ASSERT_EQ(sweep_report.exit_code, 0) << sweep_report.output;
    expect_plots(dir.path() / "sweep/report", {"errors.png", "times.png"});
    const std::string sweep_md = read_text(dir.path() / "sweep/report/report.md");
    EXPECT_NE(sweep_md.find("| d2_r1 |"), std::string::npos) << sweep_md;
    EXPECT_NE(sweep_md.find("Device: CPU"), std::string::npos) << sweep_md;

    // A failed run leaves an empty folder (or none): a clear error, exit code 1, nothing written.
    fs::create_directories(dir.path() / "failed");
    const auto failed = test::run_gpufem("report " + (dir.path() / "failed").string());
    EXPECT_EQ(failed.exit_code, 1) << failed.output;
    EXPECT_NE(failed.output.find("no report.json"), std::string::npos) << failed.output;
    EXPECT_TRUE(fs::is_empty(dir.path() / "failed"));
    const auto missing = test::run_gpufem("report " + (dir.path() / "nowhere").string());
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.output.find("no such folder"), std::string::npos) << missing.output;
    EXPECT_EQ(missing.output.find("wrote"), std::string::npos) << missing.output;
}

TEST(Report, AFailingPlotLeavesTheEarlierReportAndNoStagingFolder)
{
    test::TempDir dir;
    const fs::path base = dir.write("tiny.yaml", tiny_case);
    ASSERT_EQ(test::run_gpufem("run " + base.string() + " --backend cpu -q -o " + (dir.path() / "run").string()).exit_code, 0);
    const fs::path broken = dir.write("broken.py", "import sys\nsys.stderr.write('drawing went wrong\\n')\nsys.exit(1)\n");
    const auto result = test::run_command("GPUFEM_PLOT_SCRIPT=" + broken.string() + " " + test::gpufem_command() +
                                          " report " + (dir.path() / "run").string());
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("drawing went wrong"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(dir.path() / "run/report"));
    EXPECT_FALSE(fs::exists(dir.path() / "run/.report.staging"));
}

TEST(Report, ASweepStoppedAtAFailedPointIsAClearError)
{
    test::TempDir dir;
    dir.write("sweep_incomplete.json",
              R"({"completed": [], "failed": {"folder": "d2_r0", "error": "the solver broke down"}})");
    const auto result = test::run_gpufem("report " + dir.path().string());
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("point d2_r0: the solver broke down"), std::string::npos) << result.output;
}

TEST(ShippedStudies, EveryStudyRunsOnTheCpuAtItsSmallSize)
{
    // Every study of cases/studies states its purpose, its time and a CPU size; run at that
    // size, every point runs, except those of a format the CPU backend lacks (cuSPARSE).
    const fs::path root(GPUFEM_SOURCE_DIR);
    test::TempDir dir;
    int count = 0;
    for (const auto& entry : fs::directory_iterator(root / "cases/studies")) {
        if (entry.path().extension() != ".yaml") continue;
        SCOPED_TRACE(entry.path().filename().string());
        std::ifstream in(entry.path());
        std::string extra, purpose;
        for (std::string line; std::getline(in, line) && line.starts_with("#");) {
            if (purpose.empty()) purpose = line;
            if (line.starts_with("# Try on a CPU:")) extra = line.substr(std::string("# Try on a CPU:").size());
        }
        EXPECT_TRUE(purpose.find(", Fig") != std::string::npos || purpose.find(", Table") != std::string::npos)
            << "the first line names its paper's figure or table: " << purpose;
        ASSERT_FALSE(extra.empty()) << "no '# Try on a CPU:' line";
        const fs::path out = dir.path() / entry.path().stem();
        const auto r = test::run_gpufem("study " + entry.path().string() + " --backend cpu --no-plots -o " +
                                        out.string() + extra);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const nlohmann::json study = test::read_json(out / "study.json");
        EXPECT_FALSE(study["paper"]["source"].get<std::string>().empty());
        for (const nlohmann::json& row : study["points"]) {
            const std::string status = row["status"];
            if (status == "failed")
                EXPECT_NE(row["reason"].get<std::string>().find("cuda"), std::string::npos) << row.dump();
            else
                EXPECT_TRUE(status == "done" || status == "not_converged") << row.dump();
        }
        ++count;
    }
    EXPECT_EQ(count, 5);
}

TEST(StudyFile, DocsHoldTheReference)
{
    // docs/studies.md carries the text of `gpufem study --help`'s reference, metrics included.
    const std::string page = read_text(fs::path(GPUFEM_SOURCE_DIR) / "docs/studies.md");
    EXPECT_NE(page.find("```\n" + study_file_reference() + "```\n"), std::string::npos)
        << "docs/studies.md does not hold the study file reference as gpufem prints it:\n" << study_file_reference();
}

TEST(StudyPage, NamesTheFastestChoiceTiesAndTheBreakEven)
{
    // study.md from a made-up record: at degree 1 ell is twice as fast (its conversion of 10 ms
    // repaid after 100 SpMVs of 0.1 ms saved), at degree 2 the two are within 2%: a tie.
    auto row = [](int index, const char* degree, const char* format, double its, double spmv, double conversion) {
        return nlohmann::json{{"index", index}, {"labels", {{"degree", degree}, {"format", format}}},
                              {"folder", std::string("points/") + degree + format}, {"status", "not_converged"},
                              {"format", format}, {"format_parameters", ""}, {"unknowns", 100}, {"iterations", 10},
                              {"metrics", {{"iterations_per_second", its}, {"spmv_seconds", spmv},
                                           {"conversion_seconds", conversion}}}};
    };
    const nlohmann::json study{
        {"title", "made up"}, {"device", "a device"}, {"copy_bandwidth_GBps", 100.0}, {"complete", true},
        {"axes", {{{"name", "degree"}, {"labels", {"1", "2"}}, {"chosen", false}},
                  {{"name", "format"}, {"labels", {"csr", "ell"}}, {"chosen", true}}}},
        {"metric", {{"name", "iterations_per_second"}}},
        {"paper", {{"source", ""}}},
        {"points", {row(0, "1", "csr", 1000, 2e-4, 0), row(1, "1", "ell", 2000, 1e-4, 0.01),
                    row(2, "2", "csr", 1000, 2e-4, 0), row(3, "2", "ell", 1020, 1.96e-4, 0.01)}}};
    const std::string md = study_markdown(study, {"a.png"}, "");
    for (const char* part : {"| degree 1 | format ell | 2000 | format csr | 2.00x | use format ell: 2.00x, 50% less "
                             "time than format csr | 100 |",
                             "| degree 2 | format ell | 1020 | format csr | 1.02x | either format ell or format csr "
                             "(within 2%) | 2500 |",
                             "**Recommendation:** format ell: the fastest at every point that ran (2).", "![a.png](a.png)",
                             "a device", "100.0 GB/s"})
        EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
}
