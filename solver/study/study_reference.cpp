// The study file's reference: `gpufem study --help` and docs/studies.md.
#include <fmt/format.h>

#include "solver/study/study_spec.hpp"

namespace gpufem {
namespace {

/// The metric registry as reference lines.
std::string metric_lines()
{
    std::string out;
    for (const StudyMetric& metric : study_metrics().entries())
        out += fmt::format("    {:<28}{} ({}, {} is better)\n", metric.name, metric.summary, metric.unit,
                           metric.higher_is_better ? "higher" : "lower");
    return out;
}

}  // namespace

std::string study_file_reference()
{
    return "Study file reference (YAML)\n\n"
           "title: TEXT            the study's title (default: the file's name)\n"
           "case: PATH             (required) the base case, relative to the study file; every point\n"
           "                       is this case with the point's keys set, as --set sets them\n"
           "set: {KEY: VALUE}      case keys every point sets (dotted, as --set: output.write: false,\n"
           "                       solver.max_iterations: 300)\n"
           "axes:                  (required) a map of axes; every combination of their values is a\n"
           "                       point, the last axis varying fastest\n"
           "  KEY: [V1, V2]        an axis over one case key (degree: [1, 2], format: [csr, ell],\n"
           "                       format_options.staircase.alpha: [0, 0.01])\n"
           "  NAME:                an axis whose values set several keys: each value a map of case\n"
           "    - {label: L, KEY: V, KEY2: V2}   keys with an optional label (default: the keys)\n"
           "choose: [AXIS]         the axes compared at each point (default: the last axis); the\n"
           "                       other axes name the points\n"
           "metric: NAME           what the choices are compared by (default iterations_per_second):\n" +
           metric_lines() +
           "also: [METRIC]         more metrics shown for every point in study.md\n"
           "x: AXIS                the plots' x axis (default: the first axis not chosen)\n"
           "paper:                 what a paper reports, shown beside the measurements in study.md\n"
           "  source: TEXT         the paper and its figure or table\n"
           "  gpu: TEXT            the GPU it measured on\n"
           "  notes: [TEXT]        its findings in words\n"
           "  values:              its numbers: [{at: {AXIS: LABEL}, value: N, metric: NAME, note: TEXT}]\n"
           "                       (metric default: the study's; axes left out of at: any point)\n\n"
           "Outputs (in -o DIR, default next to the study file, named after it): points/<point>/ (each\n"
           "a run's output folder), study.json and study.csv (rewritten after every point: run the\n"
           "study again to resume; finished points are not run again), study_*.png and study.md.\n";
}

}  // namespace gpufem
