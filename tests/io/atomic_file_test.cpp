#include "clcg/solver/io/atomic_file.hpp"
#include "clcg/solver/io/matrix_market.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using clcg::solver::AtomicFile;
using clcg::solver::check_writable;
using clcg::solver::InputError;

namespace fs = std::filesystem;

using clcg::test::TempDir;

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

TEST(AtomicFile, CommitCreatesTheTargetAndLeavesNoTemporary) {
    TempDir dir;
    const std::string target = dir.file("out.txt");
    {
        AtomicFile f(target);
        EXPECT_EQ(fs::path(f.temp_path()).parent_path(), dir.path());
        EXPECT_EQ(fs::path(f.temp_path()).filename().string().rfind(".out.txt.", 0), 0U) << f.temp_path();
        f.write("hello ");
        f.write("world\n");
        EXPECT_FALSE(fs::exists(target));  // nothing visible before commit
        f.commit();
    }
    EXPECT_EQ(read_text(target), "hello world\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, CommitReplacesAnExistingTargetKeepingItsPermissions) {
    TempDir dir;
    const std::string target = dir.file("out.txt");
    write_text(target, "old contents that are longer\n");
    ::chmod(target.c_str(), 0640);
    AtomicFile f(target);
    f.write("new\n");
    f.commit();
    EXPECT_EQ(read_text(target), "new\n");
    struct stat st {};
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640U);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, ExceptionBeforeCommitLeavesTargetUntouchedAndNoTemporary) {
    TempDir dir;
    const std::string target = dir.file("out.txt");
    write_text(target, "precious\n");
    try {
        AtomicFile f(target);
        f.write(std::string(200000, 'x'));  // past the buffer: bytes reach the temp file
        throw std::runtime_error("solver failed");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(read_text(target), "precious\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, AbandonedNewFileIsNotCreated) {
    TempDir dir;
    { AtomicFile f(dir.file("out.txt")); f.write("x"); }
    EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, LargeWritesArriveInOrder) {
    TempDir dir;
    std::string expected;
    AtomicFile f(dir.file("big.txt"));
    for (int k = 0; k < 50; ++k) {
        const std::string chunk(static_cast<std::size_t>(k) * 3001, static_cast<char>('a' + k % 26));
        f.write(chunk);
        expected += chunk;
    }
    f.commit();
    EXPECT_EQ(read_text(dir.file("big.txt")), expected);
}

TEST(AtomicFile, MissingDirectoryIsAnErrorNamingThePath) {
    TempDir dir;
    const std::string target = dir.file("no/such/dir/out.txt");
    try {
        AtomicFile f(target);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), target)) << e.what();
        EXPECT_TRUE(contains(e.what(), "No such file or directory")) << e.what();
    }
}

TEST(AtomicFile, DirectoryAsTargetIsAnError) {
    TempDir dir;
    EXPECT_THROW(AtomicFile f(dir.path().string()), std::runtime_error);
    EXPECT_THROW(AtomicFile f(dir.path().string() + "/"), std::runtime_error);
}

// Makes writes past `bytes` fail with EFBIG, the same path as ENOSPC on a full disk.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        old_handler_ = std::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills us
        ::getrlimit(RLIMIT_FSIZE, &old_);
        rlimit lim = old_;
        lim.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_handler_);
    }

private:
    rlimit old_{};
    void (*old_handler_)(int);
};

TEST(AtomicFile, WriteErrorThrowsWithStrerrorAndLeavesNoFile) {
    TempDir dir;
    const std::string target = dir.file("out.txt");
    write_text(target, "precious\n");
    std::string message;
    {
        FileSizeLimit limit(4096);
        try {
            AtomicFile f(target);
            for (int k = 0; k < 100; ++k) f.write(std::string(1000, 'y'));
            f.commit();
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
    }
    EXPECT_TRUE(contains(message, target)) << message;
    EXPECT_TRUE(contains(message, "File too large")) << message;
    EXPECT_EQ(read_text(target), "precious\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, WriteMatrixMarketToAMissingDirectoryThrows) {
    TempDir dir;
    EXPECT_THROW(clcg::solver::write_matrix_market(dir.file("missing/a.mtx"), clcg::solver::HostMatrix(2, 2)),
                 std::runtime_error);
    EXPECT_TRUE(dir.entries().empty());
}

TEST(CheckWritable, AcceptsNewAndExistingFilesInAWritableDirectory) {
    TempDir dir;
    EXPECT_NO_THROW(check_writable(dir.file("new.txt")));
    write_text(dir.file("old.txt"), "x");
    EXPECT_NO_THROW(check_writable(dir.file("old.txt")));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"old.txt"});  // the probe is gone
}

TEST(CheckWritable, RejectsMissingDirectoryWithInputError) {
    TempDir dir;
    const std::string target = dir.file("missing/x.txt");
    try {
        check_writable(target);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), target);
        EXPECT_EQ(e.line(), 0U);
        EXPECT_TRUE(contains(e.what(), "No such file or directory")) << e.what();
    }
}

TEST(CheckWritable, RejectsADirectoryAsTheOutputPath) {
    TempDir dir;
    EXPECT_THROW(check_writable(dir.path().string()), InputError);
    EXPECT_THROW(check_writable(dir.path().string() + "/"), InputError);
}

TEST(CheckWritable, RejectsAFileUsedAsADirectory) {
    TempDir dir;
    write_text(dir.file("plain"), "x");
    try {
        check_writable(dir.file("plain/x.txt"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_TRUE(contains(e.what(), "not a directory")) << e.what();
    }
}

// A target that is not a regular file is written straight into and never replaced.
TEST(AtomicFile, FifoIsWrittenDirectlyAndStaysAFifo) {
    TempDir dir;
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    check_writable(fifo);  // no reader yet: still writable
    std::string received;
    std::thread reader([&] { received = read_text(fifo); });
    {
        AtomicFile f(fifo);
        EXPECT_TRUE(f.direct());
        EXPECT_TRUE(f.temp_path().empty());
        f.write("through the pipe\n");
        f.commit();
    }
    reader.join();
    EXPECT_EQ(received, "through the pipe\n");
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe"});
}

TEST(AtomicFile, CharacterDeviceIsWrittenDirectlyAndStaysADevice) {
    check_writable("/dev/null");
    AtomicFile f("/dev/null");
    EXPECT_TRUE(f.direct());
    f.write("discarded\n");
    f.commit();
    struct stat st {};
    ASSERT_EQ(::lstat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicFile, FullDeviceFailsWithStrerror) {
    AtomicFile f("/dev/full");
    try {
        f.write(std::string(1 << 17, 'x'));  // past the buffer: the write itself fails
        f.commit();
        FAIL() << "a write to /dev/full succeeded";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "/dev/full")) << e.what();
        EXPECT_TRUE(contains(e.what(), "No space left on device")) << e.what();
    }
}

TEST(AtomicFile, SymbolicLinkIsFollowedAndStaysALink) {
    TempDir dir;
    write_text(dir.file("run42.mtx"), "old\n");
    fs::create_symlink("run42.mtx", dir.path() / "latest.mtx");
    check_writable(dir.file("latest.mtx"));
    {
        AtomicFile f(dir.file("latest.mtx"));
        EXPECT_FALSE(f.direct());
        EXPECT_EQ(fs::path(f.temp_path()).parent_path(), dir.path());
        f.write("new\n");
        f.commit();
    }
    EXPECT_TRUE(fs::is_symlink(dir.path() / "latest.mtx"));
    EXPECT_EQ(read_text(dir.file("run42.mtx")), "new\n");
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"latest.mtx", "run42.mtx"}));
}

TEST(AtomicFile, DanglingSymbolicLinkIsRejected) {
    TempDir dir;
    fs::create_symlink("nowhere.mtx", dir.path() / "latest.mtx");
    EXPECT_THROW(AtomicFile f(dir.file("latest.mtx")), std::runtime_error);
    try {
        check_writable(dir.file("latest.mtx"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_TRUE(contains(e.what(), "symbolic link to a missing file")) << e.what();
    }
    EXPECT_TRUE(fs::is_symlink(dir.path() / "latest.mtx"));
}

TEST(CheckWritable, RejectsAReadOnlyDirectory) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
    TempDir dir;
    fs::create_directory(dir.path() / "ro");
    fs::permissions(dir.path() / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(check_writable((dir.path() / "ro" / "x.txt").string()), InputError);
    fs::permissions(dir.path() / "ro", fs::perms::owner_all);
}

}  // namespace
