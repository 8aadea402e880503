# manifest.awk: the one reader of steps.conf (the step manifest: its header
# says what it holds). Every script and Makefile asks it, never the file:
#
#   awk -f manifest.awk steps.conf                          the steps' folders, in order
#   awk -f manifest.awk -v step=08-cascaded steps.conf      that step's fields: "key<TAB>value" lines
#   awk -f manifest.awk -v step=08-cascaded -v key=track steps.conf
#                                                           one field's value (nothing if unset)
#   awk -f manifest.awk -v step=08 -v key=folder steps.conf "08-cascaded": a step may be
#                                                           named by its number
#
# Exit status: 0; 3 when the step has no entry; 2 when the file is malformed
# (the line and what is wrong go to stderr).

function malformed(why) {
    printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
    bad = 1
    exit 2
}

# The key=value fields of text, a line or the rest of one, into the current step.
function fields(text,    k, v, q) {
    while (text != "") {
        sub(/^[ \t]+/, "", text)
        if (text == "" || text ~ /^#/) return
        if (!match(text, /^[a-z_]+=/)) malformed("expected key=value, found: " substr(text, 1, 40))
        k = substr(text, 1, RLENGTH - 1)
        text = substr(text, RLENGTH + 1)
        if (substr(text, 1, 1) == "\"") {
            q = index(substr(text, 2), "\"")
            if (!q) malformed("no closing quote for " k)
            v = substr(text, 2, q - 1)
            text = substr(text, q + 2)
            if (text != "" && text !~ /^[ \t]/) malformed("a space must follow the closing quote of " k)
        } else {
            match(text, /^[^ \t]*/)
            v = substr(text, 1, RLENGTH)
            text = substr(text, RLENGTH + 1)
        }
        if ((current, k) in value) malformed(k " given twice for " current)
        value[current, k] = v
        keys[current] = keys[current] " " k
    }
}

/^[ \t]*(#|$)/ { next }
/^[^ \t]/ {
    current = $1
    if (current !~ /^[0-9][0-9]-[A-Za-z0-9_-]+$/) malformed("a step's folder is NN-name: " current)
    if (current in known) malformed(current " has two entries")
    known[current] = 1
    order[++count] = current
    number = substr(current, 1, 2)
    if (number in by_number) malformed("step " number " has two entries: " by_number[number] " and " current)
    by_number[number] = current
    fields(substr($0, length(current) + 1))
    next
}
{
    if (current == "") malformed("an indented line before the first step")
    fields($0)
}

END {
    if (bad) exit 2
    if (step == "") {
        for (i = 1; i <= count; i++) print order[i]
        exit 0
    }
    if (step in by_number) step = by_number[step]
    if (!(step in known)) exit 3
    if (key == "folder") {
        print step
        exit 0
    }
    if (key != "") {
        if ((step, key) in value) print value[step, key]
        exit 0
    }
    n = split(keys[step], k, " ")
    print "folder\t" step
    for (i = 1; i <= n; i++) print k[i] "\t" value[step, k[i]]
}
