#include "clcg/solver/io/host_threads.hpp"

#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

#include "clcg/solver/io/input_error.hpp"

namespace clcg::solver {

unsigned host_threads() {
    constexpr unsigned most = 1024;
    if (const char* text = std::getenv("CLCG_THREADS"); text != nullptr && *text != '\0') {
        char* end = nullptr;
        const unsigned long value = std::strtoul(text, &end, 10);
        if (*end != '\0' || value < 1 || value > most || text[0] == '-' || text[0] == '+')
            throw InputError("CLCG_THREADS", 0,
                             "'" + std::string(text) + "' is not a thread count (a whole number from 1 to " +
                                 std::to_string(most) + ")");
        return static_cast<unsigned>(value);
    }
    return std::max(1U, std::thread::hardware_concurrency());
}

namespace {

// Threads that wait for parallel_ranges' work, started as a call first needs them, never
// stopped (the process's exit ends them). One call uses them at a time; a call made meanwhile,
// or in a child forked after they started (which has none of them), starts threads of its own.
class Pool {
 public:
    bool run(unsigned threads, const std::function<void(unsigned)>& job) {
        if (inside_ || getpid() != process_) return false;
        std::unique_lock<std::mutex> own(taken_, std::try_to_lock);
        if (!own) return false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            while (threads_.size() + 1 < threads) {
                const unsigned id = unsigned(threads_.size()) + 1;
                threads_.emplace_back([this, id] { work(id); });
            }
            job_ = &job;
            taking_part_ = threads;
            running_ = threads - 1;
            ++round_;
        }
        wake_.notify_all();
        job(0);
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [&] { return running_ == 0; });
        return true;
    }

 private:
    void work(unsigned id) {
        inside_ = true;
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            wake_.wait(lock, [&] { return round_ != seen && id < taking_part_; });
            seen = round_;
            const std::function<void(unsigned)>* job = job_;
            lock.unlock();
            (*job)(id);
            lock.lock();
            if (--running_ == 0) finished_.notify_one();
        }
    }

    static thread_local bool inside_;
    const pid_t process_ = getpid();
    std::mutex taken_;  // held by the call using the threads
    std::mutex mutex_;  // guards what follows
    std::condition_variable wake_, finished_;
    std::vector<std::thread> threads_;
    const std::function<void(unsigned)>* job_ = nullptr;
    unsigned taking_part_ = 0, running_ = 0;
    std::uint64_t round_ = 0;
};

thread_local bool Pool::inside_ = false;

}  // namespace

bool run_on_thread_pool(unsigned threads, const std::function<void(unsigned)>& run) {
    static Pool* const pool = new Pool;  // never destroyed: its threads may still wait at exit
    return pool->run(threads, run);
}

unsigned threads_for(std::size_t work, std::size_t grain, unsigned requested) {
    const unsigned threads = requested == 0 ? host_threads() : requested;
    const std::size_t useful = std::max<std::size_t>(1, work / std::max<std::size_t>(1, grain));
    return static_cast<unsigned>(std::min<std::size_t>(threads, useful));
}

}  // namespace clcg::solver
