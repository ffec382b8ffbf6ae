// Matrix Market reading and writing: round trips (bit for bit), symmetric / skew / pattern /
// integer files, duplicates, the same CSR for any thread count, and a clear error naming the
// file and line for each kind of malformed file.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "linalg/host_threads.hpp"
#include "linalg/matrix_market.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;
using test::HostCsr;

const char* const general_banner = "%%MatrixMarket matrix coordinate real general\n";

/// Dense row-major copy of a CSR matrix (host or device).
template <typename V>
std::vector<double> dense(const Csr<V>& a)
{
    std::vector<double> d(static_cast<std::size_t>(a.rows) * a.cols, 0.0);
    const auto ptr = a.row_ptr.to_host();
    const auto col = a.col_idx.to_host();
    const auto val = a.values.to_host();
    for (index_type i = 0; i < a.rows; ++i)
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) d[std::size_t(i) * a.cols + col[k]] += val[k];
    return d;
}

/// True when both matrices hold the same arrays, values compared bit for bit.
::testing::AssertionResult same_csr(const Csr<double>& a, const Csr<double>& b)
{
    if (a.rows != b.rows || a.cols != b.cols)
        return ::testing::AssertionFailure() << "sizes " << a.rows << "x" << a.cols << " vs " << b.rows << "x" << b.cols;
    if (a.row_ptr.to_host() != b.row_ptr.to_host()) return ::testing::AssertionFailure() << "row_ptr differs";
    if (a.col_idx.to_host() != b.col_idx.to_host()) return ::testing::AssertionFailure() << "col_idx differs";
    const auto va = a.values.to_host(), vb = b.values.to_host();
    for (std::size_t k = 0; k < va.size(); ++k)
        if (std::bit_cast<std::uint64_t>(va[k]) != std::bit_cast<std::uint64_t>(vb[k]))
            return ::testing::AssertionFailure() << "value " << k << ": " << va[k] << " vs " << vb[k];
    return ::testing::AssertionSuccess();
}

/// Values of many magnitudes, signs, -0, subnormals and the extremes of double.
std::vector<double> awkward_values(std::size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    const double specials[] = {-0.0, 0.0, 5e-324, -2.2250738585072014e-308, 1e-310,
                               std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                               0.1, 1.0 / 3.0, 123456789012345678.0};
    std::vector<double> values(n);
    for (std::size_t k = 0; k < n; ++k)
        values[k] = k < std::size(specials) ? specials[k] : mantissa(rng) * std::pow(10.0, exponent(rng));
    std::shuffle(values.begin(), values.end(), rng);
    return values;
}

class MatrixMarket : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("gpufem_mtx_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        threads_ = host_threads();
    }
    void TearDown() override
    {
        set_host_threads(threads_);
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }

    /// A file of the test's folder holding text.
    fs::path file(const std::string& name, const std::string& text)
    {
        const fs::path path = dir_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    fs::path path(const std::string& name) const { return dir_ / name; }

    /// Expects read (matrix or vector) of text to throw MatrixMarketError naming the file,
    /// the line and the problem.
    void expect_error(const std::string& text, std::int64_t line, const std::string& problem, bool vector = false)
    {
        const fs::path p = file("bad.mtx", text);
        try {
            if (vector) read_matrix_market_vector(p);
            else read_matrix_market(p);
            ADD_FAILURE() << "no error for:\n" << text;
        } catch (const MatrixMarketError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(p.string() + ":" + std::to_string(line) + ": "), std::string::npos)
                << "expected line " << line << " in: " << message;
            EXPECT_NE(message.find(problem), std::string::npos) << "expected '" << problem << "' in: " << message;
        }
    }

    fs::path dir_;
    int threads_ = 1;
};

TEST_F(MatrixMarket, RoundTripGeneralBitForBit)
{
    std::mt19937 rng(test::random_seed());
    HostCsr<double> m = test::random_csr<double>(257, 300, 12, rng, 50, 120);
    m.val = awkward_values(m.val.size(), rng);
    const Csr<double> a = test::to_csr(m, Executor::create_cpu());
    write_matrix_market(path("a.mtx"), a, "random general\nsecond comment line");
    EXPECT_TRUE(same_csr(read_matrix_market(path("a.mtx")), a));

    const MatrixMarketHeader h = read_matrix_market_header(path("a.mtx"));
    EXPECT_TRUE(h.coordinate);
    EXPECT_EQ(h.field, MatrixMarketField::real);
    EXPECT_EQ(h.symmetry, MatrixMarketSymmetry::general);
    EXPECT_EQ(h.rows, 257);
    EXPECT_EQ(h.cols, 300);
    EXPECT_EQ(h.entries, static_cast<std::int64_t>(m.val.size()));
    EXPECT_EQ(h.data_line, 5);  // banner, two comment lines, size line
}

TEST_F(MatrixMarket, RoundTripFloat)
{
    std::mt19937 rng(test::random_seed());
    const HostCsr<float> m = test::random_csr<float>(100, 80, 9, rng);
    write_matrix_market(path("f.mtx"), test::to_csr(m, Executor::create_cpu()));
    const Csr<double> back = read_matrix_market(path("f.mtx"));
    ASSERT_EQ(back.col_idx.to_host(), m.col);
    const auto values = back.values.to_host();
    for (std::size_t k = 0; k < values.size(); ++k) EXPECT_EQ(static_cast<float>(values[k]), m.val[k]);
}

TEST_F(MatrixMarket, SymmetricAndSkewExpanded)
{
    std::mt19937 rng(test::random_seed());
    const index_type n = 60;
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::bernoulli_distribution keep(0.15);
    for (const bool skew : {false, true}) {
        // The lower triangle, written in a random order; the dense expansion to compare with.
        std::vector<std::string> lines;
        std::vector<double> expected(std::size_t(n) * n, 0.0);
        for (index_type i = 0; i < n; ++i) {
            for (index_type j = 0; j <= i; ++j) {
                if (!(keep(rng) || (i == j && !skew))) continue;
                const double v = (i == j && skew) ? 0.0 : dist(rng);
                lines.push_back(fmt::format("{} {} {}\n", i + 1, j + 1, v));
                expected[std::size_t(i) * n + j] = v;
                expected[std::size_t(j) * n + i] = skew && i != j ? -v : v;
            }
        }
        std::shuffle(lines.begin(), lines.end(), rng);
        std::string text = fmt::format("%%MatrixMarket matrix coordinate real {}\n{} {} {}\n",
                                       skew ? "skew-symmetric" : "symmetric", n, n, lines.size());
        for (const auto& line : lines) text += line;
        const Csr<double> a = read_matrix_market(file("s.mtx", text));
        EXPECT_EQ(dense(a), expected) << (skew ? "skew" : "symmetric");
        const auto col = a.col_idx.to_host();
        const auto ptr = a.row_ptr.to_host();
        for (index_type i = 0; i < n; ++i)
            EXPECT_TRUE(std::is_sorted(col.begin() + ptr[i], col.begin() + ptr[i + 1]));
        // The expanded matrix written as general reads back the same.
        write_matrix_market(path("g.mtx"), a);
        EXPECT_TRUE(same_csr(read_matrix_market(path("g.mtx")), a));
    }
}

TEST_F(MatrixMarket, HandWrittenSymmetric)
{
    const Csr<double> a = read_matrix_market(file("s.mtx",
                                                  "%%MatrixMarket matrix coordinate real symmetric\n"
                                                  "% lower triangle of a 3x3 matrix\n"
                                                  "3 3 4\n"
                                                  "1 1 4\n"
                                                  "2 1 -1\n"
                                                  "3 2 -2.5\n"
                                                  "3 3 6\n"));
    EXPECT_EQ(dense(a), (std::vector<double>{4, -1, 0, -1, 0, -2.5, 0, -2.5, 6}));
    EXPECT_EQ(a.nnz(), 6u);
}

TEST_F(MatrixMarket, PatternAndInteger)
{
    const Csr<double> p = read_matrix_market(file("p.mtx",
                                                  "%%MatrixMarket Matrix Coordinate PATTERN Symmetric\n"
                                                  "3 3 4\n3 1\n2 2\n1 1\n3 1\n"));
    EXPECT_EQ(dense(p), (std::vector<double>{1, 0, 2, 0, 1, 0, 2, 0, 0}));
    const Csr<double> i = read_matrix_market(file("i.mtx",
                                                  "%%MatrixMarket matrix coordinate integer general\n"
                                                  "2 3 3\n1 3 -7\n2 1 123456789012\n1 3 +2\n"));
    EXPECT_EQ(dense(i), (std::vector<double>{0, 0, -5, 123456789012.0, 0, 0}));
}

TEST_F(MatrixMarket, DuplicatesSummedInFileOrder)
{
    std::mt19937 rng(test::random_seed());
    const index_type rows = 40, cols = 7;
    std::uniform_int_distribution<index_type> row_dist(0, rows - 1), col_dist(0, cols - 1);
    std::uniform_real_distribution<double> dist(-1e3, 1e3);
    std::map<std::pair<index_type, index_type>, double> sums;  // summed in file order
    std::string data;
    const int entries = 3000;
    for (int k = 0; k < entries; ++k) {
        const index_type i = row_dist(rng), j = col_dist(rng);
        const double v = dist(rng);
        const auto [at, inserted] = sums.try_emplace({i, j}, v);
        if (!inserted) at->second += v;
        data += fmt::format("{} {} {}\n", i + 1, j + 1, v);
    }
    const fs::path p = file("d.mtx", fmt::format("{}{} {} {}\n{}", general_banner, rows, cols, entries, data));
    for (const int threads : {1, 2, 3}) {
        set_host_threads(threads);
        const Csr<double> a = read_matrix_market(p);
        ASSERT_EQ(a.nnz(), sums.size());
        const auto ptr = a.row_ptr.to_host();
        const auto col = a.col_idx.to_host();
        const auto val = a.values.to_host();
        std::size_t k = 0;
        for (const auto& [key, sum] : sums) {  // the map's order is CSR order
            ASSERT_LT(k, val.size());
            EXPECT_GE(static_cast<index_type>(k), ptr[key.first]);
            EXPECT_LT(static_cast<index_type>(k), ptr[key.first + 1]);
            EXPECT_EQ(col[k], key.second);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(val[k]), std::bit_cast<std::uint64_t>(sum));
            ++k;
        }
    }
}

TEST_F(MatrixMarket, SmallAndOddShapes)
{
    // 1 x 1.
    Csr<double> one = read_matrix_market(file("1.mtx", std::string(general_banner) + "1 1 1\n1 1 2.5\n"));
    EXPECT_EQ(dense(one), std::vector<double>{2.5});
    // Rectangular, with empty rows, no trailing newline, CRLF line endings and blank lines.
    Csr<double> r = read_matrix_market(file("r.mtx", "%%MatrixMarket matrix coordinate real general\r\n"
                                                     "% comment\r\n\r\n"
                                                     "  5 3 3  \r\n"
                                                     "5 3 1.5\r\n\r\n"
                                                     "\t2 1 -1e2 \r\n"
                                                     "5 1 7"));
    EXPECT_EQ(r.rows, 5);
    EXPECT_EQ(r.cols, 3);
    EXPECT_EQ(r.row_ptr.to_host(), (std::vector<index_type>{0, 0, 1, 1, 1, 3}));
    EXPECT_EQ(dense(r), (std::vector<double>{0, 0, 0, -100, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1.5}));
    write_matrix_market(path("r2.mtx"), r);
    EXPECT_TRUE(same_csr(read_matrix_market(path("r2.mtx")), r));
    // Underflow reads as 0 or a subnormal (overflow is an error: MalformedFiles...).
    Csr<double> tiny = read_matrix_market(file("t.mtx", std::string(general_banner) + "1 2 2\n1 1 1e-400\n1 2 -4.9e-324\n"));
    EXPECT_EQ(dense(tiny), (std::vector<double>{0.0, -std::numeric_limits<double>::denorm_min()}));
    // No entries at all, and a 0 x 0 matrix.
    Csr<double> empty = read_matrix_market(file("e.mtx", std::string(general_banner) + "4 6 0\n"));
    EXPECT_EQ(empty.nnz(), 0u);
    EXPECT_EQ(empty.row_ptr.to_host(), std::vector<index_type>(5, 0));
    write_matrix_market(path("e2.mtx"), empty);
    EXPECT_TRUE(same_csr(read_matrix_market(path("e2.mtx")), empty));
    Csr<double> none = read_matrix_market(file("0.mtx", std::string(general_banner) + "0 0 0\n"));
    EXPECT_EQ(none.rows, 0);
    EXPECT_EQ(none.row_ptr.to_host(), std::vector<index_type>{0});
}

TEST_F(MatrixMarket, HugeHeaderFailsFast)
{
    const fs::path p = file("huge.mtx", std::string(general_banner) + "5000000000 5000000000 3000000000\n1 1 1.0\n");
    // The header alone already tells that the file cannot hold what it announces.
    try {
        read_matrix_market_header(p);
        FAIL() << "a header announcing 3e9 entries in a few bytes was read";
    } catch (const MatrixMarketError& e) {
        EXPECT_NE(std::string(e.what()).find("malformed size line: it announces 3000000000 entries, more than "
                                             "the file can hold"), std::string::npos) << e.what();
    }
    const auto start = std::chrono::steady_clock::now();
    expect_error(std::string(general_banner) + "5000000000 5000000000 3000000000\n1 1 1.0\n", 2, "3000000000");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
    expect_error(std::string(general_banner) + "3000000000 3 1\n1 1 1\n", 2, "at most 2^31-1");
    expect_error("%%MatrixMarket matrix array real general\n3000000000 3000000000\n", 2, "9000000000000000000");
}

TEST_F(MatrixMarket, MalformedFilesNameFileAndLine)
{
    const std::string b = general_banner;
    struct Case {
        std::string text;
        std::int64_t line;
        std::string problem;
    };
    const std::vector<Case> cases = {
        {"", 1, "missing the '%%MatrixMarket' banner"},
        {"3 3 1\n1 1 1\n", 1, "missing banner"},
        {"%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "incomplete banner"},
        {"%%MatrixMarket matrix coordinate real general extra\n", 1, "extra word 'extra'"},
        {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "'complex' matrices are not supported"},
        {"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "'hermitian' matrices are not supported"},
        {"%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1, "'vector' objects are not supported"},
        {"%%MatrixMarket matrix sparse real general\n", 1, "unknown format 'sparse'"},
        {"%%MatrixMarket matrix array pattern general\n", 1, "'pattern' is only allowed"},
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "read_matrix_market reads sparse"},
        {b + "% c\n\n3 3\n", 4, "bad size line '3 3'"},
        {b + "3 3 x\n", 2, "bad size line"},
        {b + "3 -3 1\n", 2, "bad size line"},
        {b + "3 3 1 1\n", 2, "bad size line"},
        {b + "% only comments\n", 3, "missing size line"},
        {"%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "must be square"},
        {b + "3 3 2\n1 1 1.0\n2 2\n", 4, "missing the value"},
        {b + "3 3 2\n1 1 1.0\n\n2\n", 5, "missing the column index"},
        {b + "3 3 1\n1 1 1.0 7\n", 3, "extra text '7'"},
        {"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n", 3, "extra text '1.0'"},
        {b + "3 3 1\n0 1 1.0\n", 3, "row index 0 is out of range 1..3"},
        {b + "3 3 1\n1 -2 1.0\n", 3, "column index -2 is out of range"},
        {b + "3 4 2\n1 4 1\n4 1 1.0\n", 4, "row index 4 is out of range 1..3"},
        {b + "3 4 1\n1 5 1.0\n", 3, "column index 5 is out of range 1..4"},
        {b + "3 3 1\nx 1 1.0\n", 3, "bad row index 'x'"},
        {b + "3 3 1\n1 1 abc\n", 3, "bad value 'abc'"},
        {b + "3 3 1\n1 1 1.0x\n", 3, "bad value '1.0x'"},
        {b + "3 3 1\n1 1 1.5D+00\n", 3, "bad value '1.5D+00'"},
        {b + "3 3 2\n1 1 1\n2 2 nan\n", 4, "not finite"},
        {b + "3 3 1\n1 1 -inf\n", 3, "not finite"},
        {b + "3 3 1\n1 1 1e999\n", 3, "out of the range of double"},
        {"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "bad value '1.5'"},
        {b + "3 3 3\n1 1 1.0000\n2 2 2.0000\n", 4, "the file ends after 2 data lines, but the size line (line 2) announces 3"},
        {b + "3 3 3\n1 1 1.0000\n2 2 2.0000\n\n", 5, "the file ends after 2 data lines"},
        // Too few bytes for the count: caught before parsing, at the size line.
        {b + "3 3 3\n1 1 1\n2 2 2\n", 2, "malformed size line: it announces 3 entries, more than the file can hold (the 12 bytes after it hold at most 2"},
        {b + "3 3 1\n1 1 1\n\n2 2 2\n", 5, "more data lines than the 1"},
        {b + "3 3 1\n1 1 1\n% late comment\n", 4, "comment lines are only allowed before the size line"},
        {"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 1\n", 4,
         "lies above the diagonal: a symmetric file stores only the lower triangle"},
        {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 3 1\n", 4,
         "lies above the diagonal: a skew-symmetric file"},
        {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0.5\n", 4,
         "nonzero diagonal entry (2, 2)"},
        {"%%MatrixMarket matrix coordinate pattern skew-symmetric\n", 1, "cannot be 'skew-symmetric'"},
        {b + "3 3 2\r\n1 1 1\r\n\r\n2 2 x\r\n", 5, "bad value 'x'"},
        // The last line without a newline.
        {b + "3 3 2\n1 1 1\n2 2 x", 4, "bad value 'x'"},
        {b + "3 3 1\n1 1 1.0\n2 2 1.0", 4, "more data lines than the 1"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        expect_error(c.text, c.line, c.problem);
    }
    // The skew-symmetric diagonal may hold an explicit zero.
    const Csr<double> skew = read_matrix_market(
        file("z.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 3\n2 2 0\n"));
    EXPECT_EQ(dense(skew), (std::vector<double>{0, -3, 3, 0}));
}

TEST_F(MatrixMarket, ErrorLinesInLargeFilesAnyThreadCount)
{
    std::mt19937 rng(test::random_seed());
    const int entries = 20000;
    std::uniform_int_distribution<int> bad_dist(entries / 4, entries - 1);
    const int bad = bad_dist(rng);  // 0-based data line with an error
    std::string text = fmt::format("{}% header comment\n100 100 {}\n", general_banner, entries);
    for (int k = 0; k < entries; ++k) text += fmt::format("{} {} {}\n", k % 100 + 1, k % 7 + 1, k == bad ? "oops" : "0.5");
    text += "1 1 1\n1 1 1\n";  // more lines than announced too, after the bad one
    for (const int threads : {1, 2, 4}) {
        set_host_threads(threads);
        expect_error(text, bad + 4, "bad value 'oops'");
    }
    // Only the extra lines wrong: the first one is named.
    std::string extra = fmt::format("{}100 100 {}\n", general_banner, entries);
    for (int k = 0; k < entries + 3; ++k) extra += fmt::format("{} {} 1\n", k % 100 + 1, k % 7 + 1);
    for (const int threads : {1, 2, 4}) {
        set_host_threads(threads);
        expect_error(extra, entries + 3, "more data lines than the 20000");
    }
}

TEST_F(MatrixMarket, SameCsrForAnyThreadCount)
{
    std::mt19937 rng(test::random_seed());
    const index_type n = 800;
    std::uniform_int_distribution<index_type> idx(0, n - 1);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (const char* symmetry : {"general", "symmetric", "skew-symmetric"}) {
        const std::string name = symmetry;
        std::string data;
        const int entries = 40000;  // many duplicates, unsorted rows, some long rows
        for (int k = 0; k < entries; ++k) {
            index_type i = idx(rng), j = k % 10 == 0 ? index_type(7) : idx(rng);
            if (name != "general" && j > i) std::swap(i, j);
            if (name == "skew-symmetric" && i == j) {  // strictly lower: (i, i-1), or (2, 1)
                if (i == 0) i = 1;
                else j = i - 1;
            }
            data += fmt::format("{} {} {}\n", i + 1, j + 1, dist(rng));
        }
        const fs::path p = file(name + ".mtx", fmt::format("%%MatrixMarket matrix coordinate real {}\n{} {} {}\n{}",
                                                          symmetry, n, n, entries, data));
        set_host_threads(1);
        const Csr<double> one = read_matrix_market(p);
        for (const int threads : {2, 3, 8}) {
            set_host_threads(threads);
            EXPECT_TRUE(same_csr(read_matrix_market(p), one)) << symmetry << " with " << threads << " threads";
        }
    }
}

TEST_F(MatrixMarket, VectorsRoundTrip)
{
    std::mt19937 rng(test::random_seed());
    const std::vector<double> v = awkward_values(5000, rng);
    write_matrix_market_vector(path("v.mtx"), v, "a vector");
    for (const int threads : {1, 2}) {
        set_host_threads(threads);
        const std::vector<double> back = read_matrix_market_vector(path("v.mtx"));
        ASSERT_EQ(back.size(), v.size());
        for (std::size_t k = 0; k < v.size(); ++k)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(back[k]), std::bit_cast<std::uint64_t>(v[k])) << k;
    }
    const MatrixMarketHeader h = read_matrix_market_header(path("v.mtx"));
    EXPECT_FALSE(h.coordinate);
    EXPECT_EQ(h.rows, 5000);
    EXPECT_EQ(h.cols, 1);
    EXPECT_EQ(h.entries, 5000);

    write_matrix_market_vector(path("empty.mtx"), std::vector<double>{});
    EXPECT_TRUE(read_matrix_market_vector(path("empty.mtx")).empty());
    // Coordinate vectors: absent entries are 0, duplicates summed; a 1 x n row too.
    EXPECT_EQ(read_matrix_market_vector(file("c.mtx", std::string(general_banner) + "5 1 3\n4 1 2\n1 1 -1\n4 1 0.5\n")),
              (std::vector<double>{-1, 0, 0, 2.5, 0}));
    EXPECT_EQ(read_matrix_market_vector(file("r.mtx", "%%MatrixMarket matrix array integer general\n1 3\n7\n8\n9\n")),
              (std::vector<double>{7, 8, 9}));
    expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 2, "not a vector", true);
    expect_error("%%MatrixMarket matrix array real general\n3 1\n1\n2 5\n3\n", 4, "extra text '5'", true);
    expect_error("%%MatrixMarket matrix array real general\n3 1\n1.0\n2.0\n", 4, "the file ends after 2 data lines", true);
}

TEST_F(MatrixMarket, PipeIsReadToo)
{
    // Not a regular file: read() instead of mmap.
    const fs::path fifo = path("pipe.mtx");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string text = std::string(general_banner) + "3 2 4000\n";
    for (int k = 0; k < 4000; ++k) text += fmt::format("{} {} {}\n", k % 3 + 1, k % 2 + 1, 0.25);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
    const Csr<double> a = read_matrix_market(fifo);
    writer.join();
    EXPECT_EQ(dense(a), (std::vector<double>{667 * 0.25, 667 * 0.25, 666 * 0.25, 667 * 0.25, 667 * 0.25, 666 * 0.25}));
}

TEST_F(MatrixMarket, WriteErrorNamesThePath)
{
    const fs::path p = dir_ / "no_such_folder" / "a.mtx";
    try {
        write_matrix_market_vector(p, std::vector<double>{1.0});
        ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_matrix_market(p), std::runtime_error);
    EXPECT_THROW(read_matrix_market_header(p), std::runtime_error);
}

}  // namespace
}  // namespace gpufem
