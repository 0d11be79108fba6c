/* SPDX-License-Identifier: MIT */
// What the layer prints, as mattconte's tlsf.c prints it (hosted builds: print_stdio.c):
// tlsf_walk_pool with no walker, one line per block, and the reason a heap or pool was
// refused.
#include "compat_test_support.h"

#include <cstdio>
#include <string>

#include <unistd.h>

using namespace compat_test;

namespace {

// Everything written on stdout while `body` runs.
template <class Body>
std::string CaptureStdout(Body body) {
    std::fflush(stdout);
    std::FILE *sink = std::tmpfile();
    if (sink == nullptr) return "(no tmpfile)";
    int saved = dup(fileno(stdout));
    dup2(fileno(sink), fileno(stdout));
    body();
    std::fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    std::string text;
    std::rewind(sink);
    for (int c; (c = std::fgetc(sink)) != EOF;)
        text += static_cast<char>(c);
    std::fclose(sink);
    return text;
}

// mattconte's default walker's line for a block: its pointer, state, size in hex, and the
// block's start two words before the pointer (the layer's header: prev link, size word).
std::string ExpectedLine(const Block &block) {
    char line[128];
    std::snprintf(line, sizeof line, "\t%p %s size: %x (%p)\n", block.ptr,
                  block.used ? "used" : "free", static_cast<unsigned>(block.size),
                  static_cast<void *>(Bytes(block.ptr) - 2 * sizeof(void *)));
    return line;
}

TEST(CompatOutput, WalkWithoutAWalkerPrintsEachBlock) {
    Arena arena(tlsf_size() + 32 * 1024);
    tlsf_t heap = tlsf_create_with_pool(arena.start(), arena.size());
    void *a = tlsf_malloc(heap, 100);
    void *b = tlsf_malloc(heap, 2000);
    void *c = tlsf_malloc(heap, 10);
    tlsf_free(heap, b);
    pool_t pool = tlsf_get_pool(heap);
    Census census = Walk(pool);
    ASSERT_EQ(census.blocks.size(), 4u); // a, b free, c, the rest
    std::string expected;
    for (const Block &block : census.blocks)
        expected += ExpectedLine(block);
    EXPECT_EQ(CaptureStdout([&] { tlsf_walk_pool(pool, nullptr, nullptr); }), expected);
    tlsf_free(heap, a);
    tlsf_free(heap, c);
}

TEST(CompatOutput, RefusalsSayWhy) {
    Arena control(tlsf_size() + tlsf_align_size(), 1);
    std::string said = CaptureStdout([&] { EXPECT_EQ(tlsf_create(control.start()), nullptr); });
    EXPECT_NE(said.find("tlsf_create"), std::string::npos) << said;
    EXPECT_NE(said.find("aligned to " + std::to_string(tlsf_align_size())), std::string::npos)
        << said;

    Arena aligned(tlsf_size());
    tlsf_t heap = tlsf_create(aligned.start());
    Arena small(64);
    said = CaptureStdout([&] { EXPECT_EQ(tlsf_add_pool(heap, small.start(), 8), nullptr); });
    EXPECT_NE(said.find("tlsf_add_pool"), std::string::npos) << said;
    const std::size_t least = tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
    EXPECT_NE(said.find(std::to_string(least)), std::string::npos) << said;

    said = CaptureStdout(
        [&] { EXPECT_EQ(tlsf_create_with_pool(aligned.start(), tlsf_size() / 2), nullptr); });
    EXPECT_NE(said.find("tlsf_create_with_pool"), std::string::npos) << said;

    // A heap whose memory holds no pool: created, and the pool's refusal is printed.
    Arena bare(tlsf_size() + 8);
    said = CaptureStdout(
        [&] { EXPECT_NE(tlsf_create_with_pool(bare.start(), bare.size()), nullptr); });
    EXPECT_NE(said.find("tlsf_add_pool"), std::string::npos) << said;
}

} // namespace
