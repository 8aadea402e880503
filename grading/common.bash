# common.bash: what the grading scripts share that needs no bats: reading the
# programs' records, choosing and reading thresholds. Sourced by lib.bash
# (the tests) and by calibrate.

GRADING_DIR=${GRADING_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}

# The thresholds file for a GPU: a calibrated one for its name if there is one,
# else the defaults. GRADE_THRESHOLDS overrides both.
thresholds_file() {
    local gpu=$1 slug
    if [ -n "${GRADE_THRESHOLDS:-}" ]; then
        echo "$GRADE_THRESHOLDS"
        return
    fi
    slug=$(gpu_slug "$gpu")
    if [ -f "$GRADING_DIR/thresholds/$slug.conf" ]; then
        echo "$GRADING_DIR/thresholds/$slug.conf"
    else
        echo "$GRADING_DIR/thresholds.conf"
    fi
}

# "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3": a file name for a GPU.
gpu_slug() {
    tr '[:upper:]' '[:lower:]' <<<"$1" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g'
}

# threshold FILE STEP METRIC: the required value, or nothing if the file sets none.
threshold() {
    awk -v step="$2" -v metric="$3" '!/^[ \t]*#/ && $1 == step && $2 == metric { print $3; exit }' "$1"
}

# record_field RECORD KEY: the value of key=value in one tab-separated record.
record_field() {
    awk -F'\t' -v key="$2" '{ for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit } }' <<<"$1"
}

# at_least VALUE MIN: true if VALUE >= MIN (decimal numbers).
at_least() {
    awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }'
}

# threshold_or_default FILE STEP METRIC: "VALUE FILE" -- the value FILE sets,
# or, where a calibrated FILE lacks that step's metric (a file written before
# the metric existed, or by `make calibrate --step` for other steps), the
# default from thresholds.conf; nothing if neither sets one.
threshold_or_default() {
    local value defaults="$GRADING_DIR/thresholds.conf"
    value=$(threshold "$1" "$2" "$3")
    if [ -n "$value" ]; then
        echo "$value $1"
    elif [ "$1" != "$defaults" ] && [ -f "$defaults" ]; then
        value=$(threshold "$defaults" "$2" "$3")
        [ -z "$value" ] || echo "$value $defaults"
    fi
}
