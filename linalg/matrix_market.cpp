// Matrix Market reading and writing. Reading: the file is mapped whole (or read, when it is
// not a regular file), the header parsed, the data split at newlines into one chunk per
// thread; each thread parses its chunk with std::from_chars into COO entries and counts them
// per row; a stable counting sort (chunk by chunk, so in file order) makes CSR, then each row
// is sorted by column (stably) and its duplicates summed in file order: the result does not
// depend on the thread count. Errors carry a byte offset; its line number is counted only when
// one is thrown.
#include "linalg/matrix_market.hpp"

#include "linalg/host_memory.hpp"
#include "linalg/write_errors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "linalg/host_threads.hpp"

namespace gpufem {
namespace {

constexpr std::int64_t max_index = std::numeric_limits<index_type>::max();
constexpr std::size_t min_chunk_bytes = 4096;  // smaller files are parsed by fewer threads

[[noreturn]] void fail_at(const std::filesystem::path& file, std::int64_t line, const std::string& problem)
{
    throw MatrixMarketError(fmt::format("{}:{}: {}", file.string(), line, problem));
}

[[noreturn]] void fail_io(const std::filesystem::path& file, const char* action)
{
    if (disk_full(errno)) throw std::runtime_error(write_error_message(file, errno));
    throw std::runtime_error(fmt::format("cannot {} {}: {}", action, file.string(), std::strerror(errno)));
}

/// An open file descriptor, closed on destruction.
class FileHandle {
public:
    FileHandle(const std::filesystem::path& path, int flags) : path_(path)
    {
        fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
        if (fd_ < 0) fail_io(path, (flags & O_WRONLY) ? "create" : "open");
    }
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    ~FileHandle()
    {
        if (fd_ >= 0) ::close(fd_);
    }

    /// Reads up to n bytes at dst; fewer only at the end of the file.
    std::size_t read(char* dst, std::size_t n)
    {
        std::size_t done = 0;
        while (done < n) {
            const ssize_t got = ::read(fd_, dst + done, n - done);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail_io(path_, "read");
            if (got == 0) break;
            done += static_cast<std::size_t>(got);
        }
        return done;
    }
    /// Writes all n bytes.
    void write(const char* src, std::size_t n)
    {
        while (n > 0) {
            const ssize_t put = ::write(fd_, src, n);
            if (put < 0 && errno == EINTR) continue;
            if (put < 0) fail_io(path_, "write");
            src += put;
            n -= static_cast<std::size_t>(put);
        }
    }
    /// Closes the file, reporting an error a buffered write may only show now.
    void close()
    {
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0) fail_io(path_, "write");
    }
    int fd() const { return fd_; }
    /// The file's size in bytes; the largest size_t for what is not a regular file (a pipe's
    /// size is unknown).
    std::size_t size() const
    {
        struct stat info {};
        if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) return static_cast<std::size_t>(-1);
        return static_cast<std::size_t>(info.st_size);
    }

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

/// A whole file in memory: a regular file mapped read-only (its pages mapped at once,
/// MAP_POPULATE: no copy), anything else read into a buffer. The file must not shrink while
/// it is mapped.
class FileText {
public:
    explicit FileText(const std::filesystem::path& path)
    {
        FileHandle file(path, O_RDONLY);
        struct stat info {};
        if (::fstat(file.fd(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
            const auto bytes = static_cast<std::size_t>(info.st_size);
            void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd(), 0);
            if (map != MAP_FAILED) {
                data_ = static_cast<const char*>(map);
                size_ = bytes;
                mapped_ = true;
                return;
            }
        }
        buffer_.resize(1 << 20);
        for (;;) {
            size_ += file.read(buffer_.data() + size_, buffer_.size() - size_);
            if (size_ < buffer_.size()) break;
            buffer_.resize(2 * buffer_.size());
        }
        data_ = buffer_.data();
    }
    FileText(const FileText&) = delete;
    FileText& operator=(const FileText&) = delete;
    ~FileText() { release(); }

    std::string_view view() const { return {data_, size_}; }
    /// Unmaps or frees the text early.
    void release()
    {
        if (mapped_) ::munmap(const_cast<char*>(data_), size_);
        mapped_ = false;
        std::string().swap(buffer_);
        data_ = nullptr;
        size_ = 0;
    }

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    std::string buffer_;
};

/// Runs body(i) for i in [0, n) on up to n threads; rethrows the first exception.
template <typename Body>
void parallel_for_each(int n, Body body)
{
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static, 1) num_threads(n)
    for (int i = 0; i < n; ++i) {
        try {
            body(i);
        } catch (...) {
            errors[static_cast<std::size_t>(i)] = std::current_exception();
        }
    }
    for (const auto& error : errors)
        if (error) std::rethrow_exception(error);
}

/// 1-based number of the line holding byte `offset` of text.
std::int64_t line_of(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

/// Number of the file's last line (1 for an empty file).
std::int64_t last_line(std::string_view text)
{
    const std::int64_t newlines = std::count(text.begin(), text.end(), '\n');
    return std::max<std::int64_t>(1, (!text.empty() && text.back() != '\n') ? newlines + 1 : newlines);
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool ends_token(char c) { return is_blank(c) || c == '\n'; }

/// The words of a line (separated by spaces and tabs).
std::vector<std::string_view> words_of(std::string_view line)
{
    std::vector<std::string_view> words;
    std::size_t pos = 0;
    while (pos < line.size()) {
        while (pos < line.size() && is_blank(line[pos])) ++pos;
        const std::size_t start = pos;
        while (pos < line.size() && !is_blank(line[pos])) ++pos;
        if (pos > start) words.push_back(line.substr(start, pos - start));
    }
    return words;
}

std::string lower(std::string_view word)
{
    std::string result(word);
    for (char& c : result) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return result;
}

/// The word at p (up to 40 characters), quoted in error messages.
std::string word_at(const char* p)
{
    const char* q = p;
    while (!ends_token(*q) && q - p < 40) ++q;
    return std::string(p, q);
}

std::string_view field_name(MatrixMarketField field) { return enum_name(matrix_market_field_names, field); }

std::string_view symmetry_name(MatrixMarketSymmetry symmetry)
{
    return enum_name(matrix_market_symmetry_names, symmetry);
}

/// Reads the banner from line 1 into header.
void parse_banner(std::string_view line, const std::filesystem::path& path, MatrixMarketHeader& header)
{
    const std::vector<std::string_view> words = words_of(line);
    const auto fail = [&](const std::string& problem) { fail_at(path, 1, problem); };
    if (words.empty() || lower(words[0]) != "%%matrixmarket")
        fail("missing banner: a Matrix Market file starts with "
             "'%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric'");
    if (words.size() < 5)
        fail(fmt::format("incomplete banner '{}': expected '%%MatrixMarket matrix <format> <field> <symmetry>'",
                         line));
    if (words.size() > 5) fail(fmt::format("extra word '{}' in the banner", words[5]));
    const std::string object = lower(words[1]), format = lower(words[2]), field = lower(words[3]),
                      symmetry = lower(words[4]);
    if (object == "vector") fail("'vector' objects are not supported (only 'matrix')");
    if (object != "matrix") fail(fmt::format("unknown object '{}' in the banner (expected 'matrix')", words[1]));
    if (format == "coordinate") header.coordinate = true;
    else if (format == "array") header.coordinate = false;
    else fail(fmt::format("unknown format '{}' in the banner (expected 'coordinate' or 'array')", words[2]));
    if (const auto known = enum_from_name(matrix_market_field_names, field)) header.field = *known;
    else if (field == "complex") fail("'complex' matrices are not supported (only real, integer, pattern)");
    else fail(fmt::format("unknown field '{}' in the banner (expected real, integer or pattern)", words[3]));
    if (const auto known = enum_from_name(matrix_market_symmetry_names, symmetry)) header.symmetry = *known;
    else if (symmetry == "hermitian") fail("'hermitian' matrices are not supported (only general, symmetric, skew-symmetric)");
    else fail(fmt::format("unknown symmetry '{}' in the banner (expected general, symmetric or skew-symmetric)",
                          words[4]));
    if (!header.coordinate && header.field == MatrixMarketField::pattern)
        fail("'pattern' is only allowed with the 'coordinate' format");
    if (header.field == MatrixMarketField::pattern && header.symmetry == MatrixMarketSymmetry::skew_symmetric)
        fail("a 'pattern' matrix cannot be 'skew-symmetric'");
}

/// Reads the size line (line number `line`) into header.
void parse_size_line(std::string_view text, std::int64_t line, const std::filesystem::path& path,
                     MatrixMarketHeader& header)
{
    const std::vector<std::string_view> words = words_of(text);
    const std::size_t expected = header.coordinate ? 3 : 2;
    const char* shape = header.coordinate ? "'rows columns entries'" : "'rows columns'";
    std::int64_t numbers[3] = {0, 0, 0};
    if (words.size() != expected)
        fail_at(path, line, fmt::format("bad size line '{}': expected {}", text, shape));
    for (std::size_t i = 0; i < expected; ++i) {
        const auto [end, ec] = std::from_chars(words[i].data(), words[i].data() + words[i].size(), numbers[i]);
        if (ec != std::errc() || end != words[i].data() + words[i].size() || numbers[i] < 0)
            fail_at(path, line, fmt::format("bad size line '{}': expected {} as non-negative integers", text, shape));
    }
    header.rows = numbers[0];
    header.cols = numbers[1];
    if (header.symmetry != MatrixMarketSymmetry::general && header.rows != header.cols)
        fail_at(path, line, fmt::format("a {} matrix must be square, but the size line says {} x {}",
                                        symmetry_name(header.symmetry), header.rows, header.cols));
    if (header.coordinate) {
        header.entries = numbers[2];
        return;
    }
    // array: every entry, or the stored triangle (with the diagonal unless skew-symmetric).
    const __int128 n = header.rows, m = header.cols;
    const __int128 count = header.symmetry == MatrixMarketSymmetry::general   ? n * m
                           : header.symmetry == MatrixMarketSymmetry::symmetric ? n * (n + 1) / 2
                                                                                : n * (n - 1) / 2;
    if (count > std::numeric_limits<std::int64_t>::max())
        fail_at(path, line, fmt::format("an array of {} x {} entries is too large", header.rows, header.cols));
    header.entries = static_cast<std::int64_t>(count);
}

/// Parses the header from text (the whole file when complete, else its start); nullopt when
/// the start is too short to hold the size line.
std::optional<MatrixMarketHeader> parse_header(std::string_view text, bool complete,
                                               const std::filesystem::path& path)
{
    MatrixMarketHeader header;
    std::size_t pos = 0;
    std::int64_t line = 0;
    for (;;) {
        if (pos >= text.size() && complete) {
            if (line == 0) fail_at(path, 1, "empty file: missing the '%%MatrixMarket' banner");
            fail_at(path, line + 1, header.coordinate ? "missing size line 'rows columns entries'"
                                                      : "missing size line 'rows columns'");
        }
        std::size_t newline = text.find('\n', pos);
        if (newline == std::string_view::npos) {
            if (!complete) return std::nullopt;
            newline = text.size();
        }
        std::string_view current = text.substr(pos, newline - pos);
        if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
        pos = std::min(newline + 1, text.size());
        ++line;
        if (line == 1) {
            parse_banner(current, path, header);
            continue;
        }
        const std::size_t first = current.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || current[first] == '%') continue;  // blank or comment
        parse_size_line(current, line, path, header);
        header.data_line = line + 1;
        header.data_offset = pos;
        return header;
    }
}

// --- data lines --------------------------------------------------------------------------

/// What every data line of a file must look like.
struct DataShape {
    bool coordinate = true;
    MatrixMarketField field = MatrixMarketField::real;
    MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::general;
    std::int64_t rows = 0, cols = 0;
};

/// One COO entry, 0-based.
struct Entry {
    index_type row, col;
    double value;
};

/// Whole lines of data (each ending in '\n') and the file offset of their first byte.
struct Span {
    const char* begin = nullptr;
    const char* end = nullptr;  ///< just past a '\n'
    std::size_t offset = 0;
};

/// A part of the data, parsed by one thread, and what it holds.
struct Chunk {
    /// Usually one span of the file; the last chunk also gets the file's last line when no
    /// newline ends it, copied with one.
    std::vector<Span> spans;
    std::vector<Entry> entries;  ///< coordinate files
    std::vector<double> values;  ///< array files
    std::int64_t mirrored = 0;   ///< off-diagonal entries of a symmetric / skew file
    bool failed = false;
    std::size_t error_offset = 0;  ///< file offset of the first bad line
    std::string error;

    std::size_t bytes() const
    {
        std::size_t sum = 0;
        for (const Span& span : spans) sum += static_cast<std::size_t>(span.end - span.begin);
        return sum;
    }

    std::int64_t lines() const
    {
        return static_cast<std::int64_t>(entries.empty() ? values.size() : entries.size());
    }
};

/// Parses the data lines of one chunk; stops at the first bad line (recorded in the chunk).
/// row_counts (rows entries, or nullptr) counts the entries each row will hold.
class ChunkParser {
public:
    ChunkParser(const DataShape& shape, Chunk& chunk, index_type* row_counts)
        : shape_(shape), chunk_(chunk), counts_(row_counts)
    {}

    void run()
    {
        for (const Span& span : chunk_.spans) {
            span_ = &span;
            if (!parse_span()) return;
        }
    }

private:
    bool parse_span()
    {
        const char* p = span_->begin;
        while (p < span_->end) {
            line_ = p;
            while (is_blank(*p)) ++p;
            if (*p == '\n') {  // blank line
                ++p;
                continue;
            }
            if (*p == '%') return fail("comment lines are only allowed before the size line");
            if (!(shape_.coordinate ? coordinate_line(p) : array_line(p))) return false;
            while (is_blank(*p)) ++p;
            if (*p != '\n')
                return fail(fmt::format("extra text '{}' after the entry (a {} {} line holds {} number{})",
                                        word_at(p), shape_.coordinate ? "coordinate" : "array",
                                        field_name(shape_.field), numbers_per_line(),
                                        numbers_per_line() == 1 ? "" : "s"));
            ++p;
        }
        return true;
    }

    int numbers_per_line() const
    {
        return (shape_.coordinate ? 2 : 0) + (shape_.field == MatrixMarketField::pattern ? 0 : 1);
    }

    bool fail(std::string problem)
    {
        chunk_.failed = true;
        chunk_.error_offset = span_->offset + static_cast<std::size_t>(line_ - span_->begin);
        chunk_.error = std::move(problem);
        return false;
    }

    bool index(const char*& p, const char* what, std::int64_t limit, std::int64_t& value)
    {
        if (*p == '\n') return fail(fmt::format("short line: missing the {}", what));
        const auto [end, ec] = std::from_chars(p, span_->end, value);
        if (ec != std::errc() || !ends_token(*end))
            return fail(fmt::format("bad {} '{}' (expected an integer)", what, word_at(p)));
        if (value < 1 || value > limit)
            return fail(fmt::format("{} {} is out of range 1..{} (indices are 1-based)", what, value, limit));
        p = end;
        while (is_blank(*p)) ++p;
        return true;
    }

    bool value(const char*& p, double& result)
    {
        if (*p == '\n') return fail("short line: missing the value");
        if (shape_.field == MatrixMarketField::integer) {
            std::int64_t integer = 0;
            const char* digits = *p == '+' && std::isdigit(static_cast<unsigned char>(p[1])) ? p + 1 : p;
            const auto [end, ec] = std::from_chars(digits, span_->end, integer);
            if (ec != std::errc() || !ends_token(*end))
                return fail(fmt::format("bad value '{}' (an integer file holds integers)", word_at(p)));
            result = static_cast<double>(integer);
            p = end;
            return true;
        }
        const char* start = p;
        if (*p == '+' && (std::isdigit(static_cast<unsigned char>(p[1])) || p[1] == '.')) ++p;
        auto [end, ec] = std::from_chars(p, span_->end, result);
        if (ec == std::errc::result_out_of_range && ends_token(*end)) {
            // Underflow reads as 0 or a subnormal; overflow stays an error (below).
            const std::string word(p, end);
            result = std::strtod(word.c_str(), nullptr);
            if (!std::isfinite(result))
                return fail(fmt::format("value '{}' is out of the range of double", word_at(start)));
            ec = std::errc();
        }
        if (ec != std::errc() || !ends_token(*end))
            return fail(fmt::format("bad value '{}' (expected a real number)", word_at(start)));
        if (!std::isfinite(result))
            return fail(fmt::format("value '{}' is not finite (NaN and infinity are not allowed)", word_at(start)));
        p = end;
        return true;
    }

    bool coordinate_line(const char*& p)
    {
        std::int64_t row = 0, col = 0;
        double v = 1.0;
        if (!index(p, "row index", shape_.rows, row) || !index(p, "column index", shape_.cols, col)) return false;
        if (shape_.field != MatrixMarketField::pattern && !value(p, v)) return false;
        if (shape_.symmetry != MatrixMarketSymmetry::general) {
            if (col > row)
                return fail(fmt::format("entry ({}, {}) lies above the diagonal: a {} file stores only the "
                                        "lower triangle (row >= column)",
                                        row, col, symmetry_name(shape_.symmetry)));
            if (shape_.symmetry == MatrixMarketSymmetry::skew_symmetric && row == col && v != 0.0)
                return fail(fmt::format("nonzero diagonal entry ({}, {}) in a skew-symmetric file "
                                        "(its diagonal is zero)",
                                        row, col));
        }
        const auto r = static_cast<index_type>(row - 1), c = static_cast<index_type>(col - 1);
        chunk_.entries.push_back({r, c, v});
        if (counts_ != nullptr) ++counts_[r];
        if (r != c && shape_.symmetry != MatrixMarketSymmetry::general) {
            ++chunk_.mirrored;
            if (counts_ != nullptr) ++counts_[c];
        }
        return true;
    }

    bool array_line(const char*& p)
    {
        double v = 0.0;
        if (!value(p, v)) return false;
        chunk_.values.push_back(v);
        return true;
    }

    const DataShape& shape_;
    Chunk& chunk_;
    index_type* counts_;
    const Span* span_ = nullptr;
    const char* line_ = nullptr;
};

/// Throws MatrixMarketError when the header announces more data lines than the file_bytes of
/// its file can hold: each data line takes at least a few bytes ("1 1\n", "1 1 1\n", "1\n"),
/// the last one possibly without its newline, so a huge count with little text fails before
/// anything is allocated or estimated.
void check_entry_room(const MatrixMarketHeader& header, std::size_t file_bytes, const std::filesystem::path& path)
{
    const std::int64_t line_bytes =
        !header.coordinate ? 2 : header.field == MatrixMarketField::pattern ? 4 : 6;
    const auto left = static_cast<std::int64_t>(file_bytes - std::min(file_bytes, header.data_offset));
    const std::int64_t room = (left + 1) / line_bytes;
    if (header.entries > room)
        fail_at(path, header.data_line - 1,
                fmt::format("malformed size line: it announces {} entries, more than the file can hold (the "
                            "{} bytes after it hold at most {}, each taking at least {} bytes)",
                            header.entries, left, room, line_bytes));
}

/// The header of a file in memory, and the check of its entry count against its size.
MatrixMarketHeader checked_header(std::string_view text, const std::filesystem::path& path)
{
    const MatrixMarketHeader header = *parse_header(text, true, path);
    check_entry_room(header, text.size(), path);
    return header;
}

/// Number of chunks: one per thread, fewer for small data and for matrices whose per-chunk
/// row counters (rows each) would outweigh the entries.
int chunk_count(std::size_t data_bytes, std::int64_t entries, std::int64_t rows)
{
    std::int64_t chunks = host_threads();
    chunks = std::min<std::int64_t>(chunks, 1 + static_cast<std::int64_t>(data_bytes / min_chunk_bytes));
    if (rows > 0) chunks = std::min<std::int64_t>(chunks, 1 + 2 * entries / rows);
    return static_cast<int>(std::max<std::int64_t>(1, chunks));
}

/// Splits the data (from data_offset on) into n chunks at newlines. A last line without a
/// newline goes, copied into `tail` with one, to the last chunk.
std::vector<Chunk> split_data(std::string_view text, std::size_t data_offset, int n, std::string& tail)
{
    const std::size_t last_newline = text.rfind('\n');
    const std::size_t body_end =
        last_newline != std::string_view::npos && last_newline >= data_offset ? last_newline + 1 : data_offset;
    const char* begin = text.data() + data_offset;
    const char* end = text.data() + body_end;
    const auto length = static_cast<std::size_t>(end - begin);
    std::vector<Chunk> chunks(static_cast<std::size_t>(n));
    const char* at = begin;
    for (int i = 0; i < n; ++i) {
        const char* cut = end;
        if (i + 1 < n) {
            cut = std::max(at, begin + length * std::size_t(i + 1) / std::size_t(n));
            if (cut > begin && cut[-1] != '\n')
                cut = static_cast<const char*>(std::memchr(cut, '\n', static_cast<std::size_t>(end - cut))) + 1;
        }
        chunks[std::size_t(i)].spans.push_back({at, cut, static_cast<std::size_t>(at - text.data())});
        at = cut;
    }
    if (body_end < text.size()) {
        tail.assign(text.substr(body_end));
        tail += '\n';
        chunks.back().spans.push_back({tail.data(), tail.data() + tail.size(), body_end});
    }
    return chunks;
}

/// File offset of data line `index` (0-based, blank lines not counted) of chunk.
std::size_t data_line_offset(const Chunk& chunk, std::int64_t index)
{
    std::size_t offset = 0;
    for (const Span& span : chunk.spans) {
        const char* p = span.begin;
        while (p < span.end) {
            const char* line = p;
            while (is_blank(*p)) ++p;
            const bool blank = *p == '\n';
            p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(span.end - p))) + 1;
            if (!blank && index-- == 0) return span.offset + static_cast<std::size_t>(line - span.begin);
        }
        offset = span.offset + static_cast<std::size_t>(span.end - span.begin);
    }
    return offset;
}

/// Parses every chunk in parallel, then throws the first problem in file order: a bad line,
/// more data lines than announced, or fewer.
void parse_chunks(std::vector<Chunk>& chunks, const DataShape& shape, const MatrixMarketHeader& header,
                  std::string_view text, const std::filesystem::path& path, index_type* row_counts)
{
    const double data_bytes = std::max(1.0, static_cast<double>(text.size() - header.data_offset));
    const auto entries = static_cast<double>(header.entries);
    parallel_for_each(static_cast<int>(chunks.size()), [&](int i) {
        Chunk& chunk = chunks[static_cast<std::size_t>(i)];
        // Room for this chunk's share of the announced entries (the count is at most what the
        // bytes allow: checked_header), a little more for uneven lines.
        const double share = static_cast<double>(chunk.bytes()) / data_bytes;
        const auto expected = static_cast<std::size_t>(std::min(entries, 1.02 * share * entries) + 16);
        if (shape.coordinate) chunk.entries.reserve(expected);
        else chunk.values.reserve(expected);
        index_type* counts =
            row_counts ? row_counts + static_cast<std::size_t>(i) * static_cast<std::size_t>(shape.rows) : nullptr;
        ChunkParser(shape, chunk, counts).run();
    });
    std::int64_t before = 0;
    for (const Chunk& chunk : chunks) {
        const std::int64_t count = chunk.lines();
        if (before + count > header.entries)
            fail_at(path, line_of(text, data_line_offset(chunk, header.entries - before)),
                    fmt::format("more data lines than the {} the size line (line {}) announces", header.entries,
                                header.data_line - 1));
        if (chunk.failed) fail_at(path, line_of(text, chunk.error_offset), chunk.error);
        before += count;
    }
    if (before < header.entries)
        fail_at(path, last_line(text),
                fmt::format("the file ends after {} data lines, but the size line (line {}) announces {}", before,
                            header.data_line - 1, header.entries));
}

/// Sorts one row's entries by column, stably (duplicates keep their file order), and sums
/// duplicates in that order; returns the new length.
index_type sort_and_sum_row(index_type* col, double* val, index_type length,
                            std::vector<std::pair<index_type, double>>& scratch)
{
    bool sorted = true;
    for (index_type k = 1; k < length && sorted; ++k) sorted = col[k - 1] < col[k];
    if (sorted) return length;
    if (length <= 32) {
        for (index_type k = 1; k < length; ++k) {  // insertion sort: stable
            const index_type c = col[k];
            const double v = val[k];
            index_type j = k;
            for (; j > 0 && col[j - 1] > c; --j) {
                col[j] = col[j - 1];
                val[j] = val[j - 1];
            }
            col[j] = c;
            val[j] = v;
        }
    } else {
        scratch.resize(static_cast<std::size_t>(length));
        for (index_type k = 0; k < length; ++k) scratch[k] = {col[k], val[k]};
        std::stable_sort(scratch.begin(), scratch.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (index_type k = 0; k < length; ++k) std::tie(col[k], val[k]) = scratch[k];
    }
    index_type out = 0;
    for (index_type k = 0; k < length; ++k) {
        if (out > 0 && col[out - 1] == col[k]) {
            val[out - 1] += val[k];
        } else {
            col[out] = col[k];
            val[out] = val[k];
            ++out;
        }
    }
    return out;
}

/// CSR from the parsed chunks: a stable counting sort by row (chunk i's entries of a row
/// after chunk i-1's), then per row a stable sort by column and the sum of duplicates.
/// counts holds chunks x rows entry counts per row; it is overwritten.
Csr<double> assemble_csr(std::vector<Chunk>& chunks, const DataShape& shape, index_type* counts,
                         std::int64_t total)
{
    const ExecPtr host = Executor::create_cpu();
    const auto rows = static_cast<index_type>(shape.rows);
    const auto n = static_cast<int>(chunks.size());
    Csr<double> csr{rows, static_cast<index_type>(shape.cols), Array<index_type>(host, std::size_t(rows) + 1),
                    Array<index_type>(host, static_cast<std::size_t>(total)),
                    Array<double>(host, static_cast<std::size_t>(total))};
    // counts[i][r] becomes the position of chunk i's first entry of row r.
    index_type* row_ptr = csr.row_ptr.data();
    index_type next = 0;
    for (index_type r = 0; r < rows; ++r) {
        row_ptr[r] = next;
        for (int i = 0; i < n; ++i) next += std::exchange(counts[std::size_t(i) * std::size_t(rows) + r], next);
    }
    row_ptr[rows] = next;
    const bool mirror = shape.symmetry != MatrixMarketSymmetry::general;
    const double sign = shape.symmetry == MatrixMarketSymmetry::skew_symmetric ? -1.0 : 1.0;
    index_type* col = csr.col_idx.data();
    double* val = csr.values.data();
    parallel_for_each(n, [&](int i) {
        index_type* at = counts + std::size_t(i) * std::size_t(rows);
        for (const Entry& e : chunks[std::size_t(i)].entries) {
            index_type k = at[e.row]++;
            col[k] = e.col;
            val[k] = e.value;
            if (mirror && e.row != e.col) {
                k = at[e.col]++;
                col[k] = e.row;
                val[k] = sign * e.value;
            }
        }
        std::vector<Entry>().swap(chunks[std::size_t(i)].entries);
    });
    // Sort and sum each row; new_length[r] < old length means duplicates were summed.
    std::vector<index_type> new_length(static_cast<std::size_t>(rows));
    bool duplicates = false;
#pragma omp parallel reduction(|| : duplicates)
    {
        std::vector<std::pair<index_type, double>> scratch;
#pragma omp for schedule(dynamic, 4096)
        for (index_type r = 0; r < rows; ++r) {
            const index_type length = row_ptr[r + 1] - row_ptr[r];
            new_length[r] = sort_and_sum_row(col + row_ptr[r], val + row_ptr[r], length, scratch);
            duplicates = duplicates || new_length[r] != length;
        }
    }
    if (!duplicates) return csr;
    Array<index_type> compact_ptr(host, std::size_t(rows) + 1);
    index_type* ptr = compact_ptr.data();
    ptr[0] = 0;
    for (index_type r = 0; r < rows; ++r) ptr[r + 1] = ptr[r] + new_length[r];
    Array<index_type> compact_col(host, static_cast<std::size_t>(ptr[rows]));
    Array<double> compact_val(host, static_cast<std::size_t>(ptr[rows]));
#pragma omp parallel for schedule(static)
    for (index_type r = 0; r < rows; ++r) {
        std::copy_n(col + row_ptr[r], new_length[r], compact_col.data() + ptr[r]);
        std::copy_n(val + row_ptr[r], new_length[r], compact_val.data() + ptr[r]);
    }
    return Csr<double>{rows, csr.cols, std::move(compact_ptr), std::move(compact_col), std::move(compact_val)};
}

// --- writing -----------------------------------------------------------------------------

/// The banner, the comment lines and the size line.
std::string preamble(const char* banner, const std::string& comment, const std::string& size_line)
{
    std::string text = fmt::format("%%MatrixMarket matrix {}\n", banner);
    if (!comment.empty()) {
        std::size_t pos = 0;
        for (;;) {
            const std::size_t newline = comment.find('\n', pos);
            text += '%';
            text.append(comment, pos, newline == std::string::npos ? std::string::npos : newline - pos);
            text += '\n';
            if (newline == std::string::npos) break;
            pos = newline + 1;
        }
    }
    return text + size_line + '\n';
}

/// Writes `count` items formatted by format(begin, end, out) -> end of text (at most
/// max_bytes per item), host_threads() chunks at a time formatted in parallel, then written
/// in order.
template <typename Format>
void write_items(FileHandle& file, std::int64_t count, std::size_t max_bytes, Format format)
{
    const int threads = std::max(1, host_threads());
    const std::int64_t per_chunk = std::max<std::int64_t>(1, (std::int64_t(4) << 20) / std::int64_t(max_bytes));
    std::vector<std::unique_ptr<char[]>> buffers(static_cast<std::size_t>(threads));
    std::vector<std::size_t> used(static_cast<std::size_t>(threads));
    for (auto& buffer : buffers) buffer.reset(new char[static_cast<std::size_t>(per_chunk) * max_bytes]);
    for (std::int64_t batch = 0; batch < count; batch += per_chunk * threads) {
        parallel_for_each(threads, [&](int t) {
            const std::int64_t begin = std::min(count, batch + per_chunk * t);
            const std::int64_t end = std::min(count, begin + per_chunk);
            char* buffer = buffers[std::size_t(t)].get();
            used[std::size_t(t)] = static_cast<std::size_t>(format(begin, end, buffer) - buffer);
        });
        for (int t = 0; t < threads; ++t) file.write(buffers[std::size_t(t)].get(), used[std::size_t(t)]);
    }
}

/// A value in shortest round-trip form.
template <typename V>
char* put_value(char* out, V value)
{
    return std::to_chars(out, out + 32, value).ptr;
}

}  // namespace

MatrixMarketHeader read_matrix_market_header(const std::filesystem::path& path)
{
    FileHandle file(path, O_RDONLY);
    std::string text;
    std::size_t want = 64 << 10;
    for (;;) {
        const std::size_t had = text.size();
        text.resize(want);
        const std::size_t got = file.read(text.data() + had, want - had);
        text.resize(had + got);
        const bool complete = had + got < want;
        if (auto header = parse_header(text, complete, path)) {
            check_entry_room(*header, complete ? text.size() : file.size(), path);
            return *header;
        }
        want *= 2;
    }
}

Csr<double> read_matrix_market(const std::filesystem::path& path)
{
    FileText text(path);
    const MatrixMarketHeader header = checked_header(text.view(), path);
    const std::int64_t size_line = header.data_line - 1;
    if (!header.coordinate)
        fail_at(path, 1, "an 'array' (dense) file: read_matrix_market reads sparse 'coordinate' files");
    if (header.rows > max_index || header.cols > max_index)
        fail_at(path, size_line, fmt::format("a {} x {} matrix does not fit gpufem's 32-bit index "
                                             "(gpufem's CSR holds at most 2^31-1 rows and columns)",
                                             header.rows, header.cols));
    if (header.entries > max_index)
        fail_at(path, size_line, fmt::format("{} entries do not fit gpufem's 32-bit index "
                                             "(gpufem's CSR holds at most 2^31-1 entries)",
                                             header.entries));
    // The row arrays (a counter per row and chunk, the offsets, the lengths) are sized by the
    // header alone: a short file may still announce two billion rows.
    const double row_bytes = static_cast<double>(header.rows) * sizeof(index_type) * (host_threads() + 3);
    if (row_bytes > static_cast<double>(available_host_bytes()))
        fail_at(path, size_line, fmt::format("{} rows need {:.2f} GB for the row arrays alone, and {:.2f} GB of "
                                             "host memory are available",
                                             header.rows, row_bytes / 1e9, available_host_bytes() / 1e9));
    const DataShape shape{true, header.field, header.symmetry, header.rows, header.cols};
    const std::size_t data_bytes = text.view().size() - header.data_offset;
    std::string tail;
    std::vector<Chunk> chunks =
        split_data(text.view(), header.data_offset, chunk_count(data_bytes, header.entries, header.rows), tail);
    // Per-chunk row counters, each zeroed by its own thread.
    const std::size_t rows = static_cast<std::size_t>(header.rows);
    std::unique_ptr<index_type[]> counts(new index_type[chunks.size() * rows]);
    parallel_for_each(static_cast<int>(chunks.size()),
                      [&](int i) { std::fill_n(counts.get() + std::size_t(i) * rows, rows, 0); });
    parse_chunks(chunks, shape, header, text.view(), path, counts.get());
    text.release();
    std::int64_t total = header.entries;
    for (const Chunk& chunk : chunks) total += chunk.mirrored;
    if (total > max_index)
        fail_at(path, size_line, fmt::format("the {} entries expand to {} (both triangles), which do not fit "
                                             "gpufem's 32-bit index (gpufem's CSR holds at most 2^31-1 entries)",
                                             header.entries, total));
    return assemble_csr(chunks, shape, counts.get(), total);
}

std::vector<double> read_matrix_market_vector(const std::filesystem::path& path)
{
    FileText text(path);
    const MatrixMarketHeader header = checked_header(text.view(), path);
    if (header.rows != 1 && header.cols != 1)
        fail_at(path, header.data_line - 1,
                fmt::format("not a vector: the size line says {} x {} (expected n x 1 or 1 x n)", header.rows,
                            header.cols));
    const std::int64_t length = header.cols == 1 ? header.rows : header.cols;
    if (length > max_index)
        fail_at(path, header.data_line - 1,
                fmt::format("a vector of {} entries does not fit gpufem's 32-bit index", length));
    const DataShape shape{header.coordinate, header.field, header.symmetry, header.rows, header.cols};
    const std::size_t data_bytes = text.view().size() - header.data_offset;
    std::string tail;
    std::vector<Chunk> chunks =
        split_data(text.view(), header.data_offset, chunk_count(data_bytes, header.entries, 0), tail);
    parse_chunks(chunks, shape, header, text.view(), path, nullptr);
    std::vector<double> result(static_cast<std::size_t>(length), 0.0);
    std::size_t next = 0;
    for (const Chunk& chunk : chunks) {
        if (!header.coordinate) {
            std::copy(chunk.values.begin(), chunk.values.end(), result.begin() + static_cast<std::ptrdiff_t>(next));
            next += chunk.values.size();
        }
        for (const Entry& e : chunk.entries) result[static_cast<std::size_t>(header.cols == 1 ? e.row : e.col)] += e.value;
    }
    return result;
}

template <typename V>
void write_matrix_market(const std::filesystem::path& path, const Csr<V>& matrix, const std::string& comment)
{
    const bool on_device = matrix.executor() && matrix.executor()->is_cuda();
    std::vector<index_type> ptr_copy, col_copy;
    std::vector<V> val_copy;
    if (on_device) {
        ptr_copy = matrix.row_ptr.to_host();
        col_copy = matrix.col_idx.to_host();
        val_copy = matrix.values.to_host();
    }
    const index_type* row_ptr = on_device ? ptr_copy.data() : matrix.row_ptr.data();
    const index_type* col = on_device ? col_copy.data() : matrix.col_idx.data();
    const V* val = on_device ? val_copy.data() : matrix.values.data();
    const auto nnz = static_cast<std::int64_t>(matrix.nnz());
    if (matrix.row_ptr.size() != std::size_t(matrix.rows) + 1 && !(matrix.row_ptr.empty() && nnz == 0))
        throw std::invalid_argument(fmt::format("write_matrix_market({}): row_ptr holds {} offsets for {} rows",
                                                path.string(), matrix.row_ptr.size(), matrix.rows));

    FileHandle file(path, O_WRONLY | O_CREAT | O_TRUNC);
    const std::string head = preamble("coordinate real general", comment,
                                      fmt::format("{} {} {}", matrix.rows, matrix.cols, nnz));
    file.write(head.data(), head.size());
    // "row col value\n": two indices of at most 10 digits, a value of at most 24 characters.
    write_items(file, nnz, 64, [&](std::int64_t begin, std::int64_t end, char* out) {
        if (begin == end) return out;
        index_type row = static_cast<index_type>(std::upper_bound(row_ptr, row_ptr + matrix.rows + 1, begin) - row_ptr - 1);
        for (std::int64_t k = begin; k < end; ++k) {
            while (k >= row_ptr[row + 1]) ++row;
            out = std::to_chars(out, out + 11, row + 1).ptr;
            *out++ = ' ';
            out = std::to_chars(out, out + 11, col[k] + 1).ptr;
            *out++ = ' ';
            out = put_value(out, val[k]);
            *out++ = '\n';
        }
        return out;
    });
    file.close();
}

template void write_matrix_market<float>(const std::filesystem::path&, const Csr<float>&, const std::string&);
template void write_matrix_market<double>(const std::filesystem::path&, const Csr<double>&, const std::string&);

void write_matrix_market_vector(const std::filesystem::path& path, std::span<const double> values,
                                const std::string& comment)
{
    FileHandle file(path, O_WRONLY | O_CREAT | O_TRUNC);
    const std::string head = preamble("array real general", comment, fmt::format("{} 1", values.size()));
    file.write(head.data(), head.size());
    write_items(file, static_cast<std::int64_t>(values.size()), 32, [&](std::int64_t begin, std::int64_t end, char* out) {
        for (std::int64_t k = begin; k < end; ++k) {
            out = put_value(out, values[static_cast<std::size_t>(k)]);
            *out++ = '\n';
        }
        return out;
    });
    file.close();
}

}  // namespace gpufem
