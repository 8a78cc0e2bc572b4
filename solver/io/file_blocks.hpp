#pragma once
// Where the Matrix Market reader's text comes from (io/ internal): a file read in blocks of
// complete lines through one reused buffer, text already in memory, or a whole file at once
// (vectors, and the error path that needs the text a second time).
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

    // Size of a regular file, 0 for pipes and devices.
    std::size_t size_hint() const { return S_ISREG(st_.st_mode) ? static_cast<std::size_t>(st_.st_size) : 0; }
    // Reads up to n bytes, retrying short reads; returns fewer only at the end.
    std::size_t read_up_to(char* p, std::size_t n, const std::string& path) const;

private:
    int fd_ = -1;
    struct stat st_ {};
};

struct FileData {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::string_view view() const { return {bytes.get(), size}; }
};

// Whole file in one buffer (vectors, and the rare error path that needs the text again).
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

inline bool all_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos; }

}  // namespace clcg::solver::mm
