#!/usr/bin/env bash
# plot.sh PROGRESSION.tsv OUT.svg|OUT.png: the progression as a picture, with
# gnuplot. A panel per track: each kernel's rate as a bar (on the scale its
# track's file declares: plot_scale), the ceiling measured with it as a dashed
# line, the GPU and the date in the title. Called by bench.sh.
set -u
tsv=${1:?usage: plot.sh PROGRESSION.tsv OUT.svg}
out=${2:?usage: plot.sh PROGRESSION.tsv OUT.svg}
command -v gnuplot >/dev/null || { echo "plot: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
source "$(dirname "$0")/manifest.bash"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The tracks, in the table's order.
tracks=$(awk -F'\t' 'NR > 1 && !seen[$3]++ { print $3 }' "$tsv")
[ -n "$tracks" ] || { echo "plot: no rows in $tsv" >&2; exit 1; }
# One data file per track: a short name for the bar, the rate; and the ceiling.
for track in $tracks; do
    awk -F'\t' -v t="$track" -v dir="$work" 'NR > 1 && $3 == t {
        if ($6 == "ceiling") { print $11 > (dir "/" t ".ceiling"); next }
        name = $6 == "first" ? "track start" : substr($4, 1, 2) ($6 == "beyond" ? " beyond" : $6 == "library" ? " " $5 : "")
        printf "\"%s\"\t%s\n", name, $11 > (dir "/" t ".dat")
        unit = $12; size = $8
    }
    END { if (unit != "") print unit "\t" size > (dir "/" t ".unit") }' "$tsv"
done
for track in $tracks; do
    [ -s "$work/$track.dat" ] || { echo "plot: no $track rows in $tsv" >&2; exit 1; }
    [ -s "$work/$track.ceiling" ] || { echo "plot: no ceiling row for $track in $tsv" >&2; exit 1; }
done
title=$(awk -F'\t' 'NR == 2 { print $1 ", " $2; exit }' "$tsv")
case $out in
*.png) terminal="pngcairo size 1400,600 font 'sans,11'"
       gnuplot -e "set terminal pngcairo" >/dev/null 2>&1 || terminal="png size 1400,600" ;;
*) terminal="svg size 1400,600 dynamic font 'sans,11'" ;;
esac

panel() {  # panel TRACK: its title, scale and ceiling's name from its file's facts
    local track=$1 label name ceiling unit size count size_unit
    label="$(track_fact "$track" title), $(track_fact "$track" size_symbol) ="
    name=$(track_fact "$track" ceiling_label)
    size_unit=$(track_fact "$track" size_unit)
    ceiling=$(cat "$work/$track.ceiling")
    read -r unit size <"$work/$track.unit"
    label="$label $size${size_unit:+ $size_unit}"
    count=$(wc -l <"$work/$track.dat")
    cat <<GNUPLOT
set title "$label"
$([ "$(track_fact "$track" plot_scale)" = log ] && echo "set logscale y; set yrange [*:$ceiling * 8]" || echo "unset logscale y; set yrange [0:$ceiling * 1.3]")
set ylabel "$unit"
set xrange [-0.6:$count - 0.4]
plot "$work/$track.dat" using 0:2:xtic(1) with boxes fill solid 0.75 border -1 lc rgb "#4477aa" title "measured", \\
     "$work/$track.dat" using 0:2:(sprintf("%.0f", \$2)) with labels offset 0,0.8 font ",9" notitle, \\
     $ceiling with lines dt 2 lw 2 lc rgb "#cc3311" title "$name (measured in the same runs)"
GNUPLOT
}

{
    echo "set terminal $terminal"
    echo "set output '$out'"
    echo "set multiplot layout 1,$(wc -w <<<"$tracks") title 'The progression on $title (make bench)'"
    echo "set boxwidth 0.7; set grid ytics; set key top left Left reverse; set xtics rotate by -30 font ',9'"
    for track in $tracks; do panel "$track"; done
    echo "unset multiplot"
} >"$work/plot.gp"
gnuplot "$work/plot.gp"
