// The Matrix Market reader on several threads against the serial reader (threads = 1): the
// same bits on the shared matrices and on generated files (plain, gzip, in memory), the same
// messages with the same lines wherever the first error lies. Small chunks make small files
// span many chunks, so chunk edges fall everywhere.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <Eigen/SparseCore>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "io/mm_test_support.hpp"
#include "support/temp_dir.hpp"
#include "support/threads_variable.hpp"

namespace {

using namespace clcg::test;
using clcg::solver::ReadOptions;

const ReadOptions serial{1, ReadOptions{}.chunk_bytes};

// Several workers and chunk sizes: a few lines per chunk up to one chunk for everything.
std::vector<ReadOptions> parallel_options() { return {{2, 64}, {3, 1000}, {4, 1U << 14}, {5, 1U << 22}}; }

std::string error_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string text_of(const HostMatrix& a, bool symmetric_lower) {
    TempDir dir;
    clcg::solver::write_matrix_market(dir.file("a.mtx"), a, symmetric_lower, "generated");
    std::ifstream in(dir.file("a.mtx"), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A general file with its entries shuffled and some repeated, so rows come unsorted and
// duplicates are summed in file order.
std::string shuffled_with_duplicates(const HostMatrix& a) {
    std::vector<std::string> lines;
    std::mt19937 rng(11);
    for (int i = 0; i < a.outerSize(); ++i)
        for (HostMatrix::InnerIterator it(a, i); it; ++it) {
            const std::string line = std::to_string(i + 1) + " " + std::to_string(it.col() + 1) + " ";
            lines.push_back(line + std::to_string(it.value()) + "\n");
            if (rng() % 5 == 0) lines.push_back(line + "1e-7\n");
        }
    std::shuffle(lines.begin(), lines.end(), rng);
    std::string text = real_general + "% shuffled\n" + std::to_string(a.rows()) + " " + std::to_string(a.cols()) +
                       " " + std::to_string(lines.size()) + "\n";
    for (const std::string& line : lines) text += line;
    return text;
}

void expect_parallel_reads_like_serial(const std::string& text, const std::string& what) {
    SCOPED_TRACE(what);
    TempDir dir;
    write_text(dir.file("a.mtx"), text);
    write_text(dir.file("a.mtx.gz"), gzip(text));
    write_text(dir.file("a.mtx.bgz"), clcg::solver::compress_bgzf(text, 6, 3));
    MatrixMarketInfo serial_info;
    const HostMatrix want = clcg::solver::read_matrix_market(dir.file("a.mtx"), &serial_info, serial);
    // BGZF is gzip: zlib's streaming reader (the serial one) reads it too.
    expect_identical(clcg::solver::read_matrix_market(dir.file("a.mtx.bgz"), nullptr, serial), want);
    for (const ReadOptions& options : parallel_options()) {
        SCOPED_TRACE("threads " + std::to_string(options.threads) + ", chunks of " +
                     std::to_string(options.chunk_bytes) + " bytes");
        MatrixMarketInfo info;
        expect_identical(clcg::solver::read_matrix_market(dir.file("a.mtx"), &info, options), want);
        EXPECT_EQ(info.stored_entries, serial_info.stored_entries);
        EXPECT_EQ(info.symmetry, serial_info.symmetry);
        expect_identical(clcg::solver::read_matrix_market(dir.file("a.mtx.gz"), nullptr, options), want);
        expect_identical(clcg::solver::read_matrix_market(dir.file("a.mtx.bgz"), nullptr, options), want);
        expect_identical(parse_matrix_market(text, "in memory", nullptr, options), want);
    }
}

TEST(MatrixMarketParallel, SharedMatricesGiveTheSerialBits) {
    const std::filesystem::path folder(CLCG_SHARED_MATRICES);
    if (!std::filesystem::is_directory(folder)) GTEST_SKIP() << "no shared matrices at " << folder;
    int read = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.path().extension() != ".mtx") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        expect_parallel_reads_like_serial(std::string(std::istreambuf_iterator<char>(in), {}),
                                          entry.path().filename().string());
        ++read;
    }
    EXPECT_GT(read, 0);
}

TEST(MatrixMarketParallel, GeneratedFilesGiveTheSerialBits) {
    const HostMatrix a = clcg::solver::random_spd(3000, 9, 5);
    expect_parallel_reads_like_serial(text_of(a, false), "general");
    expect_parallel_reads_like_serial(text_of(a, true), "symmetric, lower triangle");
    expect_parallel_reads_like_serial(shuffled_with_duplicates(a), "general, shuffled, duplicates");
    // The serial reader against an independent reference: the shuffled file is the matrix
    // plus 1e-7 on its repeated entries.
    const HostMatrix read = parse_matrix_market(shuffled_with_duplicates(a), "x", nullptr, serial);
    EXPECT_LE((Eigen::MatrixXd(read) - Eigen::MatrixXd(a)).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(MatrixMarketParallel, PatternIntegerAndCrlfFilesToo) {
    std::string pattern = "%%MatrixMarket matrix coordinate pattern symmetric\n400 400 799\n";
    std::string integer = "%%MatrixMarket matrix coordinate integer general\r\n400 400 400\r\n";
    for (int i = 1; i <= 400; ++i) {
        pattern += std::to_string(i) + " " + std::to_string(i) + "\n";
        if (i > 1) pattern += std::to_string(i) + " " + std::to_string(i - 1) + "\n";
        integer += std::to_string(i) + " " + std::to_string(i) + " " + std::to_string(i * 3) + "\r\n";
    }
    expect_parallel_reads_like_serial(pattern, "pattern symmetric");
    expect_parallel_reads_like_serial(integer, "integer, CRLF");
    std::string commented = real_general + "% sizes next\n\n300 300 300\n";
    for (int i = 1; i <= 300; ++i)
        commented += std::to_string(i) + "\t" + std::to_string(301 - i) + "  -0." + std::to_string(i) +
                     (i % 7 == 0 ? "\n% a comment\n\n" : "\n");
    commented += "% the end, with no newline";
    expect_parallel_reads_like_serial(commented, "comments and blank lines between entries, no final newline");
    expect_parallel_reads_like_serial(real_general + "0 0 0\n", "empty matrix");
}

std::string replace_line(std::string text, std::size_t line, const std::string& replacement) {
    std::size_t at = 0;
    for (std::size_t k = 1; k < line; ++k) at = text.find('\n', at) + 1;
    return text.replace(at, text.find('\n', at) - at, replacement);
}

// A valid diagonal file of 2000 entries (line k + 2 holds entry k) with line `line` replaced.
std::string with_line(std::size_t line, const std::string& replacement, const std::string& banner = real_general) {
    std::string text = banner + "2000 2000 2000\n";
    for (int k = 1; k <= 2000; ++k) text += std::to_string(k) + " " + std::to_string(k) + " 2.5\n";
    return replace_line(text, line, replacement);
}

TEST(MatrixMarketParallel, ErrorsNameTheSameLineAsTheSerialReader) {
    struct Case {
        std::string text, expected;
    };
    const std::vector<Case> cases = {
        {with_line(1500, "1500 1500 oops"), ":1500: bad value 'oops'"},
        {with_line(1700, "0 1 1"), ":1700: row index 0 out of range"},
        {with_line(1999, "5 5 1 7"), ":1999: unexpected extra token '7'"},
        {with_line(1200, "% a comment where an entry was"), ":2002: truncated"},
        {with_line(2002, "2000 2000 1\n1 2 3"), ":2003: more entries than the 2000 declared"},
        {with_line(2002, "2000 2000 1\n1 2 oops"), ":2003: more entries than the 2000 declared"},
        {with_line(1300, "1299 1299 1\n1300 1300 oops"), ":1301: bad value 'oops'"},
    };
    TempDir dir;
    for (const Case& c : cases) {
        write_text(dir.file("bad.mtx"), c.text);
        write_text(dir.file("bad.mtx.gz"), gzip(c.text));
        write_text(dir.file("bad.mtx.bgz"), clcg::solver::compress_bgzf(c.text));
        const std::string want = error_of([&] { clcg::solver::read_matrix_market(dir.file("bad.mtx"), nullptr, serial); });
        EXPECT_NE(want.find(c.expected), std::string::npos) << want;
        for (const ReadOptions& options : parallel_options()) {
            EXPECT_EQ(error_of([&] { clcg::solver::read_matrix_market(dir.file("bad.mtx"), nullptr, options); }), want);
            for (const char* compressed : {"bad.mtx.gz", "bad.mtx.bgz"}) {
                const std::string gz =
                    error_of([&] { clcg::solver::read_matrix_market(dir.file(compressed), nullptr, options); });
                EXPECT_EQ(gz.substr(gz.find(':')), want.substr(want.find(':')));
            }
            const std::string memory = error_of([&] { parse_matrix_market(c.text, dir.file("bad.mtx"), nullptr, options); });
            EXPECT_EQ(memory, want);
        }
    }
}

TEST(MatrixMarketParallel, MirroredEntriesOfASymmetricFileAreNamedAsOnOneThread) {
    // (1800, 1) on line 102 and its mirror (1, 1800) far down, on line 1902.
    const std::string text = replace_line(with_line(102, "1800 1 -1", real_symmetric), 1902, "1 1800 -1");
    const std::string want = error_of([&] { parse_matrix_market(text, "sym.mtx", nullptr, serial); });
    EXPECT_NE(want.find(":1902: entry (1,1800) mirrors entry (1800,1) on line 102"), std::string::npos) << want;
    for (const ReadOptions& options : parallel_options())
        EXPECT_EQ(error_of([&] { parse_matrix_market(text, "sym.mtx", nullptr, options); }), want);
}

TEST(MatrixMarketParallel, CorruptGzipIsNamedAsOnOneThread) {
    TempDir dir;
    const std::string text = text_of(clcg::solver::random_spd(20000, 9, 3), false);
    for (const auto& [name, compressed] : {std::pair("a.mtx.gz", gzip(text)), std::pair("a.mtx.bgz", clcg::solver::compress_bgzf(text))}) {
        write_text(dir.file(std::string("truncated_") + name), compressed.substr(0, compressed.size() / 2));
        std::string corrupt = compressed;
        for (std::size_t k = compressed.size() / 2; k < compressed.size() / 2 + 64; ++k) corrupt[k] ^= 0x5a;
        write_text(dir.file(std::string("corrupt_") + name), corrupt);
    }
    for (const char* name : {"truncated_a.mtx.gz", "corrupt_a.mtx.gz", "truncated_a.mtx.bgz", "corrupt_a.mtx.bgz"}) {
        const std::string want = error_of([&] { clcg::solver::read_matrix_market(dir.file(name), nullptr, serial); });
        EXPECT_NE(want, "(no error)");  // the gzip's, or a parse error in text inflated before it
        for (const ReadOptions& options : parallel_options())
            EXPECT_EQ(error_of([&] { clcg::solver::read_matrix_market(dir.file(name), nullptr, options); }), want);
    }
}

TEST(MatrixMarketParallel, PipesAreReadOnceWholeThenParsed) {
    TempDir dir;
    const std::string text = text_of(clcg::solver::random_spd(2000, 9, 8), true);
    const HostMatrix want = parse_matrix_market(text, "x", nullptr, serial);
    for (const std::string& bytes : {text, gzip(text), clcg::solver::compress_bgzf(text)}) {
        const std::string fifo = dir.file("pipe");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        std::thread writer([&] { write_text(fifo, bytes); });
        HostMatrix got;
        EXPECT_NO_THROW(got = clcg::solver::read_matrix_market(fifo, nullptr, {3, 1000}));
        writer.join();
        expect_identical(got, want);
        std::filesystem::remove(fifo);
    }
}

using clcg::test::ThreadsVariable;

TEST(HostThreads, ClcgThreadsIsReadAndCheckedByName) {
    {
        const ThreadsVariable v("3");
        EXPECT_EQ(clcg::solver::host_threads(), 3u);
    }
    for (const char* bad : {"0", "-2", "many", "4x", "100000"}) {
        const ThreadsVariable v(bad);
        const std::string message = error_of([] { clcg::solver::host_threads(); });
        EXPECT_EQ(message.rfind("CLCG_THREADS: '" + std::string(bad) + "' is not a thread count", 0), 0u) << message;
    }
}

// The first stored column of row i that is not i.
int off_diagonal(const HostMatrix& a, int i) {
    for (HostMatrix::InnerIterator it(a, i); it; ++it)
        if (it.col() != i) return static_cast<int>(it.col());
    return -1;
}

TEST(HostThreads, GeneratorsSymmetryCheckAndOnesGiveTheSameBitsOnAnyThreadCount) {
    // Big enough that several threads get work (at least 32k rows, 64k nonzeros each).
    auto run = [] {
        struct Results {
            HostMatrix p3, p2, shifted;
            clcg::solver::SymmetryReport symmetry;
            Eigen::VectorXd ones;
        } r;
        r.p3 = clcg::solver::poisson_3d(53, 47, 41);
        r.p2 = clcg::solver::anisotropic_poisson_2d(401, 333, 0.01);
        r.shifted = clcg::solver::random_spd(60000, 9, 4);
        r.shifted.coeffRef(59000, off_diagonal(r.shifted, 59000)) += 0.5;
        r.shifted.coeffRef(30000, off_diagonal(r.shifted, 30000)) -= 0.5;
        r.symmetry = clcg::solver::check_symmetry(r.shifted);
        r.ones = clcg::solver::times_ones(r.shifted);
        return r;
    };
    const auto one = [&] {
        const ThreadsVariable v("1");
        return run();
    }();
    const ThreadsVariable v("5");
    const auto five = run();
    expect_identical(five.p3, one.p3);
    expect_identical(five.p2, one.p2);
    // Independent references: the stencils from triplets, Eigen's own product.
    std::vector<Eigen::Triplet<double, int>> t;
    const int nx = 53, ny = 47, nz = 41;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const int row = i + nx * (j + ny * k);
                t.emplace_back(row, row, 6.0);
                if (i > 0) t.emplace_back(row, row - 1, -1.0), t.emplace_back(row - 1, row, -1.0);
                if (j > 0) t.emplace_back(row, row - nx, -1.0), t.emplace_back(row - nx, row, -1.0);
                if (k > 0) t.emplace_back(row, row - nx * ny, -1.0), t.emplace_back(row - nx * ny, row, -1.0);
            }
    HostMatrix want(nx * ny * nz, nx * ny * nz);
    want.setFromTriplets(t.begin(), t.end());
    expect_identical(one.p3, want);
    EXPECT_EQ(five.symmetry.max_abs_mismatch, one.symmetry.max_abs_mismatch);
    EXPECT_EQ(five.symmetry.row, one.symmetry.row);
    EXPECT_EQ(five.symmetry.col, one.symmetry.col);
    EXPECT_EQ(five.symmetry.max_abs_entry, one.symmetry.max_abs_entry);
    // Four positions mismatch by 0.5: the first in row-major order wins.
    const int c1 = off_diagonal(one.shifted, 30000), c2 = off_diagonal(one.shifted, 59000);
    const auto first = std::min({std::pair(30000, c1), std::pair(c1, 30000), std::pair(59000, c2), std::pair(c2, 59000)});
    EXPECT_EQ(std::pair(one.symmetry.row, one.symmetry.col), first);
    EXPECT_EQ(one.symmetry.max_abs_mismatch, 0.5);
    EXPECT_FALSE(one.symmetry.symmetric);
    const Eigen::VectorXd eigen_ones = one.shifted * Eigen::VectorXd::Ones(one.shifted.cols());
    EXPECT_TRUE((five.ones.array() == eigen_ones.array()).all());
    EXPECT_TRUE((one.ones.array() == eigen_ones.array()).all());
}

}  // namespace
