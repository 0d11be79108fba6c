// SPDX-License-Identifier: MIT
// A std::map whose nodes come from a TLSF heap.
//
// tlsf::allocator<T> is a standard allocator. Default-constructed it uses the process
// default heap (tlsf::default_heap()), so naming it in the map's type is all it takes;
// given a heap, it uses that one - here a 64 KiB heap with its own storage, whose
// statistics show every node coming and going.
#include <tlsf/tlsf.hpp>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>

int main() {
    // On the default heap: nothing else to write.
    std::map<int, std::string, std::less<int>, tlsf::allocator<std::pair<const int, std::string>>>
        planets;
    planets[3] = "Earth";
    planets[4] = "Mars";
    planets[5] = "Jupiter";

    // On a heap of our own. tlsf::map<K, V> is the same map type, spelled shorter.
    tlsf::static_heap<64 * 1024> heap;
    {
        tlsf::map<int, tlsf::string> moons(heap);
        moons.emplace(3, tlsf::string("Moon", heap));
        moons.emplace(4, tlsf::string("Phobos and Deimos", heap));
        for (const auto &[planet, moon] : moons)
            std::printf("%s: %s\n", planets.at(planet).c_str(), moon.c_str());

        const tlsf::heap_stats stats = heap.stats();
        std::printf("own heap: %zu blocks, %zu of %zu bytes in use\n", stats.live_blocks,
                    stats.used_bytes, stats.pool_bytes);
    }
    // Every node went back when the map died.
    const tlsf::heap_stats after = heap.stats();
    std::printf("after: %zu blocks, %zu bytes in use\n", after.live_blocks, after.used_bytes);
    return after.live_blocks == 0 && heap.check() ? 0 : 1;
}
