# census.awk: the launch audit's census, judged (reduction.cu, census()).
#   awk -f census.awk CENSUS_FILE INITCHECK_LOG
# CENSUS_FILE is the program's: for each round (a call of the plan on an
# input with holes), a record -- round=, n=, base= (the input's address),
# holes=, per_thread= -- then a line "hole INDEX" for each hole. The log is
# compute-sanitizer initcheck's of the same run: every read of a hole is one
# report, with its size, the thread and block that made it, and its address.
# Counted per thread, over every round, the distinct elements of the input
# it was seen to read: the holes it read (a vector read is reported with its
# whole width, and each hole in it counts). A thread of a level reads its
# per_thread elements and no more. Counted per block too, the distinct
# slices of the input (per_thread x block elements each, the block's share)
# whose holes it read: a block reads its own share, or per_thread elements a
# thread one grid apart, so at most per_thread slices; a block that sums
# several blocks' shares, whichever of its threads reads which element,
# reads more. Prints one line:
#   census<TAB>holes=H<TAB>read=R<TAB>threads=T<TAB>over=K[<TAB>first=BLOCK/THREAD<TAB>most=M]
#         <TAB>blocks_over=J[<TAB>block=BLOCK<TAB>slices=S<TAB>share=ELEMENTS][<TAB>overflow=yes]
# and exits 0 when every hole of every round was read (R = H: no read was
# hidden from initcheck), no thread read more than per_thread of them
# (K = 0), no block read holes of more than per_thread slices (J = 0), and
# initcheck dropped no report (it keeps 256 a launch, and
# a call has a quarter as many holes: a kernel that reads them more often
# than that hides whose reads they were); 1 when not; 2 when the census or
# the log is missing or malformed; 3 when initcheck counted errors but none
# of its reports reads as a read of an address (a log in another form).
function hex(s,    v, i) {
    s = tolower(s)
    sub(/^0x/, "", s)
    if (s == "" || s ~ /[^0-9a-f]/) return -1
    v = 0
    for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return v
}
function field(name,    i) {
    for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
    return ""
}
FNR == 1 { file++ }
file == 1 && $1 == "hole" { if (rounds) { hole[rounds, $2 + 0] = 1; listed++ }; next }
file == 1 && $1 == "census" {
    rounds++
    base[rounds] = hex(field("base")); n = field("n") + 0; per_thread = field("per_thread") + 0
    share = per_thread * field("block")
    holes += field("holes") + 0
    if (base[rounds] < 0 || n <= 0 || per_thread <= 0 || share <= 0) bad = 1
    next
}
file == 1 { next }
# The report's lines, each led by "=========": its kind and size, where,
# who, and the address.
/Uninitialized __global__ memory read of size [0-9]+ bytes/ {
    match($0, /of size [0-9]+ bytes/)
    size = substr($0, RSTART + 8, RLENGTH - 14) + 0
    who = ""
    next
}
/by thread \([0-9,]+\) in block \([0-9,]+\)/ {
    match($0, /thread \([0-9,]+\)/); thread = substr($0, RSTART + 8, RLENGTH - 9)
    match($0, /block \([0-9,]+\)/); block = substr($0, RSTART + 7, RLENGTH - 8)
    who = block "/" thread
    next
}
/Address 0x[0-9a-fA-F]+/ && who != "" && size > 0 {
    match($0, /0x[0-9a-fA-F]+/)
    address = hex(substr($0, RSTART, RLENGTH))
    reports++
    for (r = 1; r <= rounds; r++) {
        if (address < base[r] || address >= base[r] + 4 * n) continue
        for (w = int((address - base[r]) / 4); w <= int((address + size - 1 - base[r]) / 4) && w < n; w++) {
            if (!((r, w) in hole)) continue
            slice = int(w / share)
            if (!((block, slice) in touched)) { touched[block, slice] = 1; slices[block]++ }
            if (!((who, w) in seen)) {
                seen[who, w] = 1
                if (!(who in count)) threads++
                count[who]++
            }
            if (!((r, w) in read)) { read[r, w] = 1; reads++ }
        }
    }
    who = ""; size = 0
    next
}
/errors were skipped|[Ee]rror buffer overflow/ { overflow = 1 }
/ERROR SUMMARY: [0-9]+ error/ { summary = 1; match($0, /SUMMARY: [0-9]+/); errors = substr($0, RSTART + 9, RLENGTH - 9) + 0 }
END {
    if (!rounds || bad || listed != holes || !summary) {
        print "census\tmalformed" (rounds && !bad && listed == holes ? "" : " census") (summary ? "" : " initcheck log")
        exit 2
    }
    # Errors counted, but no report read as a read of a hole: the log is not
    # in the form this census reads (another compute-sanitizer's?).
    if (errors > 0 && reports == 0) {
        print "census\tunread\terrors=" errors
        exit 3
    }
    over = 0; most = 0; first = ""
    for (t in count)
        if (count[t] > per_thread) {
            over++
            if (count[t] > most || (count[t] == most && t < first)) { most = count[t]; first = t }
        }
    blocks_over = 0; widest = 0; wide = ""
    for (b in slices)
        if (slices[b] > per_thread) {
            blocks_over++
            if (slices[b] > widest || (slices[b] == widest && b < wide)) { widest = slices[b]; wide = b }
        }
    line = sprintf("census\tholes=%d\tread=%d\tthreads=%d\tover=%d", holes, reads, threads, over)
    if (over) line = line sprintf("\tfirst=%s\tmost=%d", first, most)
    line = line sprintf("\tblocks_over=%d", blocks_over)
    if (blocks_over) line = line sprintf("\tblock=%s\tslices=%d\tshare=%d", wide, widest, share)
    if (overflow) line = line "\toverflow=yes"
    print line
    exit (over == 0 && blocks_over == 0 && reads == holes && !overflow) ? 0 : 1
}
