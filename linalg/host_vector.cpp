#include "linalg/host_vector.hpp"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <mutex>

#include <omp.h>
#include <sys/mman.h>

#include "linalg/host_memory.hpp"

namespace gpufem {
namespace {

constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;
constexpr std::size_t small_page_bytes = 4096;

std::size_t rounded_to_huge_pages(std::size_t bytes)
{
    return (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
}

/// bytes (a multiple of 2 MiB) aligned to 2 MiB and advised as huge pages.
void* huge_page_block(std::size_t rounded)
{
    void* p = std::aligned_alloc(huge_page_bytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    // Advice only: where transparent huge pages are off (or the call fails) the pages are the
    // ordinary ones and nothing else changes.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

/// One byte written in every page of the block, by the host's threads but one (left to the
/// thread the block is made beside, e.g. the CUDA driver's start): the kernel gives (and
/// zeroes) the pages now.
void first_touch(void* block, std::size_t bytes)
{
    auto* bytes_of = static_cast<volatile unsigned char*>(block);
    const auto pages = static_cast<long long>(bytes / small_page_bytes);
    const int threads = std::max(1, omp_get_max_threads() - 1);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long long page = 0; page < pages; ++page) bytes_of[static_cast<std::size_t>(page) * small_page_bytes] = 0;
}

/// A block made ahead for an allocation of `rounded` bytes: null until its thread has made it,
/// and again once an allocation took it (or its allocation failed). Entries stay where they
/// are until release, so that the thread finds its own by index.
struct PreparedBlock {
    std::size_t rounded = 0;
    void* block = nullptr;
    bool made = false;
};

/// The prepared blocks, the threads that make them, and the lock both are read under.
struct Reserve {
    std::mutex lock;
    std::vector<PreparedBlock> blocks;
    std::vector<std::shared_future<void>> making;

    ~Reserve() { release(); }
    /// Waits for the threads, then frees the untaken blocks; returns their bytes.
    std::size_t release()
    {
        wait_for_threads();
        const std::lock_guard<std::mutex> guard(lock);
        std::size_t freed = 0;
        for (PreparedBlock& b : blocks)
            if (b.block) {
                std::free(b.block);
                freed += b.rounded;
                b.block = nullptr;
            }
        // Entries go only when no thread (of a later call) still writes one by its index.
        if (std::all_of(blocks.begin(), blocks.end(), [](const PreparedBlock& b) { return b.made; })) {
            blocks.clear();
            making.clear();
        }
        return freed;
    }
    void wait_for_threads()
    {
        std::vector<std::shared_future<void>> pending;
        {
            const std::lock_guard<std::mutex> guard(lock);
            pending = making;
        }
        for (const std::shared_future<void>& f : pending) f.wait();
    }
    /// A prepared block of rounded bytes (waiting for the threads when one is being made), or
    /// null.
    void* take(std::size_t rounded)
    {
        const auto fits = [&](const PreparedBlock& b) { return b.rounded == rounded && (b.block || !b.made); };
        {
            const std::lock_guard<std::mutex> guard(lock);
            if (std::none_of(blocks.begin(), blocks.end(), fits)) return nullptr;
        }
        wait_for_threads();
        const std::lock_guard<std::mutex> guard(lock);
        const auto found = std::find_if(blocks.begin(), blocks.end(),
                                        [&](const PreparedBlock& b) { return b.rounded == rounded && b.block; });
        if (found == blocks.end()) return nullptr;  // its allocation failed, or another took it
        void* block = found->block;
        found->block = nullptr;
        return block;
    }
};

Reserve& reserve()
{
    static Reserve r;
    return r;
}

}  // namespace

void* large_host_allocate(std::size_t bytes)
{
    // aligned_alloc wants a multiple of the alignment; the rounding is at most 2 MiB of
    // address space, never touched.
    const std::size_t rounded = rounded_to_huge_pages(bytes);
    if (void* prepared = reserve().take(rounded)) return prepared;
    return huge_page_block(rounded);
}

void large_host_free(void* p) noexcept { std::free(p); }

void prepare_large_host_blocks(const std::vector<std::size_t>& bytes)
{
    std::vector<std::size_t> sizes;
    for (const std::size_t b : bytes)
        if (b >= large_host_bytes) sizes.push_back(rounded_to_huge_pages(b));
    // Only what takes at most half of the memory the kernel could give: a run too large for
    // the host must still meet the memory estimate's clear refusal, not the kernel's
    // out-of-memory stop while the blocks are touched.
    std::size_t total = 0;
    for (const std::size_t rounded : sizes) total += rounded;
    if (sizes.empty() || total > available_host_bytes() / 2) return;
    Reserve& r = reserve();
    const std::lock_guard<std::mutex> guard(r.lock);
    const std::size_t first = r.blocks.size();
    for (const std::size_t rounded : sizes) r.blocks.push_back(PreparedBlock{rounded, nullptr});
    r.making.push_back(std::async(std::launch::async, [&r, first, sizes] {
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            void* block = nullptr;
            try {
                block = huge_page_block(sizes[k]);
                first_touch(block, sizes[k]);
            } catch (const std::bad_alloc&) {  // left to the allocation itself, which reports it
            }
            const std::lock_guard<std::mutex> inner(r.lock);
            r.blocks[first + k].block = block;
            r.blocks[first + k].made = true;
        }
    }).share());
}

std::size_t release_prepared_host_blocks() { return reserve().release(); }

std::size_t prepared_host_bytes()
{
    Reserve& r = reserve();
    r.wait_for_threads();
    const std::lock_guard<std::mutex> guard(r.lock);
    std::size_t bytes = 0;
    for (const PreparedBlock& b : r.blocks)
        if (b.block) bytes += b.rounded;
    return bytes;
}

}  // namespace gpufem
