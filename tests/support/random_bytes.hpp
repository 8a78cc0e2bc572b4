#pragma once
// Bytes from a fixed seed, for tests that move raw bytes (the staged upload and download).
#include <cstddef>
#include <random>
#include <vector>

namespace clcg::test {

inline std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> bytes(n);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  return bytes;
}

}  // namespace clcg::test
