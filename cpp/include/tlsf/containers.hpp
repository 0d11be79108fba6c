// SPDX-License-Identifier: MIT
// tlsf/containers.hpp - the standard containers with tlsf::allocator.
//
// Each alias is the std container with tlsf::allocator of its value type, so it allocates
// from the default heap unless given a heap: tlsf::map<int, int> m(heap). Like std::pmr
// containers, they stay on that heap through assignments and swaps, and hand it to the
// elements they build: in a tlsf::map<int, tlsf::string> on a heap every string is on that
// heap too (see <tlsf/allocator.hpp>). std::pmr containers over a tlsf::memory_resource
// or tlsf::heap_resource behave the same; these aliases avoid the virtual calls.
#ifndef TLSF_CONTAINERS_HPP
#define TLSF_CONTAINERS_HPP

#include <deque>
#include <forward_list>
#include <functional>
#include <list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tlsf/allocator.hpp"

namespace tlsf {

template <class T>
using vector = std::vector<T, allocator<T>>;

template <class T>
using deque = std::deque<T, allocator<T>>;

template <class T>
using list = std::list<T, allocator<T>>;

template <class T>
using forward_list = std::forward_list<T, allocator<T>>;

template <class Key, class T, class Compare = std::less<Key>>
using map = std::map<Key, T, Compare, allocator<std::pair<const Key, T>>>;

template <class Key, class T, class Compare = std::less<Key>>
using multimap = std::multimap<Key, T, Compare, allocator<std::pair<const Key, T>>>;

template <class Key, class Compare = std::less<Key>>
using set = std::set<Key, Compare, allocator<Key>>;

template <class Key, class Compare = std::less<Key>>
using multiset = std::multiset<Key, Compare, allocator<Key>>;

template <class Key, class T, class Hash = std::hash<Key>, class KeyEqual = std::equal_to<Key>>
using unordered_map =
    std::unordered_map<Key, T, Hash, KeyEqual, allocator<std::pair<const Key, T>>>;

template <class Key, class T, class Hash = std::hash<Key>, class KeyEqual = std::equal_to<Key>>
using unordered_multimap =
    std::unordered_multimap<Key, T, Hash, KeyEqual, allocator<std::pair<const Key, T>>>;

template <class Key, class Hash = std::hash<Key>, class KeyEqual = std::equal_to<Key>>
using unordered_set = std::unordered_set<Key, Hash, KeyEqual, allocator<Key>>;

template <class Key, class Hash = std::hash<Key>, class KeyEqual = std::equal_to<Key>>
using unordered_multiset = std::unordered_multiset<Key, Hash, KeyEqual, allocator<Key>>;

template <class CharT, class Traits = std::char_traits<CharT>>
using basic_string = std::basic_string<CharT, Traits, allocator<CharT>>;

using string = basic_string<char>;
using wstring = basic_string<wchar_t>;

} // namespace tlsf

#endif // TLSF_CONTAINERS_HPP
