# records.awk: the one reader of the programs' --machine records, for every
# script that reads them (the grader, bench.sh, readme-figures.sh). A record
# is a line "kind<TAB>key=value<TAB>key=value...": kind is device, check,
# time, summary, audit, launch, finding, lock (--gpu-lock: a wait for the GPU
# alone, and its hold) or track; the device record names
# the step and its track, and the track record that follows it gives the
# track's facts (what its file declares: common/tools/track-facts.awk).
#
# Load it before a program's own rules, with tabs as the separator:
#
#   awk -F'\t' -f common/tools/records.awk -f <(cat <<'AWK' ... AWK) bench.log
#
# or alone, for one field of one record:
#
#   awk -F'\t' -v get=x_start -f common/tools/records.awk <<<"$record"

# field(name): the value of key=value `name` in the current record; "" if absent.
function field(name,    i) {
    for (i = 2; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
    return ""
}

# The track of each step, from its device record: track_of[step].
$1 == "device" { track_of[field("step")] = field("track") }

# The facts of each track, from its track record: fact(track, key).
$1 == "track" { for (fact_i = 2; fact_i <= NF; fact_i++) facts[field("name"), substr($fact_i, 1, index($fact_i, "=") - 1)] = substr($fact_i, index($fact_i, "=") + 1) }
function fact(track, key) { return facts[track, key] }

get != "" { print field(get); exit }
