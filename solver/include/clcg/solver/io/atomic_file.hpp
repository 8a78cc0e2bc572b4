// Write-then-rename output files: readers never see a half-written result, and a
// failed run leaves an existing target untouched. A target that is not a regular file (a
// character device such as /dev/null, a FIFO, a terminal, /dev/stdout when it is one) is
// written straight into instead, never replaced; a symbolic link is followed and stays a link.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace clcg::solver {

// Writes to a temporary `.<name>.XXXXXX` in the target's directory (same file system,
// so the final rename is atomic). commit() flushes, fsyncs, closes and renames over
// the target, checking every step; the destructor removes the temporary when commit()
// was not reached. Any failure (ENOSPC, EFBIG, EIO, missing directory, ...) throws
// std::runtime_error naming the path and strerror. Not thread-safe; not copyable.
//
//   AtomicFile out("x.mtx");
//   out.write("...");
//   out.commit();
class AtomicFile {
public:
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Buffered; may throw as soon as the buffer is flushed and a write fails.
    void write(std::string_view data);
    void commit();

    const std::string& path() const noexcept { return path_; }
    const std::string& temp_path() const noexcept { return temp_path_; }  // empty when direct()
    bool direct() const noexcept { return direct_; }  // written straight into (not a regular file)

private:
    void flush_buffer();
    void write_all(const char* data, std::size_t size);
    [[noreturn]] void fail(const char* what, int err);
    void discard() noexcept;

    std::string path_;
    std::string target_;  // path_ with symbolic links resolved: what the temporary is renamed onto
    std::string temp_path_;
    std::string buffer_;
    int fd_ = -1;
    bool committed_ = false;
    bool direct_ = false;
};

// Fails early (before a long solve) when `path` could not be written: its directory is
// missing, not a directory or not writable (checked by creating and removing a probe file),
// `path` is a directory or a dangling symbolic link, or a non-regular target cannot be opened
// for writing. Throws InputError(path, 0, ...).
void check_writable(const std::string& path);

}  // namespace clcg::solver
