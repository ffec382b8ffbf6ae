#pragma once
// What a study compares its choices by: the registry of metrics, each read from one point's run
// record (and the copy bandwidth measured in the same study).
#include <functional>
#include <string>

#include "linalg/named_registry.hpp"
#include "solver/case/case_file.hpp"
#include "solver/report/run_record.hpp"

namespace gpufem {

/// One measure of a study point, registered once with its name, unit and direction.
struct StudyMetric {
    std::string name;            ///< as a study's `metric:` names it
    std::string summary;         ///< one line for the reference and study.md
    std::string unit;            ///< for tables and plot axes
    bool higher_is_better = true;
    /// The value for a point (spec as run, its record, the copy bandwidth in bytes/s); 0 when
    /// the point does not give it (no SpMV timings, no iterations).
    std::function<double(const CaseSpec&, const RunRecord&, double copy_bandwidth)> value;
};

/// Every metric a study can name, in registration order.
const NamedRegistry<StudyMetric>& study_metrics();

/// Whether a is better than b by the metric (a value of 0 is never better).
bool metric_better(const StudyMetric& metric, double a, double b);

}  // namespace gpufem
