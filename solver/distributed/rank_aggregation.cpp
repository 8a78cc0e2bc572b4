// RankSetup's aggregation and tentative prolongator over the ranks (rank_setup.hpp).
#include "rank_setup_members.hpp"

#include <algorithm>
#include <cmath>

#include "clcg/cl/pinned_buffer.hpp"
#include "clcg/solver/distributed/device_halo.hpp"
#include "clcg/solver/distributed/launch.hpp"
#include "clcg/solver/multigrid/coarsening.hpp"

namespace clcg::distributed {

using namespace rank_setup_detail;

RankSetup::Aggregates RankSetup::aggregate(const Rows& g, double theta, const std::vector<std::int64_t>& bounds) {
  const std::size_t n = std::size_t(g.matrix.rows()), cols = n + std::size_t(g.halo.ghosts);
  const std::size_t nnz = std::size_t(g.matrix.nnz());
  const cl_uint first = cl_uint(g.row_begin);
  struct Buffers {
    ::cl::Buffer diag, most, strong, state, near, key, spread, undecided, ghost;
  };
  Buffers b = shared([&] {
    Buffers m;
    m.diag = doubles(env_, cols, "allocating the strength's diagonal");
    m.most = doubles(env_, cols, "allocating the strength's row maxima");
    m.strong = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, nnz), "allocating the strong connections");
    m.state = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, cols) * sizeof(cl_uint), "allocating the independent set");
    m.near = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n), "allocating the independent set's marks");
    kernels_->clear_bytes(m.near, n);
    m.key = doubles(env_, cols, "allocating the independent set's keys");  // (ulongs: the halo moves 8-byte words)
    m.spread = doubles(env_, cols, "allocating the independent set's keys");
    m.undecided = env_.buffer(CL_MEM_READ_WRITE, sizeof(cl_int), "allocating the independent set's count");
    const std::size_t ghosts = g.halo.ghost_ids.size();
    m.ghost = env_.buffer(CL_MEM_READ_ONLY, std::max<std::size_t>(1, ghosts) * sizeof(cl_uint), "allocating the ghosts' rows");
    write<std::uint32_t>(m.ghost, 0, ghosts, [&](std::size_t j) { return std::uint32_t(g.halo.ghost_ids[j]); });
    return m;
  });
  DeviceHalo halo = shared([&] { return DeviceHalo(comm_, env_, g.halo, std::int64_t(n), solver::ElementType::f64); });
  // (the states' halo moves 4-byte words: a float halo, which copies them as they are)
  DeviceHalo state_halo = shared([&] { return DeviceHalo(comm_, env_, g.halo, std::int64_t(n), solver::ElementType::f32); });
  const std::size_t ghosts = g.halo.ghost_ids.size();
  if (halo.sends() > 0)  // (the rows other ranks read: every round's spread computes them)
    kernels_->run(mark_sent_, "mark_sent", std::size_t(halo.sends()), halo.send_rows(), b.near);
  const auto run = [&](::cl::Kernel& kernel, const char* name, const auto&... args) {
    if (n > 0) kernels_->run(kernel, name, n, args...);
  };
  // (teams of work-items a row where rows are long: the coarse levels')
  const auto run_teams = [&](::cl::Kernel& kernel, const char* name, const auto&... args) {
    kernels_->run_teams(kernel, name, std::int64_t(n), std::int64_t(nnz), args...);
  };
  const solver::DeviceCsrMatrix& a = g.matrix;
  // Strength: the ghosts' diagonals and row maxima from their owners.
  run(row_diagonal_, "row_diagonal", a.row_ptr(), a.col_idx(), a.values(), cl_int(0), b.diag);
  halo.exchange(b.diag);
  run_teams(coupling_max_, "coupling_max_team", a.row_ptr(), a.col_idx(), a.values(), b.diag, b.most);
  halo.exchange(b.most);
  run_teams(strength_mask_, "strength_mask", a.row_ptr(), a.col_idx(), a.values(), b.diag, b.most,
      solver::Real{theta * theta}, b.strong);
  // The strong graph the rounds and joins read (kernels/distributed_setup.cl): A's rows where
  // none of this rank's entries is weak, else the strong entries alone. Either gives the same
  // set and aggregates; the second reads half of a 3D Poisson coarse level's entries a round.
  struct Graph {
    ::cl::Buffer row, col;
    std::int64_t entries;
  };
  const Graph graph = shared([&] {
    Graph whole{a.row_ptr(), a.col_idx(), std::int64_t(nnz)};
    if (n == 0) return whole;
    ::cl::Buffer row = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the strong graph's rows");
    kernels_->clear_ints(b.undecided, 1);  // (here: whether a row has a weak entry)
    run(strong_count_, "strong_count", a.row_ptr(), b.strong, row, b.undecided);
    cl_int weak = 0;
    read<cl_int>(b.undecided, 1, &weak);
    if (!weak) return whole;
    const std::int64_t entries = products_->exclusive_scan(row, n).total;
    ::cl::Buffer col = env_.buffer(CL_MEM_READ_WRITE, std::size_t(std::max<std::int64_t>(1, entries)) * sizeof(cl_int),
                                   "allocating the strong graph's columns");
    run_teams(strong_fill_, "strong_fill", a.row_ptr(), a.col_idx(), b.strong, row, col);
    return Graph{row, col, entries};
  });
  b.strong = {};
  // A round's passes: in teams while most rows take part; from round mis_marked_from (few rows
  // do) a work-item a row, since a team takes every row it skips through its barriers (the
  // spreads' device time at 640^3 on one rank 216 -> 162 ms).
  const auto team = [&](unsigned round) {
    return round >= solver::mis_marked_from ? 1 : solver::RowKernels::row_team(std::int64_t(n), graph.entries);
  };
  // The rounds, until no rank has an undecided row. A round's count of them is read behind its
  // settle without a wait of its own: the next round's states read for the halo come after it
  // in the queue, so it is in by then, and the ranks agree on it while the states travel (one
  // wait a round fewer; where the count says no row is left, that exchange is the last).
  const cl::PinnedBuffer count_here(env_, sizeof(cl_int));  // (a small pinned buffer: from the Env's pool)
  ::cl::Event counted;
  run(mis_begin_, "mis_begin", graph.row, graph.col, b.state);
  run(mis_keys_, "mis_keys", first, b.state, b.key);
  for (unsigned round = 1;; ++round) {
    state_halo.start(b.state);  // the ghosts' keys made from their states
    state_halo.post();
    if (round > 1) {
      cl::checked("reading the independent set's progress", [&] { counted.wait(); });
      int mine = *reinterpret_cast<const cl_int*>(count_here.data()) > 0, any_left = 0;
      MPI_Allreduce(&mine, &any_left, 1, MPI_INT, MPI_LOR, comm_);
      if (!any_left) {
        state_halo.finish(b.state);  // (the states as they end: only this rank's are read below)
        break;
      }
    }
    state_halo.finish(b.state);
    if (ghosts > 0) kernels_->run(ghost_keys_, "ghost_keys", ghosts, cl_uint(n), b.ghost, b.state, b.key);
    kernels_->run_with_team(mis_spread_, "mis_spread", std::int64_t(n), team(round), graph.row, graph.col, b.near,
                            cl_int(round), b.key, b.spread);
    halo.exchange(b.spread);
    kernels_->clear_ints(b.undecided, 1);
    kernels_->run_with_team(mis_settle_, "mis_settle", std::int64_t(n), team(round), first, graph.row, graph.col,
                            b.spread, cl_int(round), cl_int(round == solver::max_mis_rounds), b.state, b.key, b.near,
                            b.undecided);
    cl::checked("reading the independent set's progress", [&] {
      env_.queue().enqueueReadBuffer(b.undecided, CL_FALSE, 0, sizeof(cl_int), count_here.data(), nullptr, &counted);
    });
  }
  // The seeds, numbered in global row order: this rank's after those of the ranks before it;
  // the count before each bound read from the same scan.
  Aggregates out;
  ::cl::Buffer at = shared([&] {
    return env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the seeds' numbers");
  });
  const std::int64_t mine = shared([&] {
    run(seed_flags_, "seed_flags", b.state, at);
    return std::int64_t(products_->exclusive_scan(at, n).total);
  });
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_);
  out.coarse.offsets.assign(std::size_t(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) out.coarse.offsets[std::size_t(r) + 1] = out.coarse.offsets[std::size_t(r)] + counts[std::size_t(r)];
  const std::int64_t first_seed = out.coarse.offsets[std::size_t(comm_rank(comm_))];
  // Neighbours join the seed with the largest key, rows two steps away the neighbour's
  // aggregate with the largest key (the key and spread buffers hold the 64-bit aggregates now).
  out.seeds_before = shared([&] {
    check_fits(out.coarse.rows(), "aggregates");
    run(seed_numbers_, "seed_numbers", cl_long(first_seed), b.state, at, b.key);
    std::vector<std::int64_t> before(bounds.size(), 0);
    if (n > 0 && !bounds.empty()) {
      ::cl::Buffer where = env_.buffer(CL_MEM_READ_ONLY, bounds.size() * sizeof(std::int64_t), "allocating the chunks' bounds");
      ::cl::Buffer got = env_.buffer(CL_MEM_WRITE_ONLY, bounds.size() * sizeof(std::int64_t), "allocating the chunks' seeds");
      write_bytes(env_, where, 0, bounds.size() * sizeof(std::int64_t), bounds.data());
      kernels_->run(seeds_before_, "seeds_before", bounds.size(), where, at, got);
      read<std::int64_t>(got, bounds.size(), before.data());
    }
    return before;
  });
  halo.exchange(b.key);
  run(join_step_, "join_step", first, graph.row, graph.col, b.ghost, b.key, b.spread);
  halo.exchange(b.spread);
  run(join_step_, "join_step", first, graph.row, graph.col, b.ghost, b.spread, b.key);
  out.of_node = shared([&] {
    ::cl::Buffer of_node = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, n) * sizeof(cl_int), "allocating the aggregates");
    run(narrowed_ids_, "narrowed_ids", b.key, of_node);
    return of_node;
  });
  return out;
}

RankSetup::KeptRows RankSetup::tentative(const ::cl::Buffer& of_node, int block,
                                         const ::cl::Buffer& candidates, int k, const Partition& rows,
                                         const Partition& columns, ::cl::Buffer& coarse_candidates) {
  if (!candidates()) return constant_tentative(of_node, block, rows, columns, coarse_candidates);
  const int rank = comm_rank(comm_);
  const std::size_t n = std::size_t(rows.size(rank)), kk = std::size_t(k);
  // P_tent on this rank's rows, filled with B.
  KeptRows t = shared([&] {
    check_fits(columns.rows(), "coarse rows");
    ::cl::Buffer counts = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the tentative rows");
    if (n > 0) kernels_->run(tentative_count_, "tentative_count", n, cl_uint(block), cl_uint(k), of_node, counts);
    solver::DeviceCsrMatrix filled = products_->allocate(counts, std::int32_t(n), std::int32_t(columns.rows()));
    if (n > 0)
      kernels_->run(tentative_fill_, "tentative_fill", n, cl_uint(block), cl_uint(k), of_node, candidates, filled.row_ptr(),
                    filled.col_idx(), filled.values());
    KeptRows out;
    out.global_rows = rows.rows();
    out.row_begin = rows.begin(rank);
    out.matrix = std::move(filled);
    return out;
  });
  // Each aggregate's block on its seed's rank, factored there.
  const Rows by_aggregate = transpose(t, rows, columns);
  const std::size_t aggregates = std::size_t(columns.size(rank)) / kk;
  const OutgoingEntries ghosts = shared([&] {
    const solver::DeviceCsrMatrix& q = by_aggregate.matrix;
    coarse_candidates = doubles(env_, aggregates * kk * kk, "allocating the next level's candidates");
    if (aggregates > 0) {
      kernels_->run(tentative_qr_, "tentative_qr", aggregates, cl_uint(k),
                    solver::Real{solver::dependent_candidate(solver::ElementType::f64)}, q.row_ptr(), q.values(),
                    coarse_candidates);
      kernels_->run(scatter_own_, "scatter_own", std::size_t(q.rows()), cl_uint(k), cl_int(n), q.row_ptr(), q.col_idx(),
                    q.values(), t.matrix.row_ptr(), t.matrix.values());
    }
    return outside(q, long_offsets(q), 0, std::int64_t(n));  // Q's entries in other ranks' rows
  });
  // Q's entries in other ranks' rows go back to them: (row, entry j of it) and the value.
  const int ranks = rows.ranks();
  std::vector<int> counts(std::size_t(ranks), 0);
  const auto ghost_row = [&](std::size_t e) { return by_aggregate.halo.ghost_ids[std::size_t(ghosts.cols[e]) - n]; };
  for (std::size_t e = 0; e < ghosts.values.size(); ++e) ++counts[std::size_t(rows.owner(ghost_row(e)))];
  std::vector<int> at = offsets_of(counts);
  solver::BulkVector<std::int64_t> where(ghosts.values.size());
  solver::BulkVector<double> values(ghosts.values.size());
  for (std::size_t e = 0; e < ghosts.values.size(); ++e) {
    const std::size_t slot = std::size_t(at[std::size_t(rows.owner(ghost_row(e)))]++);
    where[slot] = ghost_row(e) * std::int64_t(k) + ghosts.rows[e] % k;
    values[slot] = ghosts.values[e];
  }
  const solver::BulkVector<std::int64_t> got_where = all_to_all(comm_, where, counts);
  const solver::BulkVector<double> got_values = all_to_all(comm_, values, counts);
  std::vector<std::int64_t> row(got_values.size()), j(got_values.size());
  for (std::size_t e = 0; e < got_values.size(); ++e)
    row[e] = got_where[e] / k - t.row_begin, j[e] = got_where[e] % k;
  set_entries(t, row, j, got_values.data());
  return t;
}

void RankSetup::set_entries(KeptRows& t, const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& j,
                            const double* values) {
  shared([&] {
    const std::size_t got = row.size();
    if (got == 0) return 0;
    std::vector<std::int64_t> lengths;  // (each entry's place in t's values: its row's start, then j)
    std::vector<std::int64_t> entry = row_starts(t.matrix, row, lengths);
    for (std::size_t e = 0; e < got; ++e) entry[e] += j[e];
    ::cl::Buffer place = env_.buffer(CL_MEM_READ_ONLY, got * sizeof(std::int64_t), "allocating P_tent's entries");
    write_bytes(env_, place, 0, got * sizeof(std::int64_t), entry.data());
    ::cl::Buffer value = doubles(env_, got, "allocating P_tent's entries");
    write_bytes(env_, value, 0, got * sizeof(double), values);
    kernels_->run(scatter_values_, "scatter_values", got, place, value, t.matrix.values());
    return 0;
  });
}

RankSetup::KeptRows RankSetup::constant_tentative(const ::cl::Buffer& of_node, int k, const Partition& rows,
                                                  const Partition& columns, ::cl::Buffer& coarse_candidates) {
  const int rank = comm_rank(comm_), ranks = rows.ranks();
  const std::size_t n = std::size_t(rows.size(rank)), kk = std::size_t(k), nodes = n / kk;
  const std::int64_t first = columns.begin(rank) / k;  // this rank's first aggregate
  const std::size_t aggregates = std::size_t(columns.size(rank)) / kk;
  struct Sizes {
    KeptRows t;
    ::cl::Buffer sizes;  // this rank's aggregates' nodes
  };
  // P_tent's pattern, and the nodes of this rank's aggregates counted here.
  Sizes d = shared([&] {
    check_fits(columns.rows(), "coarse rows");
    Sizes m;
    ::cl::Buffer counts = env_.buffer(CL_MEM_READ_WRITE, (n + 1) * sizeof(cl_int), "allocating the tentative rows");
    if (n > 0) kernels_->run(tentative_count_, "tentative_count", n, cl_uint(k), cl_uint(k), of_node, counts);
    m.t.matrix = products_->allocate(counts, std::int32_t(n), std::int32_t(columns.rows()));
    m.t.global_rows = rows.rows();
    m.t.row_begin = rows.begin(rank);
    if (n > 0)
      kernels_->run(constant_columns_, "constant_columns", n, cl_uint(k), of_node, m.t.matrix.row_ptr(),
                    m.t.matrix.col_idx(), m.t.matrix.values());
    m.sizes = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, aggregates) * sizeof(cl_int),
                          "allocating the aggregates' sizes");
    kernels_->clear_ints(m.sizes, std::max<std::size_t>(1, aggregates));
    if (nodes > 0)
      kernels_->run(own_sizes_, "own_sizes", nodes, cl_int(first), cl_int(aggregates), of_node, m.sizes);
    return m;
  });
  KeptRows& t = d.t;
  // The rows here in other ranks' aggregates (sorted by aggregate, so by owner): each aggregate's
  // nodes here to its owner, who adds them and answers the sizes.
  const OutgoingEntries foreign = shared([&] {
    return outside(t.matrix, long_offsets(t.matrix), first * k, (first + std::int64_t(aggregates)) * k);
  });
  std::vector<std::int64_t> asked, nodes_here;  // the aggregates, their nodes here
  {
    std::vector<std::int64_t> of_entry(foreign.cols.size());
    for (std::size_t e = 0; e < of_entry.size(); ++e) of_entry[e] = foreign.cols[e] / k;
    std::sort(of_entry.begin(), of_entry.end());
    for (std::size_t e = 0; e < of_entry.size(); ++e) {
      if (e == 0 || of_entry[e] != of_entry[e - 1]) asked.push_back(of_entry[e]), nodes_here.push_back(0);
      ++nodes_here.back();
    }
    for (std::int64_t& c : nodes_here) c /= std::int64_t(kk * kk);  // (a node: k rows of k entries)
  }
  std::vector<int> ask_counts(std::size_t(ranks), 0), asked_counts;
  for (std::int64_t g : asked) ++ask_counts[std::size_t(columns.owner(g * k))];
  const std::vector<std::int64_t> got = all_to_all(comm_, asked, ask_counts, &asked_counts);
  const std::vector<std::int64_t> got_nodes = all_to_all(comm_, nodes_here, ask_counts);
  std::vector<std::int64_t> answers = shared([&] {
    std::vector<std::int64_t> sizes(got.size());
    if (got.empty()) return sizes;
    std::vector<std::int32_t> at(got.size()), add(got.size());
    for (std::size_t e = 0; e < got.size(); ++e) at[e] = std::int32_t(got[e] - first), add[e] = std::int32_t(got_nodes[e]);
    ::cl::Buffer where = env_.buffer(CL_MEM_READ_ONLY, got.size() * sizeof(cl_int), "allocating the aggregates' sizes");
    ::cl::Buffer value = env_.buffer(CL_MEM_READ_WRITE, got.size() * sizeof(cl_int), "allocating the aggregates' sizes");
    write_bytes(env_, where, 0, got.size() * sizeof(cl_int), at.data());
    write_bytes(env_, value, 0, got.size() * sizeof(cl_int), add.data());
    kernels_->run(add_sizes_, "add_sizes", got.size(), where, value, d.sizes);
    kernels_->run(sizes_at_, "sizes_at", got.size(), where, d.sizes, value);
    read<std::int32_t>(value, got.size(), add.data());
    for (std::size_t e = 0; e < got.size(); ++e) sizes[e] = add[e];
    return sizes;
  });
  const std::vector<std::int64_t> sizes = all_to_all(comm_, answers, asked_counts);  // (in `asked`'s order)
  // Q on the rows in this rank's aggregates, R of them; the host's on the others (the same
  // operations: correctly rounded in double on both).
  shared([&] {
    if (n > 0)
      kernels_->run(constant_values_, "constant_values", n, cl_uint(k), cl_int(first), cl_int(aggregates), of_node,
                    d.sizes, t.matrix.row_ptr(), t.matrix.values());
    coarse_candidates = doubles(env_, aggregates * kk * kk, "allocating the next level's candidates");
    if (aggregates > 0)
      kernels_->run(constant_r_, "constant_r", aggregates, cl_uint(k), d.sizes, coarse_candidates);
    return 0;
  });
  // (each row's entry of its own component: constant_columns left the others 0)
  std::vector<std::int64_t> row, j;
  std::vector<double> values;
  for (std::size_t e = 0; e < foreign.cols.size(); ++e) {
    if (foreign.rows[e] % k != foreign.cols[e] % k) continue;
    const std::int64_t g = foreign.cols[e] / k;
    const std::size_t at = std::size_t(std::lower_bound(asked.begin(), asked.end(), g) - asked.begin());
    row.push_back(foreign.rows[e]);
    j.push_back(foreign.cols[e] % k);
    values.push_back(1.0 / std::sqrt(double(sizes[at])));
  }
  set_entries(t, row, j, values.data());
  return t;
}
::cl::Buffer RankSetup::uploaded(std::span<const double> values) {
  return shared([&] {
    ::cl::Buffer out = doubles(env_, values.size(), "allocating the candidates");
    write_bytes(env_, out, 0, values.size() * sizeof(double), values.data());
    return out;
  });
}

std::vector<double> RankSetup::downloaded(const ::cl::Buffer& values, std::size_t count) {
  return shared([&] {
    std::vector<double> out(count);
    read<double>(values, count, out.data());
    return out;
  });
}

void RankSetup::hold_on_host(Aggregates& g, std::size_t nodes) {
  if (g.held) return;
  g.of_node_held = shared([&] {
    solver::BulkVector<std::int32_t> out(nodes);  // (unset: the read's threads touch its pages first)
    read<std::int32_t>(g.of_node, nodes, out.data());
    return out;
  });
  g.of_node = {};
  g.held = true;
}

void RankSetup::back_on_device(Aggregates& g) {
  if (!g.held) return;
  g.of_node = shared([&] {
    ::cl::Buffer out = env_.buffer(CL_MEM_READ_WRITE, std::max<std::size_t>(1, g.of_node_held.size()) * sizeof(cl_int),
                                   "allocating the kept aggregates");
    write_bytes(env_, out, 0, g.of_node_held.size() * sizeof(std::int32_t), g.of_node_held.data());
    return out;
  });
  solver::BulkVector<std::int32_t>().swap(g.of_node_held);
  g.held = false;
}

}  // namespace clcg::distributed
