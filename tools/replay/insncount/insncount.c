/* SPDX-License-Identifier: MIT */
/*
 * insncount.c - a valgrind tool that counts the guest instructions a program executes and
 * lets the program read the count: tlsf-replay reads it before and after each heap call, so
 * each call's count is exact and the same on every run (tools/replay/README.md, "Counting").
 *
 * Why a tool of our own: the host has no usable hardware counter here (a VM), single-stepping
 * with the trap flag costs microseconds per instruction, and callgrind sums costs per
 * function, not per call. Valgrind translates the program into its IR anyway; this tool adds
 * one counter update per run of instructions: the number of instruction marks since the last
 * update is added before every side exit of a superblock and at its end, so the counter is
 * exact at every instruction boundary the program can observe. An instruction counts once
 * per execution, a `rep`-prefixed string instruction once per iteration (as callgrind's Ir).
 *
 * Client request (see tools/replay/insncount.h): INSNCOUNT_READ returns the count.
 * Built by tools/replay/CMakeLists.txt against the static libraries of Debian's valgrind
 * package, and run as `valgrind --tool=insncount` with VALGRIND_LIB pointing to a directory
 * holding it beside valgrind's own files.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"

#define INSNCOUNT_TOOL_SIDE 1
#include "insncount.h"

/* Instructions executed so far, by all threads (valgrind runs one at a time). */
static ULong executed;

/* Add `count` to the counter: load, add, store, in the superblock being built. */
static void add_count(IRSB *out, ULong count) {
    IRTemp before = newIRTemp(out->tyenv, Ity_I64);
    IRTemp after = newIRTemp(out->tyenv, Ity_I64);
    IRExpr *address = mkIRExpr_HWord((HWord)&executed);
    addStmtToIRSB(out, IRStmt_WrTmp(before, IRExpr_Load(Iend_LE, Ity_I64, address)));
    addStmtToIRSB(out, IRStmt_WrTmp(after, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(before),
                                                        IRExpr_Const(IRConst_U64(count)))));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, address, IRExpr_RdTmp(after)));
}

static IRSB *count_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                              const VexGuestExtents *extents, const VexArchInfo *host,
                              IRType guest_word, IRType host_word) {
    IRSB *out = deepCopyIRSBExceptStmts(in);
    ULong pending = 0;
    Int k;
    (void)closure;
    (void)layout;
    (void)extents;
    (void)host;
    (void)host_word;
    if (guest_word != host_word) VG_(tool_panic)("insncount: guest and host word sizes differ");
    for (k = 0; k < in->stmts_used; ++k) {
        IRStmt *statement = in->stmts[k];
        if (statement == NULL) continue;
        if (statement->tag == Ist_IMark) ++pending;
        /* A side exit leaves after the instruction it belongs to: count up to it first. */
        if (statement->tag == Ist_Exit && pending > 0) {
            add_count(out, pending);
            pending = 0;
        }
        addStmtToIRSB(out, statement);
    }
    if (pending > 0) add_count(out, pending);
    return out;
}

static Bool count_client_request(ThreadId thread, UWord *arguments, UWord *result) {
    (void)thread;
    if (arguments[0] != INSNCOUNT_READ) return False;
    *result = (UWord)executed;
    return True;
}

static void count_post_options(void) {
}

static void count_fini(Int exit_code) {
    (void)exit_code;
}

static void count_pre_options(void) {
    VG_(details_name)("insncount");
    VG_(details_version)(NULL);
    VG_(details_description)("guest instructions, read by the program (tlsf-replay)");
    VG_(details_copyright_author)("SPDX-License-Identifier: MIT");
    VG_(details_bug_reports_to)("the TLSF project");
    VG_(basic_tool_funcs)(count_post_options, count_instrument, count_fini);
    VG_(needs_client_requests)(count_client_request);
}

VG_DETERMINE_INTERFACE_VERSION(count_pre_options)
