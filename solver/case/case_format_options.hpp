#pragma once
// The case file's `format_options` map: parameters of the sparse formats.
#include <nlohmann/json.hpp>

#include "linalg/format_options.hpp"
#include "solver/case/case_reader.hpp"

namespace gpufem {

/// Reads `format_options` (a null value gives the defaults) and records the resolved values.
FormatOptions read_format_options(const CaseReader& reader, const CaseValue& value,
                                  nlohmann::json& resolved);

}  // namespace gpufem
