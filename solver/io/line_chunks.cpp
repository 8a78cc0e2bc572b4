#include "line_chunks.hpp"

#include "clcg/solver/io/host_threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace clcg::solver::mm {
namespace {

struct Chunk {
    std::unique_ptr<char[]> bytes;
    std::size_t capacity = 0;
    std::size_t size = 0;
    std::size_t index = 0;

    // Room for `more` bytes after size, keeping what is there.
    void reserve_more(std::size_t more) {
        if (size + more <= capacity) return;
        const std::size_t bigger = std::max(capacity * 2, size + more);
        std::unique_ptr<char[]> grown(new char[bigger]);
        std::memcpy(grown.get(), bytes.get(), size);
        bytes = std::move(grown);
        capacity = bigger;
    }
};

// Full chunks waiting for a worker, and empty buffers waiting for the reader.
class ChunkQueue {
public:
    ChunkQueue(std::size_t buffers, std::size_t chunk_bytes) {
        for (std::size_t i = 0; i < buffers; ++i) {
            Chunk c;
            c.bytes.reset(new char[chunk_bytes]);
            c.capacity = chunk_bytes;
            free_.push_back(std::move(c));
        }
    }
    // An empty buffer for the reader; none once stopped.
    bool take_free(Chunk& c) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopped_ || !free_.empty(); });
        if (stopped_) return false;
        c = std::move(free_.front());
        free_.pop_front();
        return true;
    }
    void give_full(Chunk c) {
        std::lock_guard lock(mutex_);
        full_.push_back(std::move(c));
        changed_.notify_all();
    }
    // The next chunk for a worker; false when the text is done (or stopped).
    bool take_full(Chunk& c) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopped_ || finished_ || !full_.empty(); });
        if (stopped_ || full_.empty()) return false;
        c = std::move(full_.front());
        full_.pop_front();
        return true;
    }
    void give_free(Chunk c) {
        c.size = 0;
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(c));
        changed_.notify_all();
    }
    void finish() {
        std::lock_guard lock(mutex_);
        finished_ = true;
        changed_.notify_all();
    }
    // Stops everyone; the first failure is kept for the caller.
    void stop(std::exception_ptr failure) {
        std::lock_guard lock(mutex_);
        if (!failure_) failure_ = failure;
        stopped_ = true;
        changed_.notify_all();
    }
    std::exception_ptr failure() {
        std::lock_guard lock(mutex_);
        return failure_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Chunk> free_, full_;
    bool finished_ = false, stopped_ = false;
    std::exception_ptr failure_;
};

void work(ChunkQueue& queue, const ParseChunk& parse) {
    Chunk c;
    while (queue.take_full(c)) {
        try {
            if (!parse(c.index, {c.bytes.get(), c.size})) queue.stop(nullptr);
        } catch (...) {
            queue.stop(std::current_exception());
        }
        queue.give_free(std::move(c));
    }
}

// The reader's loop: fills chunks, cuts them after their last '\n', carries the rest over.
void read_chunks(ChunkQueue& queue, std::string carry, const ReadBytes& read, std::size_t chunk_bytes) {
    bool eof = false;
    for (std::size_t index = 0; !eof || !carry.empty(); ++index) {
        Chunk c;
        if (!queue.take_free(c)) return;
        c.index = index;
        c.reserve_more(carry.size());
        std::memcpy(c.bytes.get(), carry.data(), carry.size());
        c.size = carry.size();
        carry.clear();
        std::size_t cut = 0;
        for (;;) {
            if (!eof) {
                c.reserve_more(chunk_bytes > c.size ? chunk_bytes - c.size : chunk_bytes);
                const std::size_t want = c.capacity - c.size;
                const std::size_t got = read(c.bytes.get() + c.size, want);
                c.size += got;
                eof = got < want;
            }
            const void* nl = c.size == 0 ? nullptr : memrchr(c.bytes.get(), '\n', c.size);
            if (eof || nl != nullptr) {
                cut = eof ? c.size : static_cast<std::size_t>(static_cast<const char*>(nl) - c.bytes.get()) + 1;
                break;
            }
            // A line longer than the chunk so far: read more into the same chunk.
        }
        carry.assign(c.bytes.get() + cut, c.size - cut);
        c.size = cut;
        if (c.size == 0) {
            queue.give_free(std::move(c));
            continue;
        }
        queue.give_full(std::move(c));
    }
}

}  // namespace

void parse_line_chunks(std::string pending, const ReadBytes& read, std::size_t chunk_bytes, unsigned workers,
                       const ParseChunk& parse) {
    workers = std::max(1U, workers);
    chunk_bytes = std::max<std::size_t>(chunk_bytes, 1);
    ChunkQueue queue(2 * std::size_t{workers} + 1, chunk_bytes);
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (unsigned t = 0; t < workers; ++t) pool.emplace_back(work, std::ref(queue), std::cref(parse));
    try {
        read_chunks(queue, std::move(pending), read, chunk_bytes);
        queue.finish();
    } catch (...) {
        queue.stop(std::current_exception());
    }
    for (std::thread& thread : pool) thread.join();
    if (const std::exception_ptr failure = queue.failure()) std::rethrow_exception(failure);
}

void parse_text_chunks(std::string_view text, std::size_t chunk_bytes, unsigned workers, const ParseChunk& parse) {
    chunk_bytes = std::max<std::size_t>(chunk_bytes, 1);
    std::vector<std::size_t> cuts{0};  // chunk k is text[cuts[k], cuts[k + 1])
    while (cuts.back() < text.size()) {
        const std::size_t nl = text.find('\n', std::min(text.size(), cuts.back() + chunk_bytes) - 1);
        cuts.push_back(nl == std::string_view::npos ? text.size() : nl + 1);
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    parallel_ranges(workers, workers, [&](std::size_t, std::size_t, unsigned) {
        for (std::size_t k = next++; k + 1 < cuts.size() && !stop; k = next++) {
            try {
                if (!parse(k, text.substr(cuts[k], cuts[k + 1] - cuts[k]))) stop = true;
            } catch (...) {
                stop = true;
                throw;
            }
        }
    });
}

}  // namespace clcg::solver::mm
