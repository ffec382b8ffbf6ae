#include "solver/run/interrupt_cleanup.hpp"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include <limits.h>
#include <unistd.h>

namespace gpufem {
namespace {

constexpr int slot_count = 64;

/// A path to remove; the handler reads only slots whose state is `ready`.
struct Slot {
    std::atomic<int> state{0};  ///< 0 free, 1 being written, 2 ready
    bool is_folder = false;
    char path[PATH_MAX] = {};
};

Slot slots[slot_count];

extern "C" void clean_up_and_reraise(int signal_number)
{
    // Files first, then folders (rmdir fails harmlessly when a folder is not empty).
    for (int pass = 0; pass < 2; ++pass)
        for (Slot& slot : slots) {
            if (slot.state.load(std::memory_order_acquire) != 2) continue;
            if (pass == 0 && !slot.is_folder) ::unlink(slot.path);
            if (pass == 1 && slot.is_folder) ::rmdir(slot.path);
        }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

}  // namespace

void install_interrupt_cleanup()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_handler = clean_up_and_reraise;
        sigemptyset(&action.sa_mask);
        for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
    });
}

int register_for_cleanup(const std::filesystem::path& path, bool is_folder)
{
    const std::string text = path.string();
    if (text.size() + 1 > PATH_MAX) return -1;
    for (int i = 0; i < slot_count; ++i) {
        int expected = 0;
        if (!slots[i].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(slots[i].path, text.c_str(), text.size() + 1);
        slots[i].is_folder = is_folder;
        slots[i].state.store(2, std::memory_order_release);
        return i;
    }
    return -1;
}

void release_cleanup(int slot)
{
    if (slot >= 0 && slot < slot_count) slots[slot].state.store(0, std::memory_order_release);
}

}  // namespace gpufem
