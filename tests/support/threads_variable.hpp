#pragma once
// CLCG_THREADS (the host's thread count, host_threads.hpp) set for one scope of a test, and
// restored after it.
#include <cstdlib>
#include <string>

namespace clcg::test {

class ThreadsVariable {
 public:
  explicit ThreadsVariable(const char* value) {
    if (const char* old = std::getenv("CLCG_THREADS")) old_ = old;
    ::setenv("CLCG_THREADS", value, 1);
  }
  ~ThreadsVariable() {
    if (old_.empty()) ::unsetenv("CLCG_THREADS");
    else ::setenv("CLCG_THREADS", old_.c_str(), 1);
  }
  ThreadsVariable(const ThreadsVariable&) = delete;
  ThreadsVariable& operator=(const ThreadsVariable&) = delete;

 private:
  std::string old_;
};

}  // namespace clcg::test
