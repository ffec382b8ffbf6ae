#pragma once
// The message of a failed write, the same from every writer: a full disk said as such,
// naming the file, anything else with the system's own words.
#include <filesystem>
#include <string>

namespace gpufem {

/// "the disk is full writing 'FILE'" when error_number is ENOSPC or EDQUOT, otherwise
/// "cannot write 'FILE': <what>: <the system's text for error_number>" (what: the step that
/// failed, e.g. "closing failed"; empty: left out). error_number 0: no system text.
std::string write_error_message(const std::filesystem::path& file, int error_number, const std::string& what = "");

/// Whether error_number says the disk (or the user's quota) is full.
bool disk_full(int error_number);

}  // namespace gpufem
