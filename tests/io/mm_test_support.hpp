#pragma once
// What the Matrix Market tests share: short names, writing a file, parsing text, comparing bits.
#include <Eigen/Core>
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>
#include <string_view>

#include "clcg/solver/io/matrix_market.hpp"
#include "support/temp_dir.hpp"

namespace clcg::test {

inline const std::string real_general = "%%MatrixMarket matrix coordinate real general\n";
inline const std::string real_symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";

using clcg::solver::check_symmetry;
using clcg::solver::check_vector_length;
using clcg::solver::HostMatrix;
using clcg::solver::InputError;
using clcg::solver::MatrixMarketInfo;
using clcg::solver::MmField;
using clcg::solver::MmSymmetry;
using clcg::solver::parse_matrix_market;
using clcg::solver::parse_vector_market;


inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline Eigen::MatrixXd dense(const HostMatrix& a) { return Eigen::MatrixXd(a); }

inline HostMatrix parse(const std::string& text, MatrixMarketInfo* info = nullptr) {
    return parse_matrix_market(text, "test.mtx", info);
}

// gzip (RFC 1952) of `text`, one member.
inline std::string gzip(std::string_view text, int level = 6) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// Same structure, same bits.
inline void expect_identical(const HostMatrix& a, const HostMatrix& b) {
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_EQ(a.cols(), b.cols());
    ASSERT_EQ(a.nonZeros(), b.nonZeros());
    for (Eigen::Index k = 0; k <= a.outerSize(); ++k) ASSERT_EQ(a.outerIndexPtr()[k], b.outerIndexPtr()[k]);
    for (Eigen::Index k = 0; k < a.nonZeros(); ++k) {
        ASSERT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << "at " << k;
        ASSERT_EQ(a.valuePtr()[k], b.valuePtr()[k]) << "at " << k;
    }
}

}  // namespace clcg::test
