# SPDX-License-Identifier: MIT
# plot_m4_calls.gp - the cost of every operator new and delete of one Cortex-M4 perft run
# per heap, as a complementary CDF (the fraction of calls that took at least x
# instructions; a heap whose tail reaches far right has calls that took that long).
#
#   gnuplot -e "dir='DIR'; mode='everything'" scripts/plot_m4_calls.gp
# reads DIR/m4-calls-MODE-{nano,full,tlsf,heap4}.dat (tlsf_m4_app --perft --data DIR;
# a missing heap is left out) and writes DIR/m4-calls-MODE.png.
if (!exists("dir")) dir = "."
if (!exists("mode")) mode = "everything"
heaps = "nano full tlsf heap4"
titles = "newlib-nano full-newlib TLSF FreeRTOS-heap_4"
file(h) = sprintf("%s/m4-calls-%s-%s.dat", dir, mode, h)
exists_file(f) = system(sprintf("test -f '%s' && echo 1 || echo 0", f)) + 0

set terminal pngcairo size 1400,560 font ",11" noenhanced
set output sprintf("%s/m4-calls-%s.png", dir, mode)
set multiplot layout 1,2 title sprintf("Cortex-M4 perft, table %s: instructions per call, every call (CCDF)", mode)
set logscale xy
set grid
set xlabel "instructions in one call (x)"
set ylabel "fraction of calls taking >= x"
set key top right
do for [part = 0:1] {
    set title (part == 0 ? "operator new" : "operator delete")
    plot for [i = 1:words(heaps)] (exists_file(file(word(heaps, i))) ? file(word(heaps, i)) : NaN) \
        index part using 1:2 with steps lw 2 title word(titles, i)
}
unset multiplot
