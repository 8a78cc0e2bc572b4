#!/usr/bin/env bash
# AmgX across GPUs (an MPI build of NVIDIA/AMGX, aggregation PCG) on the GPU machine, the peer
# of clcg's distributed AMG (docs/PERFORMANCE.md, "Four GPUs"). From the checkout's root there,
# with PEERS (default peers-src, an ignored folder) holding amgx/ (the NVIDIA/AMGX sources, e.g.
# `git archive HEAD`) and, where the machine has no mpicc, mpi-include/ (Open MPI's headers):
#     bash scripts/peers/run_amgx_mpi.sh build                  # libamgxsh with MPI into /tmp (~5 min, 64 cores)
#     bash scripts/peers/run_amgx_mpi.sh run 4 512 512 512      # ranks, grid; appends to $OUT/amgx_mpi.jsonl
# The build lives in /tmp on that machine: run in the same call, or the next one straight after.
# A build left running between calls needs PEERS outside the checkout (e.g. a copy in /tmp/peers):
# each call lays the checkout anew under the compiler (call 146's first try). CUDA 13 has no
# cusparse?bsrxmv (block sizes above 1): before building there, cut those calls from the copy, e.g.
#     sed -i -E 's/^(\s*)cusparseCheckError\(cusparse[SDCZ]bsrxmv\(.*\);\s*$/\1FatalError("no bsrxmv", AMGX_ERR_NOT_IMPLEMENTED);/' \
#         "$PEERS/amgx/src/amgx_cusparse.cu"
set -u
P=$(realpath "${PEERS:-peers-src}") O=${OUT:-peers-out} B=${AMGX_BUILD:-/tmp/amgxmpi}
HERE=$(dirname "$(realpath "$0")")
mkdir -p "$O"
case ${1:-} in
  build)
    hints=()
    command -v mpicc > /dev/null || hints=(-DMPI_C_HEADER_DIR="$P/mpi-include" -DMPI_CXX_HEADER_DIR="$P/mpi-include"
      -DMPI_C_LIB_NAMES=mpi -DMPI_CXX_LIB_NAMES=mpi -DMPI_mpi_LIBRARY=/usr/lib/x86_64-linux-gnu/libmpi.so.40)
    [ -f "$B/CMakeCache.txt" ] || cmake -S "$P/amgx" -B "$B" -DCUDA_ARCH=90 -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_BUILD_TYPE=Release "${hints[@]}" > "$O/amgx-mpi-configure.log" 2>&1 || { tail -20 "$O/amgx-mpi-configure.log"; exit 1; }
    grep -q "This is a MPI build:TRUE" "$O/amgx-mpi-configure.log" || { echo "AmgX configured without MPI"; exit 1; }
    timeout "${BUILD_S:-560}" cmake --build "$B" --target amgxsh -j"$(nproc)" > "$O/amgx-mpi-build.log" 2>&1 || { tail -5 "$O/amgx-mpi-build.log"; exit 1; }
    cc=(mpicc) mpi=()
    command -v mpicc > /dev/null || cc=(gcc -I"$P/mpi-include") mpi=(/usr/lib/x86_64-linux-gnu/libmpi.so.40)
    "${cc[@]}" -std=c11 -O2 -I"$P/amgx/include" "$HERE/amgx_mpi_bench.c" -L"$B" -lamgxsh -Wl,-rpath,"$B" "${mpi[@]}" -lm \
      -o "$B/amgx_mpi_bench"
    ;;
  run)
    [ $# -eq 5 ] || { echo "usage: $0 run RANKS NX NY NZ"; exit 2; }
    mpirun --bind-to none -np "$2" "$B/amgx_mpi_bench" "$P/amgx/src/configs" "$3" "$4" "$5" --reps "${REPS:-2}" \
      --json "$O/amgx_mpi.jsonl"
    ;;
  *) echo "usage: $0 build | run RANKS NX NY NZ"; exit 2 ;;
esac
