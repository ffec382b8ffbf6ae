#include "solver/run/progress_line.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

namespace gpufem {
namespace {

ProgressSettings& settings_storage()
{
    static ProgressSettings settings;
    return settings;
}

}  // namespace

void set_progress_settings(const ProgressSettings& settings) { settings_storage() = settings; }

const ProgressSettings& progress_settings() { return settings_storage(); }

ProgressSettings terminal_progress_settings(bool quiet)
{
    ProgressSettings s;
    s.enabled = !quiet && isatty(fileno(stderr)) == 1;
    if (const char* delay = std::getenv("GPUFEM_PROGRESS_DELAY")) {
        char* end = nullptr;
        const double value = std::strtod(delay, &end);
        if (end != delay && *end == '\0' && std::isfinite(value) && value >= 0) s.delay = value;
    }
    return s;
}

std::string format_duration(double seconds)
{
    if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
    if (seconds < 60) return fmt::format("{:.1f} s", seconds);
    const long long whole = std::llround(seconds);
    if (whole < 3600) return fmt::format("{} min {:02d} s", whole / 60, whole % 60);
    return fmt::format("{} h {:02d} min", whole / 3600, (whole % 3600) / 60);
}

ProgressLine::ProgressLine(std::string phase, std::function<ProgressStatus()> poll)
    : phase_(std::move(phase)), poll_(std::move(poll)), settings_(progress_settings()),
      start_(std::chrono::steady_clock::now())
{
    if (settings_.enabled && settings_.stream) thread_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine()
{
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    if (drawn_) {
        std::fputs("\r\033[K", settings_.stream);  // erase the line; the summary follows
        std::fflush(settings_.stream);
    }
}

void ProgressLine::run()
{
    using namespace std::chrono;
    std::unique_lock lock(mutex_);
    const auto first = start_ + duration_cast<steady_clock::duration>(duration<double>(settings_.delay));
    if (wake_.wait_until(lock, first, [this] { return stop_; })) return;
    const auto interval = duration_cast<steady_clock::duration>(duration<double>(settings_.interval));
    do {
        draw(duration<double>(steady_clock::now() - start_).count());
    } while (!wake_.wait_for(lock, interval, [this] { return stop_; }));
}

void ProgressLine::draw(double elapsed)
{
    const ProgressStatus status = poll_ ? poll_() : ProgressStatus{};
    std::string line = phase_;
    if (!status.detail.empty()) line += ": " + status.detail;
    const bool known = status.fraction >= 0 && status.fraction <= 1;
    if (known) line += fmt::format("  {:.0f}%", 100 * status.fraction);
    line += "  elapsed " + format_duration(elapsed);
    double eta = status.eta_seconds;
    if (eta < 0 && known && status.fraction > 0.01) eta = elapsed * (1 - status.fraction) / status.fraction;
    if (eta >= 0) line += ", ETA " + format_duration(eta);
    std::fputs(("\r\033[K" + line).c_str(), settings_.stream);
    std::fflush(settings_.stream);
    drawn_ = true;
}

}  // namespace gpufem
