# SPDX-License-Identifier: MIT
# plot_m4_age.gp - heap age on a Cortex-M4: the cost of operator new and delete against the
# number of free blocks in the heap, as the live set grows and fragments (app_age.cpp).
#
#   gnuplot -e "dir='DIR'" scripts/plot_m4_age.gp
# reads DIR/m4-age-{nano,full,tlsf,heap4}.dat (tlsf_m4_app --age --data DIR; a missing
# heap is left out) and writes DIR/m4-age.png. Solid: mean per call; dashed: the longest.
if (!exists("dir")) dir = "."
heaps = "nano full tlsf heap4"
titles = "newlib-nano full-newlib TLSF FreeRTOS-heap_4"
file(h) = sprintf("%s/m4-age-%s.dat", dir, h)
exists_file(f) = system(sprintf("test -f '%s' && echo 1 || echo 0", f)) + 0
data(i) = exists_file(file(word(heaps, i))) ? file(word(heaps, i)) : NaN

set terminal pngcairo size 1400,560 font ",11" noenhanced
set output sprintf("%s/m4-age.png", dir)
set multiplot layout 1,2 title "Cortex-M4 heap age: instructions per call against free blocks (8 MiB heap)"
set logscale y
set grid
set xlabel "free blocks in the heap"
set ylabel "instructions per call"
set key top left
set title "operator new"
plot for [i = 1:words(heaps)] data(i) using 2:4 with linespoints lw 2 lc i title word(titles, i)." mean", \
     for [i = 1:words(heaps)] data(i) using 2:5 with lines dt 2 lc i title word(titles, i)." max"
set title "operator delete"
plot for [i = 1:words(heaps)] data(i) using 2:6 with linespoints lw 2 lc i title word(titles, i)." mean", \
     for [i = 1:words(heaps)] data(i) using 2:7 with lines dt 2 lc i title word(titles, i)." max"
unset multiplot
