#pragma once
// Where the Matrix Market reader's text comes from (io/ internal): a file read in blocks of
// complete lines through one reused buffer, plain or gzip-compressed (told by content, not by
// name), text already in memory, or a whole file at once (vectors, and the error path that
// needs the text a second time). Compressed text reaches the parser as the same lines, so line
// numbers in messages are the uncompressed file's.
#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace clcg::solver::mm {

// An open file; InputError (naming the path) when it cannot be opened or is a directory.
class FileHandle {
public:
    explicit FileHandle(const std::string& path);
    ~FileHandle();
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;

    // A regular file (not a pipe or a device): one that can be opened and read again.
    bool regular() const { return S_ISREG(st_.st_mode); }
    // Size of a regular file, 0 for pipes and devices.
    std::size_t size_hint() const { return S_ISREG(st_.st_mode) ? static_cast<std::size_t>(st_.st_size) : 0; }
    // Reads up to n bytes, retrying short reads; returns fewer only at the end.
    std::size_t read_up_to(char* p, std::size_t n, const std::string& path) const;
    // Reads up to n bytes from `offset` on (a regular file), leaving the file position alone.
    std::size_t read_at(char* p, std::size_t n, std::size_t offset, const std::string& path) const;

private:
    int fd_ = -1;
    struct stat st_ {};
};

// gzip's magic bytes (RFC 1952): 1f 8b.
bool is_gzip(std::string_view bytes) noexcept;
bool is_gzip_file(const std::string& path);
// Inflates a whole gzip text (every member of a multi-member file) with zlib's stream;
// InputError naming `name` for corrupt or truncated data. gzip_inflate.hpp's gunzip_whole is
// the fast way; this one names the errors.
std::string gunzip(std::string_view compressed, const std::string& name);
// A tar archive ("ustar" at byte 257), which SuiteSparse ships as .tar.gz: InputError saying to
// extract it. `head` is the start of the (uncompressed) text.
void reject_tar(std::string_view head, const std::string& name);

struct FileData {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::string_view view() const { return {bytes.get(), size}; }
};

// Whole file in one buffer, as stored (compressed or not).
FileData read_file_bytes(const std::string& path);
FileData read_file_bytes(const FileHandle& file, const std::string& path);
// A regular file read by `threads` threads, each a range of it (a copy from the page cache, and
// its page faults, on every core); others, or files under 8 MiB a thread, as above.
FileData read_file_bytes(const FileHandle& file, const std::string& path, unsigned threads);
// Whole file in one buffer, inflated (by libdeflate) when it is gzip (vectors, and the rare
// error path that needs the text again).
FileData read_whole_file(const std::string& path);

// Text in memory: one block.
class TextBlocks {
public:
    explicit TextBlocks(std::string_view text) : text_(text) {}
    std::string_view next() { return std::exchange(text_, std::string_view()); }
    std::size_t size_hint() const { return text_.size(); }

private:
    std::string_view text_;
};

// A file read through one reused buffer, handed out as runs of complete lines. Much
// faster than one big buffer: a 100 MB allocation costs more in page faults than
// parsing saves, and a 1 MiB buffer stays in cache.
class FileBlocks {
public:
    explicit FileBlocks(const std::string& path);
    std::size_t size_hint() const { return size_hint_; }
    // Complete lines (the last block may end without '\n'); empty at the end.
    std::string_view next();

private:
    std::string path_;
    FileHandle file_;
    std::size_t size_hint_;
    std::size_t capacity_ = 1U << 20;
    std::unique_ptr<char[]> buffer_;
    std::size_t filled_ = 0;
    std::size_t handed_ = 0;
    bool eof_ = false;
};

// A gzip file's inflated bytes (every member of a multi-member file), through zlib's stream:
// for texts too large to hold in memory, and the serial reader that names errors. Corrupt or
// truncated compressed data is an InputError naming the file.
class GzipStream {
public:
    explicit GzipStream(const std::string& path);
    ~GzipStream();
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;
    // Inflates up to n bytes into p; returns fewer only at the end.
    std::size_t read_up_to(char* p, std::size_t n);
    std::size_t compressed_size() const { return file_.size_hint(); }

private:
    std::string path_;
    FileHandle file_;
    struct Stream;
    std::unique_ptr<Stream> stream_;
    std::unique_ptr<char[]> input_;
};

// A gzip file inflated through a fixed buffer, handed out as runs of complete lines like
// FileBlocks.
class GzipBlocks {
public:
    explicit GzipBlocks(const std::string& path) : stream_(path), buffer_(new char[capacity_]) {}
    // A guess at the uncompressed size (Matrix Market text compresses about 4:1); only used
    // to bound reservations.
    std::size_t size_hint() const { return 4 * stream_.compressed_size(); }
    std::string_view next();

private:
    GzipStream stream_;
    std::size_t capacity_ = 1U << 20;
    std::unique_ptr<char[]> buffer_;
    std::size_t filled_ = 0;
    std::size_t handed_ = 0;
    bool eof_ = false;
};

inline bool all_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos; }

}  // namespace clcg::solver::mm
