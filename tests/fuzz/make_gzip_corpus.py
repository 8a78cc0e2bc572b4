#!/usr/bin/env python3
"""Writes tests/fuzz/gzip_corpus/: the seeds of matrix_market_gzip_fuzz (docs/RELIABILITY.md).

Compressed files as they come (each starts with gzip's magic bytes): plain members of every
deflate block kind, every optional header field, several members, BGZF, and the ways a file
goes wrong (truncated, bytes after the last member, a trailer that lies, a BGZF member that
claims more text than it can hold). Text seeds for the other direction are tests/fuzz/corpus/.
Run from anywhere: python3 tests/fuzz/make_gzip_corpus.py
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gzip_corpus")

SYMMETRIC = b"%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n"
GENERAL = b"%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 4\n1 1 4.0\n2 2 5.5\n3 3 -1e-3\n1 3 +.5\n"
PATTERN = b"%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n1 1\n2 1\n3 3\n4 2\n"


def deflate(text, level=6, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    return c.compress(text) + c.flush()


def trailer(text):
    return struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)


def member(text, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, flags=0, extra=b"", name=b"", comment=b""):
    header = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff"
    if flags & 4:
        header += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        header += name + b"\0"
    if flags & 16:
        header += comment + b"\0"
    if flags & 2:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return header + deflate(text, level, strategy) + trailer(text)


class BitWriter:
    """Deflate's bit order: fields from their least significant bit, Huffman codes from their most."""

    def __init__(self):
        self.bits = []

    def field(self, value, n):
        self.bits += [(value >> i) & 1 for i in range(n)]

    def code(self, code_and_length):
        code, n = code_and_length
        self.bits += [(code >> i) & 1 for i in reversed(range(n))]

    def bytes(self):
        padded = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(sum(bit << j for j, bit in enumerate(padded[i:i + 8])) for i in range(0, len(padded), 8))


def canonical_codes(lengths):
    """RFC 1951 3.2.2: symbol -> (code, length)."""
    codes, code = {}, 0
    for n in range(1, max(lengths) + 1):
        for symbol, length in enumerate(lengths):
            if length == n:
                codes[symbol] = (code, n)
                code += 1
        code <<= 1
    return codes


def dynamic_block(text, length_codes, distance_codes):
    """One final dynamic-Huffman block of literals declaring `length_codes` (257-288) and
    `distance_codes` (1-32) codes. RFC 1951 allows at most 286 and 32, zlib at most 286 and 30,
    libdeflate 288 and 32: the extra codes have length 0."""
    w = BitWriter()
    w.field(1, 1)  # BFINAL
    w.field(2, 2)  # BTYPE: dynamic
    w.field(length_codes - 257, 5)
    w.field(distance_codes - 1, 5)
    order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    precode = [2 if symbol in (0, 1, 8, 9) else 0 for symbol in range(19)]  # 4 codes of 2 bits
    used = max(i for i, symbol in enumerate(order) if precode[symbol]) + 1
    w.field(used - 4, 4)
    for symbol in order[:used]:
        w.field(precode[symbol], 3)
    literal_lengths = [8] * 255 + [9, 9] + [0] * (length_codes - 257)  # literals, 255 and end of block
    distance_lengths = [1] + [0] * (distance_codes - 1)  # one unused distance code, as zlib allows
    precode_codes = canonical_codes(precode)
    for length in literal_lengths + distance_lengths:
        w.code(precode_codes[length])
    literal_codes = canonical_codes(literal_lengths)
    for byte in text:
        w.code(literal_codes[byte])
    w.code(literal_codes[256])
    return w.bytes()


def bgzf_member(text, level=6):
    data = deflate(text, level)
    block_size = 18 + len(data) + 8  # header with the 6-byte 'BC' field, data, trailer
    return (b"\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06\0BC\x02\0" + struct.pack("<H", block_size - 1) + data +
            trailer(text))


def bgzf(text, pieces):
    cut = [len(text) * k // pieces for k in range(pieces + 1)]
    return b"".join(bgzf_member(text[a:b]) for a, b in zip(cut, cut[1:])) + bgzf_member(b"")


def seeds():
    one = member(SYMMETRIC)
    yield "member_symmetric", one
    yield "member_stored", member(GENERAL, level=0)
    yield "member_fixed_huffman", member(GENERAL, strategy=zlib.Z_FIXED)
    yield "member_best", member(PATTERN, level=9)
    yield "member_all_header_fields", member(SYMMETRIC, flags=2 | 4 | 8 | 16, extra=b"XY\x02\0ab", name=b"a.mtx",
                                             comment=b"seed")
    yield "members_three_cut_in_lines", member(GENERAL[:50]) + member(GENERAL[50:51]) + member(GENERAL[51:])
    yield "members_with_empty", member(b"") + member(SYMMETRIC) + member(b"")
    yield "member_then_zlib_stream", member(GENERAL[:60]) + zlib.compress(GENERAL[60:])
    yield "bgzf_one", bgzf(SYMMETRIC, 1)
    yield "bgzf_three", bgzf(GENERAL, 3)
    yield "member_truncated", one[: len(one) - 11]
    yield "member_then_garbage", one + b"\x01\x02 trailing"
    yield "member_then_zeros", one + b"\0" * 16
    wrong_size = bytearray(one)
    wrong_size[-4] ^= 1
    yield "member_wrong_isize", bytes(wrong_size)
    wrong_crc = bytearray(one)
    wrong_crc[-8] ^= 0x40
    yield "member_wrong_crc", bytes(wrong_crc)
    wrong_header_crc = bytearray(member(SYMMETRIC, flags=2 | 8, name=b"a.mtx"))
    wrong_header_crc[16] ^= 0x01  # the header CRC, after 10 fixed bytes and "a.mtx\0"
    yield "member_wrong_header_crc", bytes(wrong_header_crc)
    # Data only libdeflate reads (known difference, docs/RELIABILITY.md): whole a matrix,
    # streamed by zlib "too many length or distance symbols".
    plain_header = b"\x1f\x8b\x08\0\0\0\0\0\0\xff"
    yield "member_286_length_codes", plain_header + dynamic_block(GENERAL, 286, 30) + trailer(GENERAL)
    yield "member_288_length_codes", plain_header + dynamic_block(GENERAL, 288, 30) + trailer(GENERAL)
    yield "member_32_distance_codes", plain_header + dynamic_block(GENERAL, 286, 32) + trailer(GENERAL)
    big_claim = bytearray(bgzf(PATTERN, 2))
    first_size = struct.unpack_from("<H", big_claim, 16)[0] + 1
    struct.pack_into("<I", big_claim, first_size - 4, 65536)  # 64 KiB of text claimed in a few bytes
    yield "bgzf_member_claims_too_much", bytes(big_claim)
    long_line = b"%%MatrixMarket matrix coordinate real general\n%" + b"x" * 3000 + b"\n1 1 1\n1 1 2\n"
    yield "member_long_comment", member(long_line)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(OUT, name + ".mtx.gz"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
