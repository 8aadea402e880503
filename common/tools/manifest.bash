# manifest.bash: the step manifest (steps.conf) for the workbook's scripts,
# through its one reader, common/tools/manifest.awk. Sourced; defines functions only.
# MANIFEST names another manifest (the tests use one).

MANIFEST_READER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/manifest.awk"
: "${MANIFEST:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/steps.conf}"

# The steps' folders, in the manifest's order.
manifest_steps() {
    awk -f "$MANIFEST_READER" "$MANIFEST"
}

# step_field STEP KEY: one field of a step's entry (STEP: its folder or its
# number); nothing when the entry does not set it. Status 3: no such step.
step_field() {
    awk -f "$MANIFEST_READER" -v step="$1" -v key="$2" "$MANIFEST"
}

# step_folder STEP: the folder of a step named by its number (or folder);
# status 1 and nothing if the manifest has no such step.
step_folder() {
    local folder
    folder=$(step_field "$1" folder 2>/dev/null)
    [ -n "$folder" ] && echo "$folder"
}

# step_points STEP TEST: what a step's test is worth (its points= field);
# nothing if the step has no such test.
step_points() {
    step_field "$1" points | tr ' ' '\n' | awk -F= -v test="$2" '$1 == test { print $2 }'
}

# step_numbers: the steps' numbers, space-separated ("01 02 ... 08").
step_numbers() {
    manifest_steps | cut -c1-2 | paste -sd' ' -
}

# track_fact TRACK KEY: one fact of a track, as its file declares it
# (TRACK_FACTS in common/tracks/TRACK/TRACK.cu, read by
# common/tools/track-facts.awk); nothing where the track has no such fact.
# Status 1, with a message: no such track.
track_fact() {
    local file
    file="$(dirname "$MANIFEST_READER")/../tracks/$1/$1.cu"
    [ -n "$1" ] && [ -f "$file" ] || { echo "no track '$1': a track is a folder common/tracks/NAME whose NAME.cu declares its TRACK_FACTS" >&2; return 1; }
    awk -v key="$2" -f "$(dirname "$MANIFEST_READER")/track-facts.awk" "$file"
}

# step_fact STEP KEY: a fact of the step's track.
step_fact() {
    track_fact "$(step_field "$1" track)" "$2"
}

# track_records: every track's facts, a `track` record each (records.awk
# reads them: fact(track, key)), for a script reading a log that may predate
# the programs' own track records.
track_records() {
    local dir file
    for dir in "$(dirname "$MANIFEST_READER")"/../tracks/*/; do
        file=$dir$(basename "$dir").cu
        [ -f "$file" ] && grep -q '^static const char TRACK_FACTS\[\] =' "$file" &&
            awk -f "$(dirname "$MANIFEST_READER")/track-facts.awk" "$file"
    done
}
