# records.awk: the one reader of the programs' --machine records, for every
# script that reads them (the grader, bench.sh, readme-figures.sh). A record
# is a line "kind<TAB>key=value<TAB>key=value...": kind is device, check,
# time, summary, audit, launch or finding; the device record names the step
# and its track (matmul or reduction).
#
# Load it before a program's own rules, with tabs as the separator:
#
#   awk -F'\t' -f common/records.awk -f <(cat <<'AWK' ... AWK) bench.log
#
# or alone, for one field of one record:
#
#   awk -F'\t' -v get=x_start -f common/records.awk <<<"$record"

# field(name): the value of key=value `name` in the current record; "" if absent.
function field(name,    i) {
    for (i = 2; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
    return ""
}

# The track of each step, from its device record: track_of[step].
$1 == "device" { track_of[field("step")] = field("track") }

get != "" { print field(get); exit }
