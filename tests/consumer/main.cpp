// Uses the installed clcg::reduction on a context and buffer of its own.
#include <cstdio>
#include <exception>

#include "clcg/cl/env.hpp"

int main() {
  try {
    const clcg::cl::Env env = clcg::cl::Env::create();
    std::printf("consumer: device %s, fp64 %s\n", env.info().name.c_str(), env.info().fp64 ? "yes" : "no");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
