/*
 * SPDX-License-Identifier: MIT
 *
 * threads_bench.c - two multi-threaded malloc workloads, for whatever malloc the process
 * has (glibc's, or libtlsf_malloc.so with LD_PRELOAD; bench/host/threads_bench.sh runs
 * both side by side). Modelled on two programs of the usual allocator benchmark suites:
 *
 *   larson <threads> <generations> [slots] [replacements]
 *       A server whose work moves between threads (after Larson and Krishnan's benchmark):
 *       the main thread fills <threads> lanes of [slots] blocks (8..1000 bytes); each lane
 *       is worked by a chain of <generations> threads, each replacing [replacements]
 *       random blocks of its lane (free one, malloc another) and then starting its
 *       successor and exiting. Most frees are of blocks another (often exited) thread
 *       allocated.
 *   alloc-test <threads> <operations> [slots]
 *       Independent threads (after the alloc-test program): each keeps [slots] blocks of
 *       mostly small sizes (80% 8..128 bytes, 15% up to 2 KiB, 5% up to 32 KiB) and
 *       replaces a random one <operations> times. No block crosses threads.
 *   large <threads> <operations>
 *       Each thread allocates a block of 5..25 MiB, writes every page of it and frees it,
 *       <operations> times: what a malloc that maps and unmaps each large block pays for
 *       in page faults.
 *   grow <threads> <operations>
 *       Each thread grows a block from 1 MiB to 64 MiB with realloc, 1 MiB at a time,
 *       writing each new MiB, <operations> times: what a realloc that copies large
 *       blocks (and holds both copies) pays for.
 *
 * Output, one line: the workload, its parameters, operations (malloc+free pairs), seconds
 * (wall clock), peak resident set (ru_maxrss, KiB), minor page faults of the whole process
 * (ru_minflt: nearly deterministic, unlike the time), the resident set at the workload's
 * fullest moment, all of it and its anonymous part (rss_at_peak_kib, anon_at_peak_kib:
 * every thread done with its replacements, no block freed yet; from
 * /proc/self/smaps_rollup, which walks the page tables and is exact, where ru_maxrss comes
 * from counters that may lag by a few hundred KiB, and the file pages vary with the
 * kernel's fault-around; the anonymous part of alloc-test repeats to the page; 0 for
 * `large` and `grow` or when the file is missing) and a checksum of the contents read back
 * (identical for every malloc: the work is deterministic). Exit status 1 if a block did not hold
 * what was written into it.
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct lane {
    unsigned char **slots;
    uint32_t *tags; /* what each block's first and last byte hold */
    size_t *sizes;
    size_t count;
    uint32_t rng;
    unsigned generation;
    uint64_t checksum;
} lane_t;

static unsigned generations;
static pthread_barrier_t replaced; /* alloc-test: every thread done with its replacements */
static size_t replacements;
static atomic_int lanes_left;
static atomic_int corrupt;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

static uint32_t next_random(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct rusage usage_now(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage;
}

/* The resident set at the workload's fullest moment, in KiB: all of it, and its anonymous
 * part (the heaps, the stacks; not the program's files). */
static long rss_at_peak_kib, anon_at_peak_kib;

/* The value of the line `field` (e.g. "\nRss:") in `text`, or 0. */
static long field_kib(const char *text, const char *field) {
    const char *line = strstr(text, field);
    return line ? strtol(line + strlen(field), NULL, 10) : 0;
}

/* Sample /proc/self/smaps_rollup (0 where it is missing). Reads into a stack buffer: no
 * malloc, so the measurement does not disturb what it measures. */
static void sample_resident(void) {
    char text[2048];
    ssize_t got;
    int fd = open("/proc/self/smaps_rollup", O_RDONLY);
    if (fd < 0) return;
    got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return;
    text[got] = '\0';
    rss_at_peak_kib = field_kib(text, "\nRss:");
    anon_at_peak_kib = field_kib(text, "\nAnonymous:");
}

static void die(const char *what) {
    fprintf(stderr, "threads_bench: %s\n", what);
    exit(2);
}

/* Put a fresh block of `bytes` in slot i, tagged so that its reader can check it. */
static void fill_slot(lane_t *lane, size_t i, size_t bytes) {
    unsigned char *block = (unsigned char *)malloc(bytes);
    uint32_t tag = next_random(&lane->rng);
    if (block == NULL) die("malloc failed");
    block[0] = (unsigned char)tag;
    block[bytes - 1] = (unsigned char)(tag >> 8);
    lane->slots[i] = block;
    lane->tags[i] = tag;
    lane->sizes[i] = bytes;
}

static void empty_slot(lane_t *lane, size_t i) {
    unsigned char *block = lane->slots[i];
    uint32_t tag = lane->tags[i];
    if (block[0] != (unsigned char)tag || block[lane->sizes[i] - 1] != (unsigned char)(tag >> 8))
        atomic_store(&corrupt, 1);
    lane->checksum += block[0];
    free(block);
    lane->slots[i] = NULL;
}

static size_t larson_size(uint32_t *rng) {
    return 8 + next_random(rng) % 993;
}

static size_t alloc_test_size(uint32_t *rng) {
    uint32_t r = next_random(rng) % 100;
    if (r < 80) return 8 + next_random(rng) % 121;
    if (r < 95) return 128 + next_random(rng) % 1921;
    return 2048 + next_random(rng) % 30721;
}

/* ---- larson ------------------------------------------------------------------------------ */

static void *larson_thread(void *arg) {
    lane_t *lane = (lane_t *)arg;
    size_t n;
    for (n = 0; n < replacements; ++n) {
        size_t i = next_random(&lane->rng) % lane->count;
        empty_slot(lane, i);
        fill_slot(lane, i, larson_size(&lane->rng));
    }
    if (++lane->generation < generations) {
        pthread_t next;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&next, &attr, larson_thread, lane) != 0) die("pthread_create");
        pthread_attr_destroy(&attr);
    } else {
        pthread_mutex_lock(&done_lock);
        if (atomic_fetch_sub(&lanes_left, 1) == 1) pthread_cond_signal(&done_cond);
        pthread_mutex_unlock(&done_lock);
    }
    return NULL;
}

/* ---- large ------------------------------------------------------------------------------ */

static void *large_thread(void *arg) {
    lane_t *lane = (lane_t *)arg;
    size_t n;
    for (n = 0; n < replacements; ++n) {
        size_t bytes = ((size_t)5 << 20) + next_random(&lane->rng) % ((size_t)20 << 20);
        unsigned char *block = (unsigned char *)malloc(bytes);
        size_t i;
        if (block == NULL) die("malloc failed");
        for (i = 0; i < bytes; i += 4096)
            block[i] = (unsigned char)i;
        lane->checksum += block[bytes / 2 & ~(size_t)4095];
        free(block);
    }
    return NULL;
}

/* ---- grow ------------------------------------------------------------------------------- */

static void *grow_thread(void *arg) {
    lane_t *lane = (lane_t *)arg;
    const size_t step = (size_t)1 << 20;
    size_t n, mib;
    for (n = 0; n < replacements; ++n) {
        unsigned char *block = (unsigned char *)malloc(step), *grown;
        if (block == NULL) die("malloc failed");
        memset(block, 1, step);
        for (mib = 2; mib <= 64; ++mib) {
            grown = (unsigned char *)realloc(block, mib * step);
            if (grown == NULL) die("realloc failed");
            block = grown;
            memset(block + (mib - 1) * step, (int)mib, step);
        }
        for (mib = 1; mib <= 64; ++mib) /* every MiB still holds what was written into it */
            if (block[(mib - 1) * step] != (unsigned char)mib ||
                block[mib * step - 1] != (unsigned char)mib)
                atomic_store(&corrupt, 1);
        lane->checksum += block[step * 5];
        free(block);
    }
    return NULL;
}

/* ---- alloc-test -------------------------------------------------------------------------- */

static void *alloc_test_thread(void *arg) {
    lane_t *lane = (lane_t *)arg;
    size_t n, i;
    for (i = 0; i < lane->count; ++i)
        fill_slot(lane, i, alloc_test_size(&lane->rng));
    for (n = 0; n < replacements; ++n) {
        i = next_random(&lane->rng) % lane->count;
        empty_slot(lane, i);
        fill_slot(lane, i, alloc_test_size(&lane->rng));
    }
    if (pthread_barrier_wait(&replaced) == PTHREAD_BARRIER_SERIAL_THREAD) sample_resident();
    pthread_barrier_wait(&replaced); /* nobody frees before the sample */
    for (i = 0; i < lane->count; ++i)
        empty_slot(lane, i);
    return NULL;
}

static void lane_init(lane_t *lane, unsigned id, size_t count) {
    lane->slots = (unsigned char **)calloc(count, sizeof *lane->slots);
    lane->tags = (uint32_t *)calloc(count, sizeof *lane->tags);
    lane->sizes = (size_t *)calloc(count, sizeof *lane->sizes);
    if (!lane->slots || !lane->tags || !lane->sizes) die("out of memory");
    lane->count = count;
    lane->rng = 0x9e3779b9u * (id + 1);
    lane->generation = 0;
    lane->checksum = 0;
}

static void lane_free(lane_t *lane) {
    free(lane->slots);
    free(lane->tags);
    free(lane->sizes);
}

int main(int argc, char **argv) {
    enum { MAX_THREADS = 64 };
    lane_t lanes[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    unsigned count, t;
    size_t slots, i;
    int larson, large, grow;
    uint64_t checksum = 0, operations;
    double start, seconds;
    struct rusage usage;
    if (argc < 4) {
        fprintf(stderr, "usage: threads_bench larson <threads> <generations> [slots] "
                        "[replacements]\n"
                        "       threads_bench alloc-test <threads> <operations> [slots]\n"
                        "       threads_bench large <threads> <operations>\n"
                        "       threads_bench grow <threads> <operations>\n");
        return 2;
    }
    larson = strcmp(argv[1], "larson") == 0;
    large = strcmp(argv[1], "large") == 0;
    grow = strcmp(argv[1], "grow") == 0;
    if (!larson && !large && !grow && strcmp(argv[1], "alloc-test") != 0) die("unknown workload");
    count = (unsigned)strtoul(argv[2], NULL, 10);
    if (count < 1 || count > MAX_THREADS) die("threads: 1 to 64");
    if (larson) {
        generations = (unsigned)strtoul(argv[3], NULL, 10);
        slots = argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
        replacements = argc > 5 ? strtoul(argv[5], NULL, 10) : 10000;
        if (generations < 1) die("generations: at least 1");
        operations = (uint64_t)count * generations * replacements;
    } else if (large || grow) {
        replacements = strtoul(argv[3], NULL, 10);
        slots = 1;
        operations = (uint64_t)count * replacements;
    } else {
        replacements = strtoul(argv[3], NULL, 10);
        slots = argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
        operations = (uint64_t)count * (replacements + slots);
    }
    if (slots < 1) die("slots: at least 1");
    for (t = 0; t < count; ++t)
        lane_init(&lanes[t], t, slots);
    start = now_seconds();
    if (larson) {
        atomic_store(&lanes_left, (int)count);
        for (t = 0; t < count; ++t) /* the main thread makes every lane's first blocks */
            for (i = 0; i < slots; ++i)
                fill_slot(&lanes[t], i, larson_size(&lanes[t].rng));
        for (t = 0; t < count; ++t) {
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&threads[t], &attr, larson_thread, &lanes[t]) != 0)
                die("pthread_create");
            pthread_attr_destroy(&attr);
        }
        pthread_mutex_lock(&done_lock);
        while (atomic_load(&lanes_left) > 0)
            pthread_cond_wait(&done_cond, &done_lock);
        pthread_mutex_unlock(&done_lock);
        sample_resident();
        for (t = 0; t < count; ++t)
            for (i = 0; i < slots; ++i)
                empty_slot(&lanes[t], i);
    } else {
        void *(*work)(void *) = large ? large_thread : grow ? grow_thread : alloc_test_thread;
        pthread_barrier_init(&replaced, NULL, count);
        for (t = 0; t < count; ++t)
            if (pthread_create(&threads[t], NULL, work, &lanes[t]) != 0) die("pthread_create");
        for (t = 0; t < count; ++t)
            pthread_join(threads[t], NULL);
        pthread_barrier_destroy(&replaced);
    }
    seconds = now_seconds() - start;
    for (t = 0; t < count; ++t) {
        checksum += lanes[t].checksum;
        lane_free(&lanes[t]);
    }
    usage = usage_now();
    printf("%s threads=%u operations=%llu seconds=%.3f peak_rss_kib=%ld minor_faults=%ld "
           "rss_at_peak_kib=%ld anon_at_peak_kib=%ld checksum=%llu\n",
           argv[1], count, (unsigned long long)operations, seconds, usage.ru_maxrss,
           usage.ru_minflt, rss_at_peak_kib, anon_at_peak_kib, (unsigned long long)checksum);
    if (atomic_load(&corrupt)) {
        fprintf(stderr, "threads_bench: a block did not hold what was written into it\n");
        return 1;
    }
    return 0;
}
