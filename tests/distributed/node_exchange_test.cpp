// exchange() (node_exchange.hpp) under mpirun (1 to 4 ranks, in the hierarchy test's executable
// and main): through a NodeExchange's window and through MPI it gives MPI_Alltoallv's result, as
// the window grows, shrinks back to smaller exchanges and is taken over by a nested one.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "clcg/solver/distributed/node_exchange.hpp"
#include "clcg/solver/distributed/remote_rows.hpp"

namespace {

namespace dist = clcg::distributed;

struct Parts {
  std::vector<int> send_counts, recv_counts;
  std::vector<double> values;  // sent, grouped by rank
};

// Random parts of up to `most` doubles for each rank (some empty, rank r's to itself among
// them), with the receive counts MPI_Alltoall gives.
Parts random_parts(unsigned seed, int most) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::mt19937_64 rng(seed + 1000 * unsigned(rank));
  Parts p;
  p.send_counts.resize(std::size_t(ranks));
  for (int r = 0; r < ranks; ++r) p.send_counts[std::size_t(r)] = (rank + r + int(seed)) % 3 == 0 ? 0 : int(rng() % unsigned(most + 1));
  p.recv_counts.resize(std::size_t(ranks));
  MPI_Alltoall(p.send_counts.data(), 1, MPI_INT, p.recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::int64_t sends = 0;
  for (int c : p.send_counts) sends += c;
  p.values.resize(std::size_t(sends));
  for (double& v : p.values) v = double(std::int64_t(rng() % 100000000)) / 7.0 - 1e6;
  return p;
}

std::vector<double> by_alltoallv(const Parts& p) {
  std::int64_t receives = 0;
  for (int c : p.recv_counts) receives += c;
  std::vector<double> out(static_cast<std::size_t>(receives));
  MPI_Alltoallv(p.values.data(), p.send_counts.data(), dist::offsets_of(p.send_counts).data(), MPI_DOUBLE,
                out.data(), p.recv_counts.data(), dist::offsets_of(p.recv_counts).data(), MPI_DOUBLE, MPI_COMM_WORLD);
  return out;
}

std::vector<double> by_exchange(const Parts& p) {
  std::vector<double> out(by_alltoallv(p).size(), -3.0);
  dist::exchange(MPI_COMM_WORLD, p.values.data(), p.send_counts, out.data(), p.recv_counts, sizeof(double), MPI_DOUBLE);
  return out;
}

// Sets shared_exchange_from() for a scope (every rank alike).
struct ExchangeFrom {
  explicit ExchangeFrom(std::int64_t bytes) : before(dist::shared_exchange_from()) { dist::set_shared_exchange_from(bytes); }
  ~ExchangeFrom() { dist::set_shared_exchange_from(before); }
  std::int64_t before;
};

TEST(NodeExchange, WindowAndMpiEqualAlltoallv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Parts small = random_parts(1, 3000), large = random_parts(2, 40000), medium = random_parts(3, 9000);
  {
    const ExchangeFrom mpi_only(std::int64_t(1) << 62);
    dist::NodeExchange node(MPI_COMM_WORLD);
    EXPECT_EQ(by_exchange(large), by_alltoallv(large)) << "rank " << rank << ": MPI past the threshold";
  }
  EXPECT_EQ(by_exchange(small), by_alltoallv(small)) << "rank " << rank << ": no NodeExchange alive";
  const ExchangeFrom window(0);
  dist::NodeExchange node(MPI_COMM_WORLD);
  const Parts none = random_parts(4, 0);  // nothing from any rank, before the window is made
  EXPECT_EQ(by_exchange(none), by_alltoallv(none)) << "rank " << rank << ": nothing sent";
  std::vector<double> nothing;
  node.exchange(nullptr, std::vector<std::int64_t>(none.send_counts.size(), 0), nothing.data(),
                std::vector<std::int64_t>(none.send_counts.size(), 0));
  // The window made for the small parts, grown for the large, reused for the medium.
  for (const Parts* p : {&small, &large, &medium, &small})
    EXPECT_EQ(by_exchange(*p), by_alltoallv(*p)) << "rank " << rank << ": " << p->values.size() << " sent";
  {
    dist::NodeExchange nested(MPI_COMM_WORLD);  // takes over while it lives
    EXPECT_EQ(by_exchange(medium), by_alltoallv(medium)) << "rank " << rank << ": nested";
  }
  EXPECT_EQ(by_exchange(large), by_alltoallv(large)) << "rank " << rank << ": after the nested one";
  // all_to_all's 32- and 64-bit ids through it.
  std::vector<int> from;
  const std::vector<std::int64_t> ids(large.values.size(), (std::int64_t(rank) << 40) + 5);
  const std::vector<std::int64_t> got = dist::all_to_all(MPI_COMM_WORLD, ids, large.send_counts, &from);
  EXPECT_EQ(from, large.recv_counts);
  const std::vector<std::int32_t> small_ids(large.values.size(), rank + 7);
  const std::vector<std::int32_t> got32 = dist::all_to_all(MPI_COMM_WORLD, small_ids, large.send_counts);
  ASSERT_EQ(got.size(), got32.size());
  for (std::size_t r = 0, at = 0; r < from.size(); ++r)
    for (int q = 0; q < from[r]; ++q, ++at) {
      ASSERT_EQ(got[at], (std::int64_t(r) << 40) + 5) << "rank " << rank << " from " << r;
      ASSERT_EQ(got32[at], std::int32_t(r) + 7) << "rank " << rank << " from " << r;
    }
}

}  // namespace
