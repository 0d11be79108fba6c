# SPDX-License-Identifier: MIT
# plot_replay.gp - the pictures of tlsf-replay --out DIR (tools/replay/README.md):
#   DIR/use.png   heap use over the trace in the smallest heap of the first TLSF heap: bytes
#                 live (requested), used (blocks with their headers), free, and the largest
#                 free block; the worst moment marked
#   DIR/map.png   that heap at the worst moment: its bytes wrapped into rows, blocks in use
#                 and free
#   DIR/ccdf.png  instructions per call of every heap counted: the fraction of calls that take
#                 at least x instructions
# tlsf-replay runs it with the variables it knows (dir, trace, use_heap, worst_call, map_heap,
# map_width, map_title, curves, t1..tN); a file that is missing is skipped.
if (!exists("dir")) dir = "."
if (!exists("trace")) trace = "trace"
if (!exists("curves")) curves = 0
have(f) = system(sprintf("test -s '%s/%s' && echo 1 || echo 0", dir, f)) + 0
base = system(sprintf("basename '%s'", trace))

set terminal pngcairo size 1000,500 font "sans,9" noenhanced
# One colour per heap (up to 12); the Cortex-M4 heaps' curves are dashed.
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #000000 #aec7e8"
color(i) = word(colors, (i - 1) % words(colors) + 1)
dash(i) = strstrt(value(sprintf("t%d", i)), "m4 ") == 1 ? 2 : 1
set grid

if (have("use.dat")) {
    set output sprintf("%s/use.png", dir)
    set title sprintf("%s: heap use over the calls (%s)", base, use_heap)
    set xlabel "call"
    set ylabel "bytes"
    set format y "%.1b %BB"
    set autoscale xfix
    set key outside bottom center horizontal
    if (exists("worst_call")) {
        set arrow 1 from worst_call, graph 0 to worst_call, graph 1 nohead dt 2 lc rgb "#c00000"
        set label 1 "worst moment" at worst_call, graph 0.95 right offset -0.5,0 tc rgb "#c00000"
    }
    plot sprintf("%s/use.dat", dir) using 1:2 with lines lw 2 lc rgb "#1f77b4" title "live (requested)", \
         ''                         using 1:3 with lines lw 1 lc rgb "#2ca02c" title "used (with headers)", \
         ''                         using 1:4 with lines lw 1 lc rgb "#ff7f0e" title "free", \
         ''                         using 1:5 with lines lw 1 lc rgb "#d62728" title "largest free block"
    unset arrow 1
    unset label 1
    set format y "%g"
    set autoscale x
    set key default
}

if (have("map.dat")) {
    set output sprintf("%s/map.png", dir)
    set title sprintf("%s: heap map at the worst moment (%s), %s", base, map_heap, map_title)
    set xlabel sprintf("byte within the row (%d bytes per row)", map_width)
    set ylabel "row (address / row size)"
    set yrange [63.5:-0.5]
    set xrange [0:map_width]
    set key outside bottom center horizontal
    set style fill solid 1.0 noborder
    plot sprintf("%s/map.dat", dir) using ($5 == 1 ? $1 : NaN):2:3:4 with boxxyerror lc rgb "#1f77b4" title "in use", \
         ''                         using ($5 == 0 ? $1 : NaN):2:3:4 with boxxyerror lc rgb "#ffbf66" title "free"
    unset yrange
    unset xrange
    set key default
}

if (curves > 0) {
    set output sprintf("%s/ccdf.png", dir)
    set title sprintf("%s: instructions per call (fraction of calls taking at least x)", base)
    set xlabel "instructions"
    set ylabel "fraction of calls"
    set logscale xy
    set format y "%.0e"
    set key top right
    plot for [i = 1:curves] sprintf("%s/ccdf-%d.dat", dir, i) using 1:2 with steps lw 2 \
        lc rgb color(i) dt dash(i) title value(sprintf("t%d", i))
    unset logscale
}
