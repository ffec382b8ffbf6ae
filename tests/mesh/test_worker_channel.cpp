// The mesh worker's reply channel: pieces lent to the pipe (vmsplice) arrive as written and are
// not copied, the writer learns when the reader has read them all or has gone, and a
// descriptor that is not a pipe gets copies instead.
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "mesh/worker_protocol.hpp"

namespace gpufem {
namespace {

using worker_protocol::Channel;

/// A mesh-sized array of random values (the seed printed).
std::vector<std::uint64_t> random_values(std::size_t count)
{
    const unsigned seed = std::random_device{}();
    std::printf("seed %u\n", seed);
    std::mt19937_64 random(seed);
    std::vector<std::uint64_t> values(count);
    for (auto& value : values) value = random();
    return values;
}

/// A pipe of 1 MiB (`ends`) holding `values` written into it by reference, unread; returns the
/// writing channel.
Channel lend_into_pipe(const std::vector<std::uint64_t>& values, int (&ends)[2])
{
    EXPECT_EQ(::pipe(ends), 0);
    EXPECT_GE(::fcntl(ends[1], F_SETPIPE_SZ, 1 << 20), 1 << 20);
    Channel out(ends[1]);
    out.lend_large_pieces();
    Sender{out}.array(values);
    return out;
}

TEST(WorkerChannel, LentPiecesArriveAsWrittenAndTheWriterWaitsForTheReader)
{
    const auto values = random_values(3 << 20);  // 24 MB: many times the pipe
    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    std::vector<std::uint64_t> received;
    std::thread reader([&] {
        Channel in(ends[0]);
        Receiver receiver{in};
        std::uint8_t code = 0;
        receiver.value(code);
        receiver.array(received);
        ::close(ends[0]);
    });
    Channel out(ends[1]);
    out.lend_large_pieces();
    Sender sender{out};
    sender.value(std::uint8_t{7});
    sender.array(values);
    out.wait_until_read();
    int unread = -1;
    EXPECT_EQ(::ioctl(ends[1], FIONREAD, &unread), 0);
    EXPECT_EQ(unread, 0);
    reader.join();
    ::close(ends[1]);
    EXPECT_EQ(received, values);
}

TEST(WorkerChannel, APipeGetsReferencesToTheLentPagesNotCopies)
{
    auto values = random_values(1 << 15);  // 256 KB: fits the pipe, so nothing blocks
    int ends[2];
    lend_into_pipe(values, ends);
    // Changed after the write, before the read: the reader sees the change (why the worker
    // keeps its mesh unchanged until wait_until_read).
    for (auto& value : values) value = ~value;
    std::vector<std::uint64_t> received;
    Channel in(ends[0]);
    Receiver{in}.array(received);
    ::close(ends[0]);
    ::close(ends[1]);
    EXPECT_EQ(received, values);
}

TEST(WorkerChannel, TheWriterStopsWaitingWhenTheReaderHasGone)
{
    const auto values = random_values(1 << 14);  // 128 KB, lent, left unread in the pipe
    int ends[2];
    const Channel out = lend_into_pipe(values, ends);
    int unread = 0;
    ASSERT_EQ(::ioctl(ends[1], FIONREAD, &unread), 0);
    EXPECT_GT(unread, 0);
    ::close(ends[0]);
    out.wait_until_read();  // returns: a hang here fails the test at ctest's timeout
    ::close(ends[1]);
}

TEST(WorkerChannel, AFileGetsCopiesOfTheLentPieces)
{
    const auto values = random_values(1 << 16);
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    const int fd = ::fileno(file);
    Channel out(fd);
    out.lend_large_pieces();
    Sender{out}.array(values);
    out.wait_until_read();
    ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
    std::vector<std::uint64_t> read_back;
    Channel in(fd);
    Receiver{in}.array(read_back);
    std::fclose(file);
    EXPECT_EQ(read_back, values);
}

}  // namespace
}  // namespace gpufem
