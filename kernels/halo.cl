// The halo's pack (solver/distributed/device_halo.hpp): the owned values other ranks need,
// gathered into one buffer to read back and send.
__kernel void pack(uint count, __global const uint* index, __global const REAL* x, __global REAL* out) {
  CLCG_FOR_EACH(uint, i, count) out[i] = x[index[i]];
}
