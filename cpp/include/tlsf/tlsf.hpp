// SPDX-License-Identifier: MIT
// tlsf/tlsf.hpp - the C++ layer of the TLSF heap, header-only.
//
//   tlsf::heap, tlsf::static_heap<Bytes>   a heap over the program's memory   <tlsf/heap.hpp>
//   tlsf::default_heap()                    the process default heap   <tlsf/default_heap.hpp>
//   tlsf::lock_hooks                        making a heap thread-safe          <tlsf/lock.hpp>
//   tlsf::allocator<T>                      a standard Allocator          <tlsf/allocator.hpp>
//   tlsf::memory_resource                   a std::pmr resource     <tlsf/memory_resource.hpp>
//   tlsf::heap_resource                     a pmr resource with its own, growing heap
//                                                                    <tlsf/heap_resource.hpp>
//   tlsf::allocate_unique, tlsf::unique_ptr  unique ownership on a heap <tlsf/allocate_unique.hpp>
//   tlsf::map, tlsf::vector, tlsf::string...  containers on the heap    <tlsf/containers.hpp>
//   tlsf::set_failure_handler               failures without exceptions     <tlsf/failure.hpp>
//   compile-time switches                                                   <tlsf/config.hpp>
//
// The design - what a std::pmr user can count on, and where it differs - is in docs/cpp.md.
//
// Not included here: <tlsf/global_new.hpp>, which replaces the global operator new and
// delete and so belongs in exactly one translation unit of a program.
#ifndef TLSF_TLSF_HPP
#define TLSF_TLSF_HPP

#include "tlsf/config.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/lock.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/default_heap.hpp"
#include "tlsf/allocator.hpp"
#include "tlsf/memory_resource.hpp"
#include "tlsf/heap_resource.hpp"
#include "tlsf/allocate_unique.hpp"
#include "tlsf/thread_heaps.hpp"
#include "tlsf/containers.hpp"

#endif // TLSF_TLSF_HPP
