# ncu_csv.awk: reading Nsight Compute's raw CSV page (--csv --page raw), for
# make profile (common/tools/profile.sh) and the grader's lesson test
# (grading/lib.bash), which load it with awk -f before their own program.
# The page is a header, a row of units, then a row per launch, every field
# in double quotes (numbers with thousands separators).

# split_csv(LINE, FIELDS): the fields of one row, unquoted; returns their count.
function split_csv(line, fields,    n, rest, m) {
    n = 0
    rest = line
    while (length(rest) > 0) {
        if (match(rest, /^"[^"]*"/)) { m = substr(rest, 2, RLENGTH - 2); rest = substr(rest, RLENGTH + 1) }
        else if (match(rest, /^[^,]*/)) { m = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1) }
        fields[++n] = m
        if (substr(rest, 1, 1) == ",") rest = substr(rest, 2); else break
    }
    return n
}
