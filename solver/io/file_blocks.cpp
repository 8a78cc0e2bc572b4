#include "file_blocks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "clcg/solver/io/input_error.hpp"

namespace clcg::solver::mm {

FileHandle::FileHandle(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    if (::fstat(fd_, &st_) != 0) {
        const int err = errno;
        ::close(fd_);
        throw InputError(path, 0, std::string("cannot stat: ") + std::strerror(err));
    }
    if (S_ISDIR(st_.st_mode)) {
        ::close(fd_);
        throw InputError(path, 0, "is a directory, not a Matrix Market file");
    }
}

FileHandle::~FileHandle() { ::close(fd_); }

std::size_t FileHandle::read_up_to(char* p, std::size_t n, const std::string& path) const {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd_, p + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw InputError(path, 0, std::string("read error: ") + std::strerror(errno));
        }
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

FileData read_whole_file(const std::string& path) {
    const FileHandle file(path);
    FileData d;
    std::size_t capacity = file.size_hint() + 1;
    d.bytes.reset(new char[capacity]);
    for (;;) {
        d.size += file.read_up_to(d.bytes.get() + d.size, capacity - d.size, path);
        if (d.size < capacity) break;
        std::unique_ptr<char[]> bigger(new char[capacity * 2]);
        std::memcpy(bigger.get(), d.bytes.get(), d.size);
        d.bytes = std::move(bigger);
        capacity *= 2;
    }
    return d;
}

FileBlocks::FileBlocks(const std::string& path)
    : path_(path), file_(path), size_hint_(file_.size_hint()), buffer_(new char[capacity_]) {}

std::string_view FileBlocks::next() {
    // Keep the partial line after the previous block.
    std::memmove(buffer_.get(), buffer_.get() + handed_, filled_ - handed_);
    filled_ -= handed_;
    handed_ = 0;
    for (;;) {
        if (!eof_) {
            const std::size_t got = file_.read_up_to(buffer_.get() + filled_, capacity_ - filled_, path_);
            filled_ += got;
            eof_ = filled_ < capacity_;
        }
        const void* nl = memrchr(buffer_.get(), '\n', filled_);
        if (nl != nullptr && !eof_) {
            handed_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get()) + 1;
            return {buffer_.get(), handed_};
        }
        if (eof_) {
            handed_ = filled_;
            return {buffer_.get(), handed_};
        }
        // One line longer than the buffer: grow it.
        std::unique_ptr<char[]> bigger(new char[capacity_ * 2]);
        std::memcpy(bigger.get(), buffer_.get(), filled_);
        buffer_ = std::move(bigger);
        capacity_ *= 2;
    }
}

}  // namespace clcg::solver::mm
