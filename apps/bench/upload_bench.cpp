// upload-bench: how fast A reaches the device. For generated Poisson matrices it times the
// CSR upload (allocation, copy, wait) two ways, best of --repeat runs each:
//   pageable  the old path: each array written from ordinary host memory with one blocking
//             clEnqueueWriteBuffer (the driver stages it through its own bounce buffer);
//   staged    DeviceCsrMatrix's path: cl::StagedUpload, double-buffered pinned chunks filled on
//             every host core, for each --chunk-mb; "fresh" allocates the pinned staging in the
//             run (what one process pays), "reused" keeps it from the previous run.
// and, to tell which side limits the staged path, for each chunk size: "pinned alloc" (the
// two mapped halves), "fill only" (the same bytes memcpy'd into them on every core, no
// transfer), "fill ordinary" (the same into ordinary memory: the host's own copy rate) and
// "dma only" (non-blocking writes of whole chunks from them, no fill).
// Every staged upload is read back once and compared bit for bit with the host arrays.
// Exit codes: 0 ok, 1 the device contents differ, 2 bad usage, 3 OpenCL or device error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/cl/host_threads.hpp"
#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/cl/staged_upload.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "clcg/solver/sparse/csr_matrix.hpp"
#include "best_of.hpp"
#include "common/app_main.hpp"
#include "common/command_line.hpp"

namespace {

namespace po = clcg::apps::po;
using clcg::apps::CountList;
using clcg::solver::CsrView;
using clcg::solver::DeviceCsrMatrix;
using clcg::solver::ElementType;
using clcg::bench::best_of;
using clcg::bench::Clock;
using clcg::bench::seconds_since;

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("upload-bench", "upload-bench [options]",
                              "Times the upload of a CSR matrix: pageable writes against pinned staging.");
  cli.add()
      ("poisson2d", po::value<CountList>()->default_value(CountList{{2048}}, "2048"),
       "2D Poisson grid sizes N (N^2 rows), comma-separated")
      ("poisson3d", po::value<CountList>()->default_value(CountList{{256}}, "256"),
       "3D Poisson grid sizes N (N^3 rows), comma-separated")
      ("precision", po::value<std::string>()->default_value("double"), "values on the device: double or float")
      ("chunk-mb", po::value<CountList>()->default_value(CountList{{4, 16, 64}}, "4,16,64"),
       "staging chunk sizes in MB, comma-separated (1 .. 1024)")
      ("repeat", po::value<clcg::apps::Count>()->default_value(clcg::apps::Count{3}, "3"),
       "runs of each path, best taken (1 .. 1000)");
  cli.epilog("exit status: 0 ok, 1 the device contents differ from the host's, 2 bad usage, 3 OpenCL or device error.\n");
  cli.add_device_options();
  return cli;
}


// The old path, kept here as the baseline: blocking writes from pageable memory (values
// narrowed into a temporary vector first for float).
void pageable_upload(const clcg::cl::Env& env, const CsrView& a, ElementType type) {
  auto write = [&](const void* data, std::size_t bytes) {
    ::cl::Buffer buffer(env.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(bytes, 8));
    if (bytes) env.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data);
  };
  write(a.row_ptr.data(), a.row_ptr.size_bytes());
  write(a.col_idx.data(), a.col_idx.size_bytes());
  if (type == ElementType::f64) {
    write(a.values.data(), a.values.size_bytes());
  } else {
    const std::vector<float> narrow(a.values.begin(), a.values.end());
    write(narrow.data(), narrow.size() * sizeof(float));
  }
}

// The bytes of A's arrays as the device holds them (a float matrix's values: the first half
// of the doubles' bytes, as many as the device gets), for the fill-only diagnostic.
std::vector<std::pair<const unsigned char*, std::size_t>> device_sized_arrays(const CsrView& a, ElementType type) {
  auto bytes_of = [](const auto& span) { return reinterpret_cast<const unsigned char*>(span.data()); };
  return {{bytes_of(a.values), a.values.size() * clcg::reduction::element_size(type)},
          {bytes_of(a.col_idx), a.col_idx.size_bytes()},
          {bytes_of(a.row_ptr), a.row_ptr.size_bytes()}};
}

// Copies the arrays chunk by chunk into the two halves at `halves` (pinned, or ordinary memory
// for the host's own copy rate) in turn, as StagedUpload fills them, with no transfer.
void fill_only(unsigned char* halves, std::size_t chunk,
               const std::vector<std::pair<const unsigned char*, std::size_t>>& arrays) {
  int half = 0;
  for (const auto& [data, size] : arrays)
    for (std::size_t first = 0; first < size; first += chunk, half = 1 - half) {
      unsigned char* to = halves + std::size_t(half) * chunk;
      const unsigned char* from = data + first;
      clcg::cl::parallel_ranges(std::min(chunk, size - first), std::size_t(1) << 20,
                                [&](std::size_t b, std::size_t e) { std::memcpy(to + b, from + b, e - b); });
    }
}

// Writes `bytes` to the device in whole chunks from the two halves of `pinned` in turn, all
// non-blocking, then waits: the link's speed from pinned memory, with no fill.
void dma_only(const clcg::cl::Env& env, const clcg::cl::PinnedBuffer& pinned, std::size_t chunk, std::size_t bytes) {
  const ::cl::Buffer target(env.context(), CL_MEM_READ_ONLY, chunk);
  for (std::size_t done = 0, half = 0; done < bytes; done += chunk, half = 1 - half)
    env.queue().enqueueWriteBuffer(target, CL_FALSE, 0, std::min(chunk, bytes - done), pinned.data() + half * chunk);
  env.queue().finish();
}

bool same_on_device(const clcg::cl::Env& env, const DeviceCsrMatrix& device, const CsrView& host, ElementType type) {
  const clcg::solver::HostCsr back = clcg::solver::download(env, device);
  if (!std::equal(host.row_ptr.begin(), host.row_ptr.end(), back.row_ptr.begin()) ||
      !std::equal(host.col_idx.begin(), host.col_idx.end(), back.col_idx.begin()))
    return false;
  for (std::size_t k = 0; k < host.values.size(); ++k)
    if (back.values[k] != (type == ElementType::f64 ? host.values[k] : double(float(host.values[k])))) return false;
  return true;
}

int run(const po::variables_map& args) {
  const std::string precision = args["precision"].as<std::string>();
  if (precision != "double" && precision != "float")
    throw clcg::apps::UsageError("--precision must be double or float, got '" + precision + "'");
  const ElementType type = precision == "double" ? ElementType::f64 : ElementType::f32;
  const int repeat = static_cast<int>(clcg::apps::count_in_range(args, "repeat", 1, 1000));
  std::vector<std::size_t> chunks;
  for (const std::uint64_t mb : args["chunk-mb"].as<CountList>().values)
    chunks.push_back(std::size_t(clcg::apps::check_range("--chunk-mb sizes", mb, 1, 1024)) << 20);
  struct Problem {
    std::string name;
    int n;
    bool three_d;
  };
  std::vector<Problem> problems;
  for (const char* kind : {"poisson2d", "poisson3d"})
    for (const std::uint64_t n : args[kind].as<CountList>().values)
      problems.push_back({std::string(kind) + ":" + std::to_string(n),
                          int(clcg::apps::check_range(std::string("--") + kind + " sizes", n, 1, 4096)),
                          std::string(kind) == "poisson3d"});

  const clcg::cl::Env env = clcg::cl::Env::create(
      clcg::cl::DeviceSelector::parse(args["device"].as<std::string>(), args["platform"].as<std::string>()));
  if (type == ElementType::f64 && !env.info().fp64)
    throw clcg::apps::UsageError(env.info().name + " has no double precision: use --precision float");
  std::printf("# device %s (%s); %s values; best of %d runs; %u host threads\n", env.info().name.c_str(),
              env.info().platform_name.c_str(), precision.c_str(), repeat, std::thread::hardware_concurrency());
  std::printf("%-16s %10s %11s %9s  %-16s %8s %10s %8s\n", "matrix", "rows", "nnz", "MB", "path", "chunk_MB", "ms", "GB/s");
  bool all_same = true;
  for (const Problem& p : problems) {
    const clcg::solver::HostMatrix a = p.three_d ? clcg::solver::poisson_3d(p.n, p.n, p.n) : clcg::solver::poisson_2d(p.n, p.n);
    const CsrView view = clcg::solver::csr_view(a);
    const double bytes = double(clcg::solver::bytes_needed(std::uint64_t(view.rows), std::uint64_t(view.nnz()), type));
    auto line = [&](const char* path, std::size_t chunk, double seconds, bool moves_a = true) {
      char rate[32] = "-";
      if (moves_a) std::snprintf(rate, sizeof rate, "%.2f", bytes / seconds / 1e9);
      std::printf("%-16s %10d %11d %9.1f  %-16s %8s %10.2f %8s\n", p.name.c_str(), view.rows, view.nnz(), bytes / 1e6,
                  path, chunk ? std::to_string(chunk >> 20).c_str() : "-", seconds * 1e3, rate);
      std::fflush(stdout);
    };
    line("pageable", 0, best_of(repeat, [&] {
           pageable_upload(env, view, type);
           env.queue().finish();
         }));
    for (const std::size_t chunk : chunks) {
      line("staged fresh", chunk, best_of(repeat, [&] {
             clcg::cl::StagedUpload staging(env, chunk);
             const DeviceCsrMatrix device(env, view, type, &staging);
           }));
      clcg::cl::PinnedBuffer pinned;
      line("pinned alloc", chunk, best_of(repeat, [&] {
             pinned = clcg::cl::PinnedBuffer();
             pinned = clcg::cl::PinnedBuffer(env, 2 * chunk);
           }), false);
      line("fill only", chunk, best_of(repeat, [&] { fill_only(pinned.data(), chunk, device_sized_arrays(view, type)); }));
      std::vector<unsigned char> ordinary(2 * chunk, 1);
      line("fill ordinary", chunk, best_of(repeat, [&] { fill_only(ordinary.data(), chunk, device_sized_arrays(view, type)); }));
      line("dma only", chunk, best_of(repeat, [&] { dma_only(env, pinned, chunk, std::size_t(bytes)); }));
      clcg::cl::StagedUpload staging(env, chunk);
      std::optional<DeviceCsrMatrix> last;
      line("staged reused", chunk, best_of(repeat, [&] {
             last.reset();  // one matrix on the device at a time
             last.emplace(env, view, type, &staging);
           }));
      if (!same_on_device(env, *last, view, type)) {
        std::printf("%s: the device contents differ from the host's (chunk %zu MB)\n", p.name.c_str(), chunk >> 20);
        all_same = false;
      }
    }
  }
  return all_same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return clcg::apps::app_main(command_line(), argc, argv, run); }
