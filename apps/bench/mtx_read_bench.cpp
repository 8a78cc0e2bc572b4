// mtx-read-bench: our Matrix Market reader against Eigen::loadMarket on one large
// `coordinate real general` file (Eigen does not expand symmetric files, so the
// comparison uses general storage). All read from a warm page cache; clcg's reader on one
// thread (the serial reference) and on --threads (default: CLCG_THREADS, else every core),
// Eigen on one; each reports the best of --repeat runs. Then the same file gzip-compressed
// through clcg's reader, on one thread and on --threads (inflated whole by libdeflate, and
// streamed by zlib as for a text too large for memory), and as BGZF (bgzip's independent
// members, inflated on every core) on --threads. Results are compared entry by entry.
// --file may also name a gzip file (told by content): zlib's inflate alone (which counts the
// text), then clcg's reader on it as above. --quick: clcg's reader only (no Eigen, no copies).
// Exit codes: 0 ok, 1 failure or mismatch, 2 bad usage.
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "best_of.hpp"
#include "common/app_main.hpp"
#include "common/command_line.hpp"

#include <unsupported/Eigen/SparseExtra>

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace po = clcg::apps::po;

clcg::apps::CommandLine command_line() {
    clcg::apps::CommandLine cli("mtx-read-bench", "mtx-read-bench [options]",
                                "Times clcg's Matrix Market reader against Eigen::loadMarket on one large general file.");
    cli.add()
        ("size-mb", po::value<clcg::apps::Real>()->default_value(clcg::apps::Real{100}, "100"),
         "size of the generated general file in MB (0 < MB <= 100000)")
        ("file", po::value<std::string>(),
         "benchmark an existing coordinate general file instead (plain, or gzip: see the top)")
        ("dir", po::value<std::string>()->default_value(std::filesystem::temp_directory_path().string()),
         "where to generate the file")
        ("repeat", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{3}, "3"),
         "runs of each reader, best taken (1 .. 1000)")
        ("threads", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{0}, "0"),
         "threads of the parallel reads (0: CLCG_THREADS, else every core; 1 .. 1024)")
        ("keep", "keep the generated file")
        ("quick", "clcg's reader only: no Eigen, no gzip or BGZF copies of a plain file");
    cli.epilog("exit status: 0 ok, 1 failure or the readers disagree, 2 bad usage.\n");
    return cli;
}

using clcg::bench::Clock;
using clcg::bench::seconds_since;

// Reads the file once so both readers start from the page cache.
void warm_cache(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    }
}

// Writes `path`.bench.gz (removed after) with zlib's default level (what gzip(1) and SuiteSparse's archives use).
std::string compress(const std::string& path) {
    const std::string gz = path + ".bench.gz";  // never the user's own .gz beside it
    std::ifstream in(path, std::ios::binary);
    gzFile out = gzopen(gz.c_str(), "wb6");
    if (out == nullptr) throw std::runtime_error("cannot write " + gz);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
        if (gzwrite(out, buf.data(), static_cast<unsigned>(in.gcount())) <= 0) throw std::runtime_error("gzwrite failed");
    if (gzclose(out) != Z_OK) throw std::runtime_error("cannot finish " + gz);
    return gz;
}

// Writes `path`.bench.bgz: the file as BGZF (what `bgzip -@ threads` writes), compressed on `threads` threads.
std::string compress_bgzf_copy(const std::string& path, unsigned threads) {
    const std::string bgz = path + ".bench.bgz";
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(bgz, std::ios::binary);
    out << clcg::solver::compress_bgzf(text, 6, threads);
    if (!out.flush()) throw std::runtime_error("cannot write " + bgz);
    return bgz;
}

// The text size of a gzip file, by inflating it with zlib (timed: zlib's speed on this machine).
std::size_t gzip_text_bytes(const std::string& path, double& seconds) {
    const auto t0 = Clock::now();
    gzFile in = gzopen(path.c_str(), "rb");
    if (in == nullptr) throw std::runtime_error("cannot open " + path);
    gzbuffer(in, 1 << 18);
    std::vector<char> buf(1 << 20);
    std::size_t bytes = 0;
    for (int got; (got = gzread(in, buf.data(), static_cast<unsigned>(buf.size()))) > 0;)
        bytes += static_cast<std::size_t>(got);
    int status = Z_OK;
    gzerror(in, &status);
    gzclose(in);
    if (status != Z_OK && status != Z_STREAM_END) throw std::runtime_error("zlib cannot inflate " + path);
    seconds = seconds_since(t0);
    return bytes;
}

bool is_gzip_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {};
    return in.read(magic, 2) && static_cast<unsigned char>(magic[0]) == 0x1f &&
           static_cast<unsigned char>(magic[1]) == 0x8b;
}

bool identical(const clcg::solver::HostMatrix& a, const clcg::solver::HostMatrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
    return std::equal(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1, b.outerIndexPtr()) &&
           std::equal(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros(), b.innerIndexPtr()) &&
           std::equal(a.valuePtr(), a.valuePtr() + a.nonZeros(), b.valuePtr());
}

int run(const po::variables_map& args) {
    using namespace clcg::solver;
    const double size_mb = clcg::apps::real_in_range(args, "size-mb", 0, 1e5, /*open_min=*/true);
    std::string file = args.count("file") ? args["file"].as<std::string>() : std::string();
    const std::string dir = args["dir"].as<std::string>();
    const int repeat = static_cast<int>(clcg::apps::count_in_range(args, "repeat", 1, 1000));
    const bool keep = args.count("keep") > 0;
    const bool quick = args.count("quick") > 0;
    const auto requested = static_cast<unsigned>(clcg::apps::count_in_range(args, "threads", 0, 1024));
    const ReadOptions serial{1, ReadOptions{}.chunk_bytes};
    const ReadOptions parallel{requested == 0 ? host_threads() : requested, ReadOptions{}.chunk_bytes};
    ReadOptions streamed = parallel;  // the zlib stream, as for a text too large for memory
    streamed.gzip_memory_bytes = 1;
    auto best_of = [&](auto&& run) { return clcg::bench::best_of(repeat, run); };
    if (!file.empty() && is_gzip_file(file)) {  // a gzip file: clcg's reader on it, whole and streamed
        warm_cache(file);
        const double gz_mb = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
        double zlib_s = 0;
        const double mb = static_cast<double>(gzip_text_bytes(file, zlib_s)) / 1e6;
        HostMatrix whole, whole_serial, from_stream;
        const double serial_s = best_of([&] { whole_serial = read_matrix_market(file, nullptr, serial); });
        const double whole_s = best_of([&] { whole = read_matrix_market(file, nullptr, parallel); });
        const double stream_s = best_of([&] { from_stream = read_matrix_market(file, nullptr, streamed); });
        const bool same = identical(whole, whole_serial) && identical(whole, from_stream);
        const unsigned threads = parallel.threads;
        std::printf("file: %s, %.1f MB compressed, %.1f MB of text, %lld x %lld, %lld nonzeros\n", file.c_str(), gz_mb,
                    mb, static_cast<long long>(whole.rows()), static_cast<long long>(whole.cols()),
                    static_cast<long long>(whole.nonZeros()));
        std::printf("zlib inflate alone (gzread), 1 thread:   %7.3f s  %7.1f MB/s of text\n", zlib_s, mb / zlib_s);
        std::printf("clcg gzip, 1 thread:                     %7.3f s  %7.1f MB/s of text\n", serial_s, mb / serial_s);
        std::printf("clcg gzip, %2u threads (libdeflate, whole): %7.3f s  %7.1f MB/s of text\n", threads, whole_s,
                    mb / whole_s);
        std::printf("clcg gzip, %2u threads (zlib, streamed):   %7.3f s  %7.1f MB/s of text\n", threads, stream_s,
                    mb / stream_s);
        std::printf("threads: %u; best of %d runs each; results identical: %s\n", threads, repeat,
                    same ? "yes" : "NO");
        return same ? 0 : 1;
    }
    {
        const bool generated = file.empty();
        if (generated) {
            // About 9 entries per row at ~34 bytes each in general storage.
            const int n = std::max(10, static_cast<int>(size_mb * 1e6 / (9 * 34.0)));
            file = dir + "/clcg_read_bench_" + std::to_string(::getpid()) + ".mtx";
            const auto t0 = Clock::now();
            const HostMatrix a = random_spd(n, 9, 2024);
            const double gen_s = seconds_since(t0);
            const auto t1 = Clock::now();
            write_matrix_market(file, a, false, "mtx-read-bench: random_spd(n, 9, 2024), general storage");
            const double write_s = seconds_since(t1);
            const double mb = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
            std::printf("generated %s: n = %d, nnz = %lld (%.1f s); written in %.2f s (%.0f MB/s)\n", file.c_str(),
                        n, static_cast<long long>(a.nonZeros()), gen_s, write_s, mb / write_s);
        }
        const double mb = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
        warm_cache(file);

        HostMatrix ours, ours_serial;
        const double serial_s = best_of([&] { ours_serial = read_matrix_market(file, nullptr, serial); });
        const double ours_s = best_of([&] { ours = read_matrix_market(file, nullptr, parallel); });
        const unsigned threads = parallel.threads;
        // The file and the plain reads, first in either report.
        const auto print_plain_reads = [&] {
            std::printf("file: %s, %.1f MB, %lld x %lld, %lld nonzeros\n", file.c_str(), mb,
                        static_cast<long long>(ours.rows()), static_cast<long long>(ours.cols()),
                        static_cast<long long>(ours.nonZeros()));
            std::printf("clcg read_matrix_market, 1 thread:    %7.3f s  %7.1f MB/s\n", serial_s, mb / serial_s);
            std::printf("clcg read_matrix_market, %2u threads:  %7.3f s  %7.1f MB/s  (%.1fx one thread)\n", threads,
                        ours_s, mb / ours_s, serial_s / ours_s);
        };
        if (quick) {
            print_plain_reads();
            const bool same = identical(ours, ours_serial);
            std::printf("threads: %u; best of %d runs each; results identical: %s\n", threads, repeat,
                        same ? "yes" : "NO");
            if (generated && !keep) std::filesystem::remove(file);
            return same ? 0 : 1;
        }
        HostMatrix eigen;
        const double eigen_s = best_of([&] {
            if (!Eigen::loadMarket(eigen, file)) throw std::runtime_error("Eigen::loadMarket failed on " + file);
            eigen.makeCompressed();
        });

        // The same file gzip-compressed, read by the same reader (inflate + parse).
        const std::string gz = compress(file);
        const double gz_mb = static_cast<double>(std::filesystem::file_size(gz)) / 1e6;
        warm_cache(gz);
        HostMatrix from_gz, from_gz_serial, from_gz_stream;
        const double gz_serial_s = best_of([&] { from_gz_serial = read_matrix_market(gz, nullptr, serial); });
        const double gz_s = best_of([&] { from_gz = read_matrix_market(gz, nullptr, parallel); });
        const double gz_stream_s = best_of([&] { from_gz_stream = read_matrix_market(gz, nullptr, streamed); });
        std::filesystem::remove(gz);

        // The same text as BGZF (bgzip's independent members), which inflates on every core.
        const std::string bgz = compress_bgzf_copy(file, parallel.threads);
        const double bgz_mb = static_cast<double>(std::filesystem::file_size(bgz)) / 1e6;
        warm_cache(bgz);
        HostMatrix from_bgz;
        const double bgz_s = best_of([&] { from_bgz = read_matrix_market(bgz, nullptr, parallel); });
        std::filesystem::remove(bgz);

        const bool same = identical(ours, eigen) && identical(ours, ours_serial) && identical(ours, from_gz) &&
                          identical(ours, from_gz_serial) && identical(ours, from_gz_stream) &&
                          identical(ours, from_bgz);
        print_plain_reads();
        std::printf("Eigen::loadMarket, 1 thread:          %7.3f s  %7.1f MB/s\n", eigen_s, mb / eigen_s);
        std::printf("clcg gzip (%.1f MB), 1 thread:      %7.3f s  %7.1f MB/s of text\n", gz_mb, gz_serial_s,
                    mb / gz_serial_s);
        std::printf("clcg gzip, %2u threads:                %7.3f s  %7.1f MB/s of text  (%.2fx the plain read)\n",
                    threads, gz_s, mb / gz_s, gz_s / ours_s);
        std::printf("clcg gzip streamed (zlib), %2u threads: %7.3f s  %7.1f MB/s of text  (as for a text too large "
                    "for memory)\n",
                    threads, gz_stream_s, mb / gz_stream_s);
        std::printf("clcg BGZF (%.1f MB), %2u threads:      %7.3f s  %7.1f MB/s of text  (%.2fx the plain read)\n",
                    bgz_mb, threads, bgz_s, mb / bgz_s, bgz_s / ours_s);
        std::printf("threads: %u; speed-up over Eigen: %.1fx (best of %d runs each); results identical: %s\n", threads,
                    eigen_s / ours_s, repeat, same ? "yes" : "NO");
        if (generated && !keep) std::filesystem::remove(file);
        return same ? 0 : 1;
    }
}

}  // namespace

int main(int argc, char** argv) { return clcg::apps::app_main(command_line(), argc, argv, run); }
