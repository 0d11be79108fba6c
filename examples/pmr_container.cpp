// SPDX-License-Identifier: MIT
// std::pmr containers on a TLSF heap.
//
// tlsf::memory_resource makes a heap a std::pmr::memory_resource. A pmr container keeps
// its resource for life and hands it to its elements, so the strings inside this vector
// live on the same heap as the vector itself - with no allocator in any type name.
#include <tlsf/tlsf.hpp>

#include <cstdint>
#include <cstdio>
#include <memory_resource>
#include <string>
#include <vector>

int main() {
    tlsf::static_heap<128 * 1024> heap;
    tlsf::memory_resource resource(heap);
    {
        std::pmr::vector<std::pmr::string> log(&resource);
        for (int i = 0; i < 10; ++i)
            log.emplace_back("event number " + std::to_string(i) + ", long enough to need a block");

        std::printf("%zu entries; the last: \"%s\"\n", log.size(), log.back().c_str());
        std::printf("every string on the heap: %s\n",
                    heap.contains(log.front().data()) && heap.contains(log.back().data()) ? "yes"
                                                                                          : "no");
        const tlsf::heap_stats stats = heap.stats();
        std::printf("heap: %zu blocks, %zu bytes in use, peak %zu\n", stats.live_blocks,
                    stats.used_bytes, stats.peak_used_bytes);
    }
    // Over-aligned requests are honoured too (tlsf_memalign).
    void *dma_buffer = resource.allocate(512, 256);
    std::printf("256-byte aligned: %s\n",
                reinterpret_cast<std::uintptr_t>(dma_buffer) % 256 == 0 ? "yes" : "no");
    resource.deallocate(dma_buffer, 512, 256);

    return heap.stats().live_blocks == 0 ? 0 : 1;
}
