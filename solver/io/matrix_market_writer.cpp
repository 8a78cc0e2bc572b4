#include "clcg/solver/io/matrix_market.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

#include "clcg/solver/io/atomic_file.hpp"

namespace clcg::solver {

namespace {

// Buffered text output with to_chars: same digits as %.17g, far faster than printf.
class MmWriter {
public:
    explicit MmWriter(const std::string& path) : out_(path) { buf_.reserve(chunk + 128); }

    void text(std::string_view s) {
        buf_ += s;
        maybe_flush();
    }
    void number(long long x) { put(std::to_chars(tmp_, tmp_ + sizeof tmp_, x)); }
    void number(double x) { put(std::to_chars(tmp_, tmp_ + sizeof tmp_, x, std::chars_format::general, 17)); }
    void ch(char c) {
        buf_ += c;
        if (c == '\n') maybe_flush();
    }
    void comment(std::string_view c) {
        while (!c.empty()) {
            const std::size_t nl = c.find('\n');
            text("% ");
            text(c.substr(0, nl));
            ch('\n');
            if (nl == std::string_view::npos) break;
            c.remove_prefix(nl + 1);
        }
    }
    void commit() {
        out_.write(buf_);
        buf_.clear();
        out_.commit();
    }

private:
    static constexpr std::size_t chunk = 1U << 20;
    void put(std::to_chars_result r) { buf_.append(tmp_, r.ptr); }
    void maybe_flush() {
        if (buf_.size() >= chunk) {
            out_.write(buf_);
            buf_.clear();
        }
    }
    AtomicFile out_;
    std::string buf_;
    char tmp_[64];
};

}  // namespace

void write_matrix_market(const std::string& path, const HostMatrix& a, bool symmetric_lower,
                         std::string_view comment) {
    if (symmetric_lower && a.rows() != a.cols()) {
        throw std::invalid_argument("write_matrix_market: symmetric storage needs a square matrix, got " +
                                    std::to_string(a.rows()) + " x " + std::to_string(a.cols()));
    }
    long long count = 0;
    for (int r = 0; r < a.outerSize(); ++r) {
        for (HostMatrix::InnerIterator it(a, r); it; ++it) {
            if (!symmetric_lower || it.col() <= r) ++count;
        }
    }
    MmWriter w(path);
    w.text(symmetric_lower ? "%%MatrixMarket matrix coordinate real symmetric\n"
                           : "%%MatrixMarket matrix coordinate real general\n");
    w.comment(comment);
    w.number(static_cast<long long>(a.rows()));
    w.ch(' ');
    w.number(static_cast<long long>(a.cols()));
    w.ch(' ');
    w.number(count);
    w.ch('\n');
    for (int r = 0; r < a.outerSize(); ++r) {
        for (HostMatrix::InnerIterator it(a, r); it; ++it) {
            if (symmetric_lower && it.col() > r) continue;
            w.number(static_cast<long long>(r) + 1);
            w.ch(' ');
            w.number(static_cast<long long>(it.col()) + 1);
            w.ch(' ');
            w.number(it.value());
            w.ch('\n');
        }
    }
    w.commit();
}

void write_vector_market(const std::string& path, const Eigen::VectorXd& v) { write_dense_market(path, v); }

void write_dense_market(const std::string& path, const Eigen::MatrixXd& m) {
    MmWriter w(path);
    w.text("%%MatrixMarket matrix array real general\n");
    w.number(static_cast<long long>(m.rows()));
    w.ch(' ');
    w.number(static_cast<long long>(m.cols()));
    w.ch('\n');
    for (Eigen::Index j = 0; j < m.cols(); ++j)  // column by column: the array format's order
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            w.number(m(i, j));
            w.ch('\n');
        }
    w.commit();
}

}  // namespace clcg::solver
