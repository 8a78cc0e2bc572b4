#include "clcg/solver/io/atomic_file.hpp"

#include "clcg/solver/io/input_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

namespace clcg::solver {

namespace {

constexpr std::size_t buffer_size = 1U << 16;

struct PathParts {
    std::string dir;   // "." when the path has no directory part
    std::string base;  // may be empty for "dir/"
};

PathParts split(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return {".", path};
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

std::string sys_error(const std::string& what, const std::string& path, int err) {
    return what + " '" + path + "': " + std::strerror(err);
}

// Creates `<dir>/.<base>.XXXXXX` with O_EXCL. Not mkstemp: mkstemp forces mode 0600,
// while 0666 here lets the umask decide, as for any other new output file.
int create_temp(const PathParts& parts, std::string& temp_path) {
    static thread_local std::mt19937_64 rng(
        std::random_device{}() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<std::uint64_t>(::getpid()) << 32));
    constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string prefix = (parts.dir == "/" ? "/" : parts.dir + "/") + "." + parts.base + ".";
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp_path = prefix;
        std::uint64_t bits = rng();
        for (int k = 0; k < 6; ++k, bits /= 62) temp_path += alphabet[bits % 62];
        const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

// Where an output goes: a target that exists and is not a regular file (a character device
// such as /dev/null, a FIFO, a terminal; /dev/stdout when it is one of those) is written
// straight into and never replaced; anything else is replaced by rename, through symbolic
// links (the link stays a link). Throws std::runtime_error saying why (no path) for a directory
// or a dangling link.
struct Target {
    std::string path;  // what is opened or renamed onto
    bool direct = false;
};

Target resolve_target(const std::string& path) {
    if (split(path).base.empty()) throw std::runtime_error("the path names a directory");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {  // follows symbolic links
        if (S_ISDIR(st.st_mode)) throw std::runtime_error("the path is a directory");
        if (!S_ISREG(st.st_mode)) return {path, true};
    }
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        char* real = ::realpath(path.c_str(), nullptr);
        if (real == nullptr)
            throw std::runtime_error(std::string("the path is a symbolic link to a missing file (") +
                                     std::strerror(errno) + ")");
        std::string resolved(real);
        std::free(real);
        return {resolved, false};
    }
    return {path, false};
}

// The descriptor among stdout and stderr that already writes to `path`'s file, or -1. Writing
// through it rather than opening the path again keeps /dev/stdout working where reopening a
// pipe is not allowed (another user's pipe) and keeps the shell's open mode (>> appends).
int standard_stream_for(const std::string& path) {
    struct stat target {}, stream {};
    if (::stat(path.c_str(), &target) != 0) return -1;
    for (const int fd : {STDOUT_FILENO, STDERR_FILENO})
        if (::fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev && stream.st_ino == target.st_ino) return fd;
    return -1;
}

// Opens a non-regular target for writing (O_NONBLOCK for a probe: a FIFO without a reader
// then fails with ENXIO instead of waiting).
int open_direct(const std::string& path, bool probe) {
    if (const int stream = standard_stream_for(path); stream >= 0) return ::fcntl(stream, F_DUPFD_CLOEXEC, 3);
    return ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (probe ? O_NONBLOCK : 0));
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    Target target;
    try {
        target = resolve_target(path_);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("cannot write '" + path_ + "': " + e.what());
    }
    direct_ = target.direct;
    buffer_.reserve(buffer_size);
    if (direct_) {
        fd_ = open_direct(target.path, false);
        if (fd_ < 0) throw std::runtime_error(sys_error("cannot open", path_, errno));
        return;
    }
    target_ = target.path;
    const PathParts parts = split(target_);
    struct stat st {};
    fd_ = create_temp(parts, temp_path_);
    if (fd_ < 0) {
        const int err = errno;
        throw std::runtime_error(sys_error("cannot create a temporary file in", parts.dir, err) + " (writing '" +
                                 path_ + "')");
    }
    // Replacing a file keeps its permissions.
    if (::stat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd_, st.st_mode & 07777);
}

AtomicFile::~AtomicFile() {
    if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!temp_path_.empty()) {
        ::unlink(temp_path_.c_str());
        temp_path_.clear();
    }
}

void AtomicFile::fail(const char* what, int err) {
    discard();
    throw std::runtime_error(std::string(what) + " '" + path_ + "': " + std::strerror(err));
}

void AtomicFile::write(std::string_view data) {
    if (fd_ < 0) throw std::logic_error("AtomicFile::write after commit or failure: '" + path_ + "'");
    if (buffer_.size() + data.size() > buffer_size) {
        flush_buffer();
        if (data.size() >= buffer_size) {
            write_all(data.data(), data.size());  // large blocks skip the copy
            return;
        }
    }
    buffer_ += data;
}

void AtomicFile::flush_buffer() {
    write_all(buffer_.data(), buffer_.size());
    buffer_.clear();
}

void AtomicFile::write_all(const char* p, std::size_t left) {
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("cannot write", errno);
        }
        if (n == 0) fail("cannot write", EIO);
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

void AtomicFile::commit() {
    if (committed_ || fd_ < 0) throw std::logic_error("AtomicFile::commit called twice: '" + path_ + "'");
    flush_buffer();
    // Write errors may surface only at fsync or close (NFS, full disks with delayed
    // allocation); all three are checked before the target is replaced.
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("cannot sync", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("cannot close", errno);
    if (direct_) {
        committed_ = true;
        return;
    }
    if (::rename(temp_path_.c_str(), target_.c_str()) != 0) fail("cannot rename the temporary file onto", errno);
    temp_path_.clear();
    committed_ = true;
    // Make the rename itself durable; failure here loses nothing already visible.
    const int dir = ::open(split(target_).dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
}

void check_writable(const std::string& path) {
    Target target;
    try {
        target = resolve_target(path);
    } catch (const std::runtime_error& e) {
        throw InputError(path, 0, std::string("cannot write output: ") + e.what());
    }
    if (target.direct) {
        // A FIFO without a reader yet (ENXIO) is fine: the write waits for one.
        const int fd = open_direct(target.path, true);
        if (fd < 0 && errno != ENXIO) throw InputError(path, 0, std::string("cannot write output: ") + std::strerror(errno));
        if (fd >= 0) ::close(fd);
        return;
    }
    const PathParts parts = split(target.path);
    struct stat st {};
    if (::stat(parts.dir.c_str(), &st) != 0) {
        throw InputError(path, 0,
                         "cannot write output: directory '" + parts.dir + "': " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw InputError(path, 0, "cannot write output: '" + parts.dir + "' is not a directory");
    }
    // A probe file is the only test that sees read-only mounts, ACLs and root alike.
    std::string probe;
    const int fd = create_temp(parts, probe);
    if (fd < 0) {
        throw InputError(path, 0,
                         "cannot write output: directory '" + parts.dir + "' is not writable: " + std::strerror(errno));
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

}  // namespace clcg::solver
