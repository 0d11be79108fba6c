// SPDX-License-Identifier: MIT
// m4_heaps_none.cpp - the Cortex-M4 heaps when the build has no Unicorn (or no cross
// compiler): every m4: heap is refused with the reason.
#include "heaps.hpp"

namespace replay {

bool m4_image_exists(const std::string &, const heap_options &) {
    return false;
}

std::unique_ptr<heap> make_m4_heap(const std::string &image, const heap_options &,
                                   std::string &error) {
    error = "m4:" + image +
            ": this tlsf-replay was built without the Cortex-M4 emulator (needs Unicorn 2, "
            "Debian libunicorn-dev)";
    return nullptr;
}

} // namespace replay
