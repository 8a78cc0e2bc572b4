/* AmgX across GPUs under mpirun (one rank a GPU): the peer of clcg's distributed AMG.
 *   mpirun -np R amgx_mpi_bench CONFIG_DIR NX NY NZ [--reps 3] [--json FILE]
 * The 7-point 3D Laplacian on NX x NY x NZ (clcg's poisson3d: x fastest), rows split into
 * contiguous blocks (rank r: rows r*N/R ..), each rank building its own rows with global 64-bit
 * columns and uploading them (AMGX_matrix_upload_distributed, partition by offsets). b = A*1,
 * x0 = 0, relative tolerance 1e-8, PCG with aggregation AMG (AmgX's PCG_AGGREGATION_JACOBI with
 * 2/2 sweeps, as the one-GPU peer). Upload, set-up and solve: wall time between barriers, median
 * of --reps after one warm-up. Reports AmgX's last residual over ||b|| and max |x - 1|.
 * Built and run by scripts/peers/run_amgx_mpi.sh, against AmgX sources kept outside the repository. */
#include <amgx_c.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call) do { AMGX_RC rc_ = (call); if (rc_ != AMGX_RC_OK) { char m_[4096]; AMGX_get_error_string(rc_, m_, sizeof m_); \
  fprintf(stderr, "rank %d: %s: %s\n", rank, #call, m_); MPI_Abort(MPI_COMM_WORLD, 3); } } while (0)

static int rank = 0;
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static void noprint(const char *msg, int length) { (void)msg; (void)length; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc < 5) {
    if (rank == 0) fprintf(stderr, "usage: amgx_mpi_bench CONFIG_DIR NX NY NZ [--reps 3] [--json FILE]\n");
    MPI_Finalize();
    return 2;
  }
  const char *cfgdir = argv[1], *json = NULL;
  const int64_t nx = atol(argv[2]), ny = atol(argv[3]), nz = atol(argv[4]);
  int reps = 3;
  for (int i = 5; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--json")) json = argv[i + 1];
  }
  if (reps < 1 || reps > 50) reps = 3;
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);

  const int64_t n_global = nx * ny * nz, plane = nx * ny;
  int64_t *offsets = malloc((size_t)(ranks + 1) * sizeof(int64_t));
  for (int r = 0; r <= ranks; ++r) offsets[r] = n_global * r / ranks;
  const int64_t begin = offsets[rank], end = offsets[rank + 1], n = end - begin;
  int *ptr = malloc((size_t)(n + 1) * sizeof(int));
  int64_t *col = malloc((size_t)n * 7 * sizeof(int64_t));
  double *val = malloc((size_t)n * 7 * sizeof(double)), *b = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *x = malloc((size_t)(n ? n : 1) * sizeof(double));
  int64_t k = 0;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t xi = row % nx, yi = (row / nx) % ny, zi = row / plane;
    ptr[row - begin] = (int)k;
    double sum = 0;
#define PUT(c, v) do { col[k] = (c); val[k] = (v); sum += (v); ++k; } while (0)
    if (zi > 0) PUT(row - plane, -1.0);
    if (yi > 0) PUT(row - nx, -1.0);
    if (xi > 0) PUT(row - 1, -1.0);
    PUT(row, 6.0);
    if (xi + 1 < nx) PUT(row + 1, -1.0);
    if (yi + 1 < ny) PUT(row + nx, -1.0);
    if (zi + 1 < nz) PUT(row + plane, -1.0);
    b[row - begin] = sum;
  }
  ptr[n] = (int)k;
  double nb2 = 0, nb = 0;
  for (int64_t i = 0; i < n; ++i) nb2 += b[i] * b[i];
  MPI_Allreduce(&nb2, &nb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  nb = sqrt(nb);

  AMGX_SAFE_CALL(AMGX_initialize());
  AMGX_register_print_callback(noprint);
  char path[1024], opts[1024];
  snprintf(path, sizeof path, "%s/PCG_AGGREGATION_JACOBI.json", cfgdir);
  snprintf(opts, sizeof opts, "config_version=2, main:tolerance=1e-8, main:max_iters=500, main:convergence=RELATIVE_INI_CORE, "
           "main:monitor_residual=1, main:store_res_history=1, main:print_solve_stats=0, main:obtain_timings=0, "
           "amg:presweeps=2, amg:postsweeps=2");
  AMGX_config_handle cfg;
  AMGX_resources_handle rsc;
  AMGX_matrix_handle M;
  AMGX_vector_handle vb, vx;
  AMGX_solver_handle S;
  AMGX_distribution_handle dist;
  MPI_Comm comm = MPI_COMM_WORLD;
  CHECK(AMGX_config_create_from_file_and_string(&cfg, path, opts));
  CHECK(AMGX_resources_create(&rsc, cfg, &comm, 1, &local));
  CHECK(AMGX_matrix_create(&M, rsc, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&vb, rsc, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&vx, rsc, AMGX_mode_dDDI));
  CHECK(AMGX_solver_create(&S, rsc, AMGX_mode_dDDI, cfg));
  CHECK(AMGX_distribution_create(&dist, cfg));
  CHECK(AMGX_distribution_set_partition_data(dist, AMGX_DIST_PARTITION_OFFSETS, offsets));
  double *tu = malloc((size_t)(reps + 1) * sizeof(double)), *ts = malloc((size_t)(reps + 1) * sizeof(double));
  double *tv = malloc((size_t)(reps + 1) * sizeof(double));
  int iters = 0;
  AMGX_SOLVE_STATUS st = AMGX_SOLVE_FAILED;
  for (int rep = 0; rep <= reps; ++rep) { /* rep 0: warm-up */
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    CHECK(AMGX_matrix_upload_distributed(M, (int)n_global, (int)n, (int)k, 1, 1, ptr, col, val, NULL, dist));
    CHECK(AMGX_vector_bind(vb, M));
    CHECK(AMGX_vector_bind(vx, M));
    CHECK(AMGX_vector_upload(vb, (int)n, 1, b));
    CHECK(AMGX_vector_set_zero(vx, (int)n, 1));
    MPI_Barrier(comm);
    double t1 = MPI_Wtime();
    CHECK(AMGX_solver_setup(S, M));
    MPI_Barrier(comm);
    double t2 = MPI_Wtime();
    CHECK(AMGX_solver_solve_with_0_initial_guess(S, vb, vx));
    MPI_Barrier(comm);
    double t3 = MPI_Wtime();
    tu[rep] = t1 - t0, ts[rep] = t2 - t1, tv[rep] = t3 - t2;
    CHECK(AMGX_solver_get_iterations_number(S, &iters));
    CHECK(AMGX_solver_get_status(S, &st));
  }
  double last = 0;
  if (iters > 0) CHECK(AMGX_solver_get_iteration_residual(S, iters - 1, 0, &last));
  CHECK(AMGX_vector_download(vx, x));
  double err = 0, max_err = 0;
  for (int64_t i = 0; i < n; ++i) err = fmax(err, fabs(x[i] - 1.0));
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, comm);
  qsort(tu + 1, (size_t)reps, sizeof(double), cmpd);
  qsort(ts + 1, (size_t)reps, sizeof(double), cmpd);
  qsort(tv + 1, (size_t)reps, sizeof(double), cmpd);
  const double u = tu[1 + reps / 2], s = ts[1 + reps / 2], v = tv[1 + reps / 2];
  if (rank == 0) {
    printf("amgx aggregation PCG %lldx%lldx%lld on %d ranks: upload %.3f s, setup %.3f s, solve %.3f s, setup+solve %.3f s, "
           "iters %d, status %d, residual/||b|| %.2e, max|x-1| %.2e (median of %d)\n", (long long)nx, (long long)ny,
           (long long)nz, ranks, u, s, v, s + v, iters, (int)st, last / nb, max_err, reps);
    fflush(stdout);
    FILE *out = json ? fopen(json, "a") : NULL;
    if (out) {
      fprintf(out, "{\"peer\":\"amgx aggregation PCG\",\"grid\":\"%lldx%lldx%lld\",\"ranks\":%d,\"upload_s\":%.4f,\"setup_s\":%.4f,"
              "\"solve_s\":%.4f,\"iters\":%d,\"status\":%d,\"relres\":%.3e,\"max_error\":%.3e,\"reps\":%d}\n",
              (long long)nx, (long long)ny, (long long)nz, ranks, u, s, v, iters, (int)st, last / nb, max_err, reps);
      fclose(out);
    }
  }
  AMGX_distribution_destroy(dist);
  AMGX_solver_destroy(S);
  AMGX_vector_destroy(vx);
  AMGX_vector_destroy(vb);
  AMGX_matrix_destroy(M);
  AMGX_resources_destroy(rsc);
  AMGX_config_destroy(cfg);
  AMGX_finalize();
  MPI_Finalize();
  return 0;
}
