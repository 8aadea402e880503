# track-facts.awk: a track's facts, read from its C file without a build.
#   awk -f common/tools/track-facts.awk common/tracks/matmul/matmul.cu
# prints them as the program's --facts does: one `track` record (kind, tab,
# key=value fields; records.awk reads it). With -v key=KEY, the value of
# that one fact alone ("" where the track has none). The facts are the string
# TRACK_FACTS of the track's file, a "key=value\t" piece a line:
#   static const char TRACK_FACTS[] =
#       "name=matmul\t"
#       "title=Matrix multiplication\t";
# Exit status 1, with a message, for a file that declares none.
/^static const char TRACK_FACTS\[\] =/ { inside = 1; next }
inside && /^[ \t]*"/ {
    line = $0
    sub(/^[ \t]*"/, "", line)
    sub(/\\t"[ \t]*;?[ \t]*$/, "", line)
    facts = facts "\t" line
}
inside && /;[ \t]*$/ { inside = 0; found = 1 }
END {
    if (!found) {
        print FILENAME ": no TRACK_FACTS: a track's file declares its facts (see common/tools/track-facts.awk)" > "/dev/stderr"
        exit 1
    }
    if (key == "") {
        print "track" facts
        exit
    }
    n = split(substr(facts, 2), fields, "\t")
    for (i = 1; i <= n; i++)
        if (index(fields[i], key "=") == 1) {
            print substr(fields[i], length(key) + 2)
            exit
        }
    print ""
}
