# SPDX-License-Identifier: MIT
# plot_bench.gp - pictures of the host benchmark results (gnuplot 5.4, no X needed).
#
#   gnuplot -e "results='build/bench/results'" scripts/plot_bench.gp
#
# Reads what scripts/bench.sh wrote into `results` and writes, next to it:
#   ratios_c_api.png  ratios_stl.png  ratios_chess.png
#       time relative to libc per workload and allocator (log scale; below 1 is faster)
#   latency_ccdf.png  for workload 2, the fraction of single mallocs and frees slower
#       than a given time, per allocator (log-log: the tail is what real time cares about)
#   latency_ops.png   every single malloc and free of workload 2, in order, per allocator
#   seed_workload.png the seed workload's allocation and free phases (avg, min..max)
# A missing input file skips its picture.

if (!exists("results")) results = "build/bench/results"
file_exists(f) = system("test -r '" . f . "' && echo 1 || echo 0") + 0

set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 1200,600 font "sans,10" noenhanced
set grid ytics
set key outside right top

# ---- throughput ratios -------------------------------------------------------------
# One colour per allocator, the same in every picture (gnuplot's own cycle repeats after
# eight): glibc grey, TLSF's blues, std::pmr's resources red and orange, the peers green,
# purple and brown.
colour(name) = \
    name eq "libc" || name eq "std::allocator" ? "#7f7f7f" : \
    name eq "tlsf" || name eq "tlsf::allocator" ? "#1f77b4" : \
    name eq "tlsf-slab" || name eq "tlsf::allocator(slabs)" ? "#6baed6" : \
    name eq "tlsf::allocator(default)" ? "#08306b" : \
    name eq "pmr(tlsf)" ? "#c6dbef" : \
    name eq "pmr(new_delete)" ? "#d9d9d9" : \
    name eq "pmr(pool)" ? "#d62728" : \
    name eq "pmr(monotonic)" ? "#ff9f4a" : \
    name eq "jemalloc" ? "#2ca02c" : \
    name eq "mimalloc" ? "#9467bd" : \
    name eq "tcmalloc" ? "#8c564b" : \
    name eq "scudo" ? "#bcbd22" : "#e377c2"
do for [group in "c_api stl chess"] {
    f = results . "/ratios_" . group . ".csv"
    if (file_exists(f)) {
        stats f using 2 nooutput
        columns = STATS_columns
        names = system("head -1 '" . f . "' | tr ',' ' '")
        set output results . "/ratios_" . group . ".png"
        set title "Time relative to libc (" . group . "), median CPU time of the repetitions; below 1 = faster than libc"
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.85 border -1
        set boxwidth 0.9
        set logscale y 2
        set yrange [0.0625:16]
        set ylabel "time / libc time"
        set xtics rotate by -30
        plot for [i=2:columns] f using i:xtic(1) title columnhead(i) lc rgb colour(word(names, i)), \
             1 with lines lc rgb "black" dt 2 notitle
        unset logscale y
        unset xtics
        set xtics
        set yrange [*:*]
        unset ylabel
    }
}

# ---- latency distribution ------------------------------------------------------------
f = results . "/latency_ccdf.csv"
if (file_exists(f)) {
    stats f using 1 nooutput
    columns = STATS_columns
    set output results . "/latency_ccdf.png"
    set multiplot layout 1,2 title "Workload 2, each call timed alone (min of 3 passes, timer cost and resolution in latency.txt): fraction of calls slower than x"
    set logscale xy
    set xlabel "latency (ns)"
    set ylabel "fraction of calls slower"
    set key inside top right
    set grid xtics ytics
    set title "malloc"
    plot for [i=2:columns:2] f using i:1 with steps lw 2 title columnhead(i)
    set title "free"
    plot for [i=3:columns:2] f using i:1 with steps lw 2 title columnhead(i)
    unset multiplot
    unset logscale
    unset xlabel
    unset ylabel
    set key outside right top
}

# ---- every call, in order -------------------------------------------------------------
ops = system("ls " . results . "/latency_ops_*.csv 2>/dev/null")
if (words(ops) > 0) {
    set terminal pngcairo size 1400,(220 * words(ops)) font "sans,9" noenhanced
    set output results . "/latency_ops.png"
    set multiplot layout words(ops),2 title "Workload 2: every malloc and free in order (ns, log scale, min of 3 passes)"
    set logscale y
    set yrange [5:20000]
    set key inside top right
    set xlabel "operation"
    do for [k=1:words(ops)] {
        name = word(ops, k)
        label = name[strstrt(name, "latency_ops_") + 12 : strlen(name) - 4]
        set title label . " malloc"
        plot name using 1:2 with dots lc rgb "#1f77b4" notitle
        set title label . " free"
        plot name using 1:3 with dots lc rgb "#d62728" notitle
    }
    unset multiplot
    unset logscale
    set yrange [*:*]
    unset xlabel
    set terminal pngcairo size 1200,600 font "sans,10" noenhanced
}

# ---- seed workload --------------------------------------------------------------------
f = results . "/seed_workload.csv"
if (file_exists(f)) {
    set output results . "/seed_workload.png"
    set multiplot layout 1,2 title "Seed workload (600 buffers, free all but 10): average with min..max over 100 rounds"
    set style fill solid 0.7 border -1
    set ylabel "microseconds (log scale)"
    set logscale y
    set xtics rotate by -30
    set title "allocation phase"
    plot f every 2 using 0:4:5:6:(0.6):xtic(1) with boxerrorbars lc rgb "#1f77b4" notitle
    set title "free phase"
    plot f every 2::1 using 0:4:5:6:(0.6):xtic(1) with boxerrorbars lc rgb "#d62728" notitle
    unset multiplot
}
