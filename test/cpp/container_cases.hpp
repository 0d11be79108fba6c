// SPDX-License-Identifier: MIT
// The containers the typed tests run, each as a "case": the container for a given
// allocator, its tlsf alias, and the same workload for all of them (fill with keys
// 0..n-1, erase the even ones, read back the keys in order).
#ifndef TLSF_TEST_CONTAINER_CASES_HPP
#define TLSF_TEST_CONTAINER_CASES_HPP

#include <tlsf/containers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <type_traits>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cases {

using keys = std::vector<int>;

// 0..n-1, or only the odd ones once the even ones are erased.
inline keys expected(int n, bool thinned) {
    keys result;
    for (int i = thinned ? 1 : 0; i < n; i += thinned ? 2 : 1)
        result.push_back(i);
    return result;
}

// For sequences of int: append, erase the even values, read back in order.
struct sequence_case {
    using value_type = int;
    template <class C>
    static void thin(C &c) {
        c.erase(std::remove_if(c.begin(), c.end(), [](int v) { return v % 2 == 0; }), c.end());
    }
    template <class C>
    static keys read(const C &c) {
        return keys(c.begin(), c.end());
    }
};

struct vector_case : sequence_case {
    static constexpr const char *name = "vector";
    template <class A>
    using container = std::vector<int, A>;
    using alias = tlsf::vector<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.push_back(i);
    }
};

struct deque_case : sequence_case {
    static constexpr const char *name = "deque";
    template <class A>
    using container = std::deque<int, A>;
    using alias = tlsf::deque<int>;
    template <class C>
    static void fill(C &c, int n) {
        // From both ends, so that blocks are added at the front and the back.
        for (int i = n / 2; i < n; ++i)
            c.push_back(i);
        for (int i = n / 2 - 1; i >= 0; --i)
            c.push_front(i);
    }
};

struct list_case : sequence_case {
    static constexpr const char *name = "list";
    template <class A>
    using container = std::list<int, A>;
    using alias = tlsf::list<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.push_back(i);
    }
    template <class C>
    static void thin(C &c) {
        c.remove_if([](int v) { return v % 2 == 0; });
    }
};

struct forward_list_case : sequence_case {
    static constexpr const char *name = "forward_list";
    template <class A>
    using container = std::forward_list<int, A>;
    using alias = tlsf::forward_list<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = n - 1; i >= 0; --i)
            c.push_front(i);
    }
    template <class C>
    static void thin(C &c) {
        c.remove_if([](int v) { return v % 2 == 0; });
    }
};

// For associative containers: insert keys (value: 3 * key), erase the even keys, read
// back the sorted keys; a wrong value reads back as -1.
struct associative_case {
    template <class C>
    static void thin(C &c) {
        for (auto it = c.begin(); it != c.end();)
            it = key_of(*it) % 2 == 0 ? c.erase(it) : ++it;
    }
    template <class C>
    static keys read(const C &c) {
        keys result;
        for (const auto &entry : c)
            result.push_back(checked_key(entry));
        std::sort(result.begin(), result.end());
        return result;
    }
    static int key_of(int key) { return key; }
    static int key_of(const std::pair<const int, int> &entry) { return entry.first; }
    static int checked_key(int key) { return key; }
    static int checked_key(const std::pair<const int, int> &entry) {
        return entry.second == 3 * entry.first ? entry.first : -1;
    }
};

struct map_case : associative_case {
    static constexpr const char *name = "map";
    using value_type = std::pair<const int, int>;
    template <class A>
    using container = std::map<int, int, std::less<int>, A>;
    using alias = tlsf::map<int, int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.emplace(i, 3 * i);
    }
};

struct multimap_case : associative_case {
    static constexpr const char *name = "multimap";
    using value_type = std::pair<const int, int>;
    template <class A>
    using container = std::multimap<int, int, std::less<int>, A>;
    using alias = tlsf::multimap<int, int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = n - 1; i >= 0; --i)
            c.emplace(i, 3 * i);
    }
};

struct set_case : associative_case {
    static constexpr const char *name = "set";
    using value_type = int;
    template <class A>
    using container = std::set<int, std::less<int>, A>;
    using alias = tlsf::set<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.insert(i);
    }
};

struct multiset_case : associative_case {
    static constexpr const char *name = "multiset";
    using value_type = int;
    template <class A>
    using container = std::multiset<int, std::less<int>, A>;
    using alias = tlsf::multiset<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.insert(i);
    }
};

struct unordered_map_case : associative_case {
    static constexpr const char *name = "unordered_map";
    using value_type = std::pair<const int, int>;
    template <class A>
    using container = std::unordered_map<int, int, std::hash<int>, std::equal_to<int>, A>;
    using alias = tlsf::unordered_map<int, int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.emplace(i, 3 * i);
    }
};

struct unordered_set_case : associative_case {
    static constexpr const char *name = "unordered_set";
    using value_type = int;
    template <class A>
    using container = std::unordered_set<int, std::hash<int>, std::equal_to<int>, A>;
    using alias = tlsf::unordered_set<int>;
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.insert(i);
    }
};

// A string of n characters; its "keys" are the characters' offsets from 'a'.
struct string_case {
    static constexpr const char *name = "basic_string";
    using value_type = char;
    template <class A>
    using container = std::basic_string<char, std::char_traits<char>, A>;
    using alias = tlsf::string;
    static char letter(int i) { return static_cast<char>('a' + i % 26); }
    template <class C>
    static void fill(C &c, int n) {
        for (int i = 0; i < n; ++i)
            c.push_back(letter(i));
    }
    template <class C>
    static void thin(C &c) {
        C odd(c.get_allocator());
        for (std::size_t i = 1; i < c.size(); i += 2)
            odd.push_back(c[i]);
        c = odd;
    }
    template <class C>
    static keys read(const C &c) {
        keys result;
        for (char ch : c)
            result.push_back(ch - 'a');
        return result;
    }
    static keys expected_letters(int n, bool thinned) {
        keys result;
        for (int i : expected(n, thinned))
            result.push_back(letter(i) - 'a');
        return result;
    }
};

// What `read` must return after `fill(n)` (and `thin`).
template <class Case>
keys expected_for(int n, bool thinned) {
    if constexpr (std::is_same_v<Case, string_case>)
        return string_case::expected_letters(n, thinned);
    else
        return expected(n, thinned);
}

using all =
    ::testing::Types<vector_case, deque_case, list_case, forward_list_case, map_case, multimap_case,
                     set_case, multiset_case, unordered_map_case, unordered_set_case, string_case>;

// Names the typed tests after the container.
struct names {
    template <class Case>
    static std::string GetName(int) {
        return Case::name;
    }
};

} // namespace cases

#endif // TLSF_TEST_CONTAINER_CASES_HPP
