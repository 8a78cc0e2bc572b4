#include "file_blocks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/io/input_error.hpp"
#include "gzip_inflate.hpp"

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

namespace {

// Up to n bytes into p by `read_once(at, left, got)` (a read(2) or pread(2) of the rest),
// retried on EINTR, until n or the end of the file.
template <class ReadOnce>
std::size_t read_all(char* p, std::size_t n, const std::string& path, ReadOnce read_once) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = read_once(p + got, n - got, got);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw InputError(path, 0, std::string("read error: ") + std::strerror(errno));
        }
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

}  // namespace

std::size_t FileHandle::read_up_to(char* p, std::size_t n, const std::string& path) const {
    return read_all(p, n, path, [&](char* at, std::size_t left, std::size_t) { return ::read(fd_, at, left); });
}

std::size_t FileHandle::read_at(char* p, std::size_t n, std::size_t offset, const std::string& path) const {
    return read_all(p, n, path, [&](char* at, std::size_t left, std::size_t got) {
        return ::pread(fd_, at, left, static_cast<off_t>(offset + got));
    });
}

namespace {

constexpr std::size_t compressed_chunk = 1U << 18;

[[noreturn]] void corrupt(const std::string& name, const char* why) {
    throw InputError(name, 0, std::string("corrupt gzip data (") + why + ")");
}

[[noreturn]] void truncated_gzip(const std::string& name) {
    throw InputError(name, 0, "truncated gzip file: the compressed data ends before its stream does");
}

}  // namespace

// zlib's stream, set up for gzip (and zlib) headers; inflateEnd on destruction.
struct GzipStream::Stream {
    z_stream z{};
    bool at_member_end = false;  // the last inflate ended a member (a next one may follow)
    Stream() {
        if (inflateInit2(&z, 15 + 32) != Z_OK) throw std::bad_alloc();
    }
    ~Stream() { inflateEnd(&z); }
};

bool is_gzip(std::string_view bytes) noexcept {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

bool is_gzip_file(const std::string& path) {
    const FileHandle file(path);
    char magic[2] = {};
    return is_gzip({magic, file.read_up_to(magic, 2, path)});
}

void reject_tar(std::string_view head, const std::string& name) {
    if (head.size() >= 262 && head.substr(257, 5) == "ustar")
        throw InputError(name, 0,
                         "is a tar archive (SuiteSparse ships matrices as .tar.gz): extract it (tar xzf) and pass the "
                         ".mtx file inside");
}

std::string gunzip(std::string_view compressed, const std::string& name) {
    std::string text;
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw std::bad_alloc();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    char out[1 << 16];
    int status = Z_OK;
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(out);
        z.avail_out = sizeof out;
        status = inflate(&z, Z_NO_FLUSH);
        text.append(out, sizeof out - z.avail_out);
        if (status == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);  // another member follows
            continue;
        }
        if (status == Z_BUF_ERROR && z.avail_in == 0) break;  // input ran out mid-stream
        if (status != Z_OK) {
            const std::string why = z.msg ? z.msg : "zlib error " + std::to_string(status);
            inflateEnd(&z);
            corrupt(name, why.c_str());
        }
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) truncated_gzip(name);
    return text;
}

FileData read_file_bytes(const std::string& path) { return read_file_bytes(FileHandle(path), path); }

FileData read_file_bytes(const FileHandle& file, const std::string& path) {
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

FileData read_file_bytes(const FileHandle& file, const std::string& path, unsigned threads) {
    const std::size_t size = file.size_hint();
    threads = threads_for(size, std::size_t{8} << 20, threads);
    if (!file.regular() || threads <= 1) return read_file_bytes(file, path);
    FileData d;
    d.bytes.reset(new char[size + 1]);
    d.size = size;
    std::atomic<bool> whole{true};
    parallel_ranges(size, threads, [&](std::size_t begin, std::size_t end, unsigned) {
        if (file.read_at(d.bytes.get() + begin, end - begin, begin, path) != end - begin) whole = false;
    });
    char after = 0;
    if (whole && file.read_at(&after, 1, size, path) == 0) return d;
    return read_file_bytes(FileHandle(path), path);  // it changed size meanwhile: read it as it is now
}

FileData read_whole_file(const std::string& path) {
    FileData d = read_file_bytes(path);
    if (is_gzip(d.view())) return gunzip_whole(d.view(), path);
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

GzipStream::GzipStream(const std::string& path)
    : path_(path), file_(path), stream_(new Stream), input_(new char[compressed_chunk]) {}

GzipStream::~GzipStream() = default;

std::size_t GzipStream::read_up_to(char* p, std::size_t n) {
    z_stream& z = stream_->z;
    std::size_t got = 0;
    while (got < n) {
        if (z.avail_in == 0) {
            z.next_in = reinterpret_cast<Bytef*>(input_.get());
            z.avail_in = static_cast<uInt>(file_.read_up_to(input_.get(), compressed_chunk, path_));
            if (z.avail_in == 0) {
                if (!stream_->at_member_end) truncated_gzip(path_);
                return got;  // the file ended between members: done
            }
        }
        if (stream_->at_member_end) {  // more input after a member: another member follows
            inflateReset(&z);
            stream_->at_member_end = false;
        }
        const std::size_t room = std::min<std::size_t>(n - got, std::size_t{1} << 30);
        z.next_out = reinterpret_cast<Bytef*>(p + got);
        z.avail_out = static_cast<uInt>(room);
        const int status = inflate(&z, Z_NO_FLUSH);
        got += room - z.avail_out;
        if (status == Z_STREAM_END) {
            stream_->at_member_end = true;
        } else if (status != Z_OK && status != Z_BUF_ERROR) {
            corrupt(path_, z.msg ? z.msg : ("zlib error " + std::to_string(status)).c_str());
        }
    }
    return got;
}

std::string_view GzipBlocks::next() {
    // As FileBlocks::next, with inflate in place of read.
    std::memmove(buffer_.get(), buffer_.get() + handed_, filled_ - handed_);
    filled_ -= handed_;
    handed_ = 0;
    for (;;) {
        if (!eof_) {
            filled_ += stream_.read_up_to(buffer_.get() + filled_, capacity_ - filled_);
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
        std::unique_ptr<char[]> bigger(new char[capacity_ * 2]);  // one line longer than the buffer
        std::memcpy(bigger.get(), buffer_.get(), filled_);
        buffer_ = std::move(bigger);
        capacity_ *= 2;
    }
}

}  // namespace clcg::solver::mm
