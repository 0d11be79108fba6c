// SPDX-License-Identifier: MIT
// tlsf-replay: run a recorded trace (trace/include/tlsf_trace.h) on TLSF in several
// configurations and on the other heaps, and report side by side how large a heap each needs,
// how fragmented it is at the worst moment, and how many instructions each call takes.
// See tools/replay/README.md for the options and docs/trace.md for the method.
//
// Exit status: 0 done; 1 usage or I/O error; 2 the trace is corrupt, truncated or names an
// unknown block; 3 the trace fits none of the heaps (or not the one --heap gives).
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "heaps.hpp"
#include "replay.hpp"
#include "report.hpp"
#include "trace_data.hpp"

extern char **environ;

#ifndef TLSF_REPLAY_VALGRIND
#define TLSF_REPLAY_VALGRIND ""
#endif
#ifndef TLSF_REPLAY_INSNCOUNT_LIB
#define TLSF_REPLAY_INSNCOUNT_LIB ""
#endif
#ifndef TLSF_REPLAY_M4_IMAGES
#define TLSF_REPLAY_M4_IMAGES ""
#endif

namespace {

using namespace replay;

enum exit_status { exit_ok = 0, exit_usage = 1, exit_bad_trace = 2, exit_no_fit = 3 };

const char *const kDefaultHeaps[] = {"tlsf",
                                     "tlsf:slabs=4k",
                                     "tlsf:sl=4,checks=0,cache=0",
                                     "glibc",
                                     "jemalloc",
                                     "mimalloc",
                                     "m4:tlsf-O2-default",
                                     "m4:newlib-nano",
                                     "m4:freertos-heap4"};

struct options {
    std::string trace_path;
    std::vector<std::string> specs;
    bool specs_given = false;
    std::string out_dir, csv_path, curve_path;
    bool counts = true;
    std::uint64_t fixed_heap = 0; // --heap: one run at this size
    heap_options heaps;
    // --worker: count one heap's calls under valgrind and write them to counts_path.
    std::string worker_spec, counts_path;
    std::uint64_t worker_bytes = 0;
    bool check_counter = false;        // --check-counter: prove the counts exact
    bool worker_check_counter = false; // the worker's side of it
};

void usage(std::FILE *out) {
    std::fprintf(out,
                 "usage: tlsf-replay TRACE [--alloc SPEC]... [--out DIR] [--csv FILE]\n"
                 "                   [--no-counts] [--max-heap BYTES] [--heap BYTES]\n"
                 "                   [--curve FILE] [--m4-images DIR] [--backends DIR]\n"
                 "SPEC: tlsf[:sl=N,checks=N,cache=BYTES,slabs=BYTES] glibc jemalloc mimalloc\n"
                 "      m4:IMAGE (tlsf-O2-default, newlib-nano, freertos-heap4, ...)\n"
                 "default: the TLSF configurations tlsf, tlsf:slabs=4k,\n"
                 "      tlsf:sl=4,checks=0,cache=0, the peers, and the Cortex-M4 images found\n"
                 "--out DIR: summary.csv, the data and use.png, map.png, ccdf.png\n"
                 "--heap BYTES: replay once in a TLSF heap of that size (exit 0 if the trace\n"
                 "      fits, 3 if not)\n");
}

bool parse_bytes(const char *text, std::uint64_t &bytes) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    std::uint64_t scale = 1;
    if (end == text || errno != 0) return false;
    if (*end == 'k' || *end == 'K') {
        scale = 1024;
        ++end;
    } else if (*end == 'm' || *end == 'M') {
        scale = 1024 * 1024;
        ++end;
    } else if (*end == 'g' || *end == 'G') {
        scale = std::uint64_t{1} << 30;
        ++end;
    }
    if (*end != '\0' || value > UINT64_MAX / scale) return false;
    bytes = value * scale;
    return true;
}

std::string self_directory() {
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return ".";
    path[n] = '\0';
    std::string text(path);
    const std::size_t slash = text.rfind('/');
    return slash == std::string::npos ? "." : text.substr(0, slash);
}

bool parse_options(int argc, char **argv, options &o) {
    o.heaps.backends_dir = self_directory() + "/backends";
    o.heaps.m4_images_dir = TLSF_REPLAY_M4_IMAGES;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "tlsf-replay: %s needs a value\n", name);
                return nullptr;
            }
            return argv[++i];
        };
        const char *v = nullptr;
        if (arg == "--alloc" || arg == "-a") {
            if ((v = value("--alloc")) == nullptr) return false;
            o.specs.push_back(v);
            o.specs_given = true;
        } else if (arg == "--out") {
            if ((v = value("--out")) == nullptr) return false;
            o.out_dir = v;
        } else if (arg == "--csv") {
            if ((v = value("--csv")) == nullptr) return false;
            o.csv_path = v;
        } else if (arg == "--curve") {
            if ((v = value("--curve")) == nullptr) return false;
            o.curve_path = v;
        } else if (arg == "--no-counts") {
            o.counts = false;
        } else if (arg == "--max-heap" || arg == "--heap" || arg == "--worker-heap") {
            if ((v = value(arg.c_str())) == nullptr) return false;
            std::uint64_t bytes = 0;
            if (!parse_bytes(v, bytes) || bytes == 0) {
                std::fprintf(stderr, "tlsf-replay: %s: '%s' is not a size\n", arg.c_str(), v);
                return false;
            }
            (arg == "--max-heap" ? o.heaps.max_heap
             : arg == "--heap"   ? o.fixed_heap
                                 : o.worker_bytes) = bytes;
        } else if (arg == "--m4-images") {
            if ((v = value("--m4-images")) == nullptr) return false;
            o.heaps.m4_images_dir = v;
        } else if (arg == "--backends") {
            if ((v = value("--backends")) == nullptr) return false;
            o.heaps.backends_dir = v;
        } else if (arg == "--worker") {
            if ((v = value("--worker")) == nullptr) return false;
            o.worker_spec = v;
        } else if (arg == "--worker-counts") {
            if ((v = value("--worker-counts")) == nullptr) return false;
            o.counts_path = v;
        } else if (arg == "--check-counter") {
            o.check_counter = true;
        } else if (arg == "--worker-check-counter") {
            o.worker_check_counter = true;
        } else if (arg == "--help" || arg == "-h") {
            usage(stdout);
            std::exit(exit_ok);
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "tlsf-replay: unknown option %s\n", arg.c_str());
            return false;
        } else if (o.trace_path.empty()) {
            o.trace_path = arg;
        } else {
            std::fprintf(stderr, "tlsf-replay: one trace at a time (%s, %s)\n",
                         o.trace_path.c_str(), arg.c_str());
            return false;
        }
    }
    if (o.trace_path.empty() && !o.check_counter && !o.worker_check_counter) {
        std::fprintf(stderr, "tlsf-replay: no trace given\n");
        return false;
    }
    return true;
}

// ---- Counting under valgrind ----------------------------------------------------------------

// The worker: this program again, under `valgrind --tool=insncount`, counting one heap.
int run_worker(const options &o, const trace_data &trace) {
    std::string error;
    std::unique_ptr<heap> h = make_heap(o.worker_spec, o.heaps, error);
    if (!h) {
        std::fprintf(stderr, "tlsf-replay worker: %s\n", error.c_str());
        return exit_usage;
    }
    if (!running_under_insncount()) {
        std::fprintf(stderr, "tlsf-replay worker: not running under the insncount tool\n");
        return exit_usage;
    }
    std::vector<std::uint32_t> counts;
    if (!count_run(*h, trace, o.worker_bytes, counts, error)) {
        std::fprintf(stderr, "tlsf-replay worker: %s: %s\n", h->name().c_str(), error.c_str());
        return exit_no_fit;
    }
    std::FILE *out = std::fopen(o.counts_path.c_str(), "wb");
    if (out == nullptr ||
        std::fwrite(counts.data(), sizeof counts[0], counts.size(), out) != counts.size() ||
        std::fclose(out) != 0) {
        std::fprintf(stderr, "tlsf-replay worker: cannot write %s\n", o.counts_path.c_str());
        return exit_usage;
    }
    return exit_ok;
}

std::string valgrind_program() {
    const char *given = std::getenv("TLSF_REPLAY_VALGRIND");
    return given != nullptr ? given : TLSF_REPLAY_VALGRIND;
}

// Why host counts are impossible, or "" when they are possible.
std::string why_no_host_counts() {
    struct stat info;
    if (valgrind_program().empty() || stat(valgrind_program().c_str(), &info) != 0)
        return "no valgrind (Debian: valgrind)";
    const std::string tool = std::string(TLSF_REPLAY_INSNCOUNT_LIB) + "/insncount-amd64-linux";
    if (std::string(TLSF_REPLAY_INSNCOUNT_LIB).empty() || stat(tool.c_str(), &info) != 0)
        return "the insncount tool was not built (needs valgrind's static libraries, amd64)";
    return "";
}

// Runs this program under `valgrind --tool=insncount` with `worker_args`; its exit status,
// or -1 when it could not start.
int spawn_worker(std::vector<std::string> worker_args) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    std::vector<std::string> args = {valgrind_program(), "--tool=insncount", "-q", self};
    args.insert(args.end(), worker_args.begin(), worker_args.end());
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(&a[0]);
    argv.push_back(nullptr);
    // The child's environment: ours, with the tool's directory and the static TLS room
    // that a dlopen()ed jemalloc needs (bench/host/peers.hpp).
    std::vector<std::string> env_strings;
    for (char **e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "VALGRIND_LIB=", 13) == 0 ||
            std::strncmp(*e, "GLIBC_TUNABLES=", 15) == 0)
            continue;
        env_strings.push_back(*e);
    }
    env_strings.push_back(std::string("VALGRIND_LIB=") + TLSF_REPLAY_INSNCOUNT_LIB);
    env_strings.push_back("GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536");
    std::vector<char *> envp;
    for (std::string &e : env_strings)
        envp.push_back(&e[0]);
    envp.push_back(nullptr);
    std::fflush(nullptr);
    pid_t child = 0;
    if (posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

bool count_under_valgrind(const options &o, const std::string &spec, std::uint64_t bytes,
                          std::size_t calls, std::vector<std::uint32_t> &counts,
                          std::string &error) {
    char counts_path[] = "/tmp/tlsf-replay-counts-XXXXXX";
    const int fd = mkstemp(counts_path);
    if (fd < 0) {
        error = "cannot make a temporary file";
        return false;
    }
    close(fd);
    std::vector<std::string> args = {"--worker",        spec,
                                     "--worker-counts", counts_path,
                                     "--max-heap",      std::to_string(o.heaps.max_heap),
                                     "--backends",      o.heaps.backends_dir,
                                     o.trace_path};
    if (bytes != 0) {
        args.push_back("--worker-heap");
        args.push_back(std::to_string(bytes));
    }
    const int status = spawn_worker(args);
    if (status != 0) {
        error = status < 0 ? "cannot start " + valgrind_program()
                           : "the counting run under valgrind failed (exit " +
                                 std::to_string(status) + ")";
        unlink(counts_path);
        return false;
    }
    counts.assign(calls, 0);
    std::FILE *in = std::fopen(counts_path, "rb");
    const bool ok =
        in != nullptr && std::fread(counts.data(), sizeof counts[0], calls, in) == calls;
    if (in != nullptr) std::fclose(in);
    unlink(counts_path);
    if (!ok) error = "the counting run wrote no counts";
    return ok;
}

// ---- One heap --------------------------------------------------------------------------------

// Samples the heap's shape over a run into at most `points` points.
class use_sampler : public run_observer {
  public:
    use_sampler(const trace_data &trace, std::vector<use_point> &out, std::size_t points)
        : trace_(trace), out_(out),
          step_(std::max<std::size_t>(1, (trace.calls.size() + points - 1) / points)) {}
    void after_call(std::size_t index, heap &h) override {
        heap_shape s;
        if (!h.shape(s)) return;
        if (index % step_ == 0) out_.push_back({index, 0, 0, UINT64_MAX, UINT64_MAX});
        use_point &p = out_.back();
        p.call = index;
        p.live = std::max(p.live, trace_.live_after[index]);
        p.used = std::max(p.used, s.used);
        p.free = std::min(p.free, s.free);
        p.largest = std::min(p.largest, s.largest);
    }

  private:
    const trace_data &trace_;
    std::vector<use_point> &out_;
    std::size_t step_;
};

heap_report measure(const options &o, const std::string &spec, const trace_data &trace,
                    const std::string &host_counts_problem) {
    heap_report r;
    r.spec = spec;
    std::string error;
    std::unique_ptr<heap> h = make_heap(spec, o.heaps, error);
    if (!h) {
        r.name = spec;
        r.error = error;
        return r;
    }
    r.name = h->name();
    r.note = h->note();
    std::fprintf(stderr, "tlsf-replay: %s ...\n", r.name.c_str());
    r.size = find_smallest(*h, trace);
    const bool bisected = h->how_sized() == sizing::bisect;
    const bool found = r.size.state == size_result::status::found;
    if (found && bisected) {
        // The worst moment: just before the call that fails one unit below.
        if (r.size.binding_call != no_call) {
            const run_result before = run_trace(*h, trace, r.size.smallest, r.size.binding_call);
            if (before.completed && h->map(r.moment_map)) {
                r.have_moment = true;
                r.heap_bytes = r.size.smallest;
                for (const map_block &b : r.moment_map) {
                    if (b.used) continue;
                    r.moment_free += b.size;
                    r.moment_largest = std::max(r.moment_largest, b.size);
                }
                r.moment_request = trace.calls[r.size.binding_call].size;
            }
        }
        use_sampler sampler(trace, r.use, 2000);
        run_trace(*h, trace, r.size.smallest, no_call, &sampler);
    }

    if (!o.counts) {
        r.counts_note = "(not counted)";
    } else if (r.size.state == size_result::status::does_not_fit ||
               r.size.state == size_result::status::error) {
        r.counts_note = "(does not fit)";
    } else if (h->counts_in_process()) {
        if (count_run(*h, trace, bisected ? r.size.smallest : 0, r.count_values, error))
            r.counts = summarize_counts(r.count_values);
        else
            r.counts_note = "(" + error + ")";
    } else if (!host_counts_problem.empty()) {
        r.counts_note = "(" + host_counts_problem + ")";
    } else {
        h.reset(); // the worker loads its own copy (a peer cannot share the process)
        if (count_under_valgrind(o, spec, bisected ? r.size.smallest : 0, trace.calls.size(),
                                 r.count_values, error))
            r.counts = summarize_counts(r.count_values);
        else
            r.counts_note = "(" + error + ")";
    }
    return r;
}

int run_fixed_heap(const options &o, const trace_data &trace) {
    const std::string spec = o.specs.empty() ? "tlsf" : o.specs.front();
    std::string error;
    std::unique_ptr<heap> h = make_heap(spec, o.heaps, error);
    if (!h) {
        std::fprintf(stderr, "tlsf-replay: %s\n", error.c_str());
        return exit_usage;
    }
    const run_result run = run_trace(*h, trace, o.fixed_heap);
    if (!run.error.empty()) {
        std::fprintf(stderr, "tlsf-replay: %s: %s\n", h->name().c_str(), run.error.c_str());
        return exit_usage;
    }
    if (run.completed) {
        std::printf("%s: the trace fits in %llu bytes\n", h->name().c_str(),
                    static_cast<unsigned long long>(o.fixed_heap));
        return exit_ok;
    }
    if (run.failed_call == no_call)
        std::printf("%s: a heap of %llu bytes cannot be made\n", h->name().c_str(),
                    static_cast<unsigned long long>(o.fixed_heap));
    else
        std::printf("%s: the trace does not fit in %llu bytes: call #%zu %s fails\n",
                    h->name().c_str(), static_cast<unsigned long long>(o.fixed_heap),
                    run.failed_call + 1, describe_call(trace, run.failed_call).c_str());
    return exit_no_fit;
}

} // namespace

int main(int argc, char **argv) {
    options o;
    if (!parse_options(argc, argv, o)) {
        usage(stderr);
        return exit_usage;
    }
    if (o.worker_check_counter) {
        std::string report;
        const bool exact = check_counter(report);
        std::printf("%s\n", report.c_str());
        return exact ? exit_ok : exit_usage;
    }
    if (o.check_counter) {
        const std::string problem = why_no_host_counts();
        if (!problem.empty()) {
            std::printf("no host instruction counts: %s\n", problem.c_str());
            return exit_usage;
        }
        const int status = spawn_worker({"--worker-check-counter"});
        std::printf("%s\n", status == 0 ? "counts are exact" : "counts are NOT exact");
        return status == 0 ? exit_ok : exit_usage;
    }
    {
        struct stat info;
        if (stat(o.trace_path.c_str(), &info) != 0) {
            std::fprintf(stderr, "tlsf-replay: %s: %s\n", o.trace_path.c_str(),
                         std::strerror(errno));
            return exit_usage;
        }
    }
    trace_data trace;
    std::string error;
    if (!load_trace(o.trace_path, trace, error)) {
        std::fprintf(stderr, "tlsf-replay: %s\n", error.c_str());
        return exit_bad_trace;
    }
    if (!o.worker_spec.empty()) return run_worker(o, trace);
    if (!o.curve_path.empty() && !write_curve(o.curve_path, trace)) {
        std::fprintf(stderr, "tlsf-replay: cannot write %s\n", o.curve_path.c_str());
        return exit_usage;
    }
    if (o.fixed_heap != 0) return run_fixed_heap(o, trace);

    if (!o.specs_given) {
        for (const char *spec : kDefaultHeaps) {
            if (heap_available(spec, o.heaps)) o.specs.push_back(spec);
        }
    }
    const std::string host_problem = o.counts ? why_no_host_counts() : "";
    std::vector<heap_report> rows;
    for (const std::string &spec : o.specs) {
        rows.push_back(measure(o, spec, trace, host_problem));
        if (o.specs_given && !rows.back().error.empty()) {
            std::fprintf(stderr, "tlsf-replay: %s\n", rows.back().error.c_str());
            return exit_usage;
        }
    }

    print_report(stdout, trace, rows);
    if (!o.csv_path.empty() && !write_csv(o.csv_path, trace, rows)) {
        std::fprintf(stderr, "tlsf-replay: cannot write %s\n", o.csv_path.c_str());
        return exit_usage;
    }
    if (!o.out_dir.empty()) {
        std::string note;
        if (!write_pictures(o.out_dir, trace, rows, note)) {
            std::fprintf(stderr, "tlsf-replay: cannot write into %s\n", o.out_dir.c_str());
            return exit_usage;
        }
        if (!note.empty()) std::fprintf(stderr, "tlsf-replay: %s\n", note.c_str());
    }

    // A trace no fixed heap can hold is the answer "none": say so in the status too.
    bool any_sized = false, any_fits = false;
    for (const heap_report &r : rows) {
        if (r.size.state == size_result::status::found) any_fits = true;
        if (r.size.state == size_result::status::found ||
            r.size.state == size_result::status::does_not_fit)
            any_sized = true;
    }
    if (any_sized && !any_fits) {
        std::fprintf(stderr,
                     "tlsf-replay: the trace needs more memory than any candidate heap (the "
                     "largest tried: --max-heap %llu)\n",
                     static_cast<unsigned long long>(o.heaps.max_heap));
        return exit_no_fit;
    }
    return exit_ok;
}
