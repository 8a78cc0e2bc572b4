// An embedder outside clcg's tree: its own context, queue and buffer, reduced with the
// installed clcg::reduction. Exits non-zero when the device's answer is wrong.
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "clcg/cl/env.hpp"
#include "clcg/reduction/reduce.hpp"

int main() {
  try {
    const clcg::cl::Env found = clcg::cl::Env::create();
    // The embedder's own objects, handed to clcg.
    cl::Context context(found.device());
    cl::CommandQueue queue(context, found.device());
    const clcg::cl::Env env(context, found.device(), queue);
    std::vector<float> values(100003);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
    cl::Buffer buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size() * sizeof(float), values.data());
    double expected = 0;
    for (std::size_t i = 10; i < values.size(); ++i) expected += values[i];
    using clcg::reduction::ElementType;
    using clcg::reduction::Op;
    const double sum = clcg::reduction::reduce(env, Op::sum, ElementType::f32, buffer, 10, values.size() - 10).value;
    const auto argmax = clcg::reduction::reduce(env, Op::argmax, ElementType::f32, buffer, 0, values.size());
    std::printf("consumer: %s: sum %.1f (expected %.1f), argmax %llu\n", env.info().name.c_str(), sum, expected,
                static_cast<unsigned long long>(argmax.index));
    return (std::abs(sum - expected) < 0.5 && argmax.index == 6) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
