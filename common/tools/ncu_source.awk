# ncu_source.awk: reading Nsight Compute's source page, per line of CUDA C
# (ncu --import REPORT --page source --csv --print-source cuda,sass), for make
# explain (common/tools/explain.sh) and the grader's pointers to a line
# (grading/explain.bash). Load it after ncu_csv.awk, whose split_csv it uses:
#
#   awk -v file=PATH [-v lesson=METRIC] -f ncu_csv.awk -f ncu_source.awk PAGE
#
# The page (as ncu 2025.3 prints it) is a block per source file
# of each profiled launch: a "File Path" row, a "Function Name" row, a header,
# then each line of CUDA C that has instructions ("Line No" and its text, with
# the sums of its instructions) followed by those instructions ("Address" and
# the SASS, each with its own figures; ncu lists some of them twice, and rows
# of "..." between them). Every figure here is summed from the instructions,
# each counted once per launch: the sums ncu prints on a line's own row add
# up its per-instruction averages too, which mean nothing summed.
#
# Variables:
#   file    the file whose lines are reported: a block is that file's when
#           its path is `file`, or, when no block's path is, when its path
#           ends in /NAME with NAME the name of `file`
#   lesson  (optional) the lesson test's metric (steps.conf lesson_metric,
#           "a+b/c"): each line's part of its numerator, as key `lesson`;
#           the denominator (per block, per request) does not change which
#           lines account for it
#
# Output, tab-separated:
#   line<TAB>N<TAB>key=value...   each line of `file` that ran instructions
#   total<TAB>key=value...        the same sums over every line of every file
#   lesson_unmapped<TAB>METRIC    a term of `lesson` with no per-line figure
# Keys (counts summed over the profiled launches):
#   inst            warp-level instructions executed
#   busy            thread-level instructions executed with the predicate on
#   div_branches    divergent branches
#   g_ld, g_st      global loads and stores executed (warp-level)
#   sectors, sectors_ideal   32-byte sectors the global accesses moved, and
#                   what they would move if perfectly coalesced
#   worst_spr, worst_ideal_spr   for the global instruction with the most
#                   sectors beyond the ideal: sectors per request, and ideal
#   wavefronts, wavefronts_ideal   shared-memory wavefronts, and the ideal
#   nway            the worst bank conflict of one shared instruction (N-way)
#   mem_req         warp-level memory accesses made by at least one thread
#                   (shared accesses of 4 bytes or less: their ideal
#                   wavefronts, one per such access; others: executed)
#   mem_busy        threads that made them (predicate on)
#   mem_instr       the line's memory instructions (in one launch; the most
#                   of any launch): one warp-level access each is the least
#                   a block that runs the line at all can make
#   lesson          the line's part of the lesson counter (with `lesson`)
#   text            the line itself, as ncu read it (last: it may hold "=")

# The per-line figure for each metric a lesson may count: "op:quantity",
# op one of global_ld, global_st, shared_ld, shared_st, any.
BEGIN {
    per_line["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = "global_ld:sectors"
    per_line["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = "global_st:sectors"
    per_line["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = "global_ld:inst"
    per_line["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] = "global_st:inst"
    per_line["smsp__sass_inst_executed_op_global_ld.sum"] = "global_ld:inst"
    per_line["smsp__sass_inst_executed_op_global_st.sum"] = "global_st:inst"
    per_line["smsp__sass_inst_executed_op_shared_ld.sum"] = "shared_ld:requests"
    per_line["smsp__sass_inst_executed_op_shared_st.sum"] = "shared_st:requests"
    per_line["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = "shared_ld:excess"
    per_line["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] = "shared_st:excess"
    per_line["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = "shared_ld:wavefronts"
    per_line["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] = "shared_st:wavefronts"
    per_line["smsp__inst_executed.sum"] = "any:inst"
    # The same work done by other instructions (atomics, reductions, copies
    # to shared memory), which a lesson counts too: no line is shown for
    # them (no kind below is theirs), and a line's share of the counter is
    # its loads' and stores'.
    split("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum " \
          "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum " \
          "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum " \
          "smsp__sass_inst_executed_op_shared_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum " \
          "smsp__sass_inst_executed_op_global_atom.sum smsp__sass_inst_executed_op_global_red.sum " \
          "smsp__sass_inst_executed_op_shared_stsm.sum smsp__sass_inst_executed_op_ldsm.sum " \
          "smsp__sass_inst_executed_op_ldgsts.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum " \
          "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum " \
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum " \
          "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum", other, " ")
    for (o in other) per_line[other[o]] = "other:none"
    terms = 0
    if (lesson != "") {
        numerator = lesson
        sub(/\/.*/, "", numerator)
        n = split(numerator, term, "+")
        for (t = 1; t <= n; t++) {
            sub(/^\?/, "", term[t])  # a term counted where the GPU has it
            if (term[t] == "") continue
            if (term[t] in per_line) lesson_term[++terms] = per_line[term[t]]
            else unmapped[term[t]] = 1
        }
    }
    name = file
    sub(/.*\//, "", name)
    KEYS = "inst busy div_branches g_ld g_st sectors sectors_ideal wavefronts wavefronts_ideal mem_req mem_busy lesson"
    nkeys = split(KEYS, key, " ")
}

function number(column,    v) {
    if (!(column in col)) return 0
    v = f[col[column]]
    gsub(/,/, "", v)
    return v + 0
}

function add(where, k, v) {
    sum[where, k] += v
    sum["total", k] += v
}

/^"File Path"/ { split_csv($0, f); path = f[2]; block++; seen_path[path] = 1; next }
/^"Function Name"/ { next }
/^"Line No"/ {
    n = split_csv($0, h)
    delete col
    for (i = 1; i <= n; i++) if (!(h[i] in col)) col[h[i]] = i
    next
}
block > 0 {
    split_csv($0, f)
    if (f[1] != "") {  # a line of CUDA C: its instructions follow
        src_line = f[1]
        # Its text, whole: ncu leaves quotes inside it as they are, which
        # split_csv cannot know; the row goes on with "-","-" (no address).
        rest = $0
        sub(/^"[0-9]+","/, "", rest)
        i = index(rest, "\",\"-\",\"-\",")
        line_text[path, src_line] = i > 0 ? substr(rest, 1, i - 1) : f[2]
        gsub(/\t/, " ", line_text[path, src_line])
        next
    }
    if (f[3] !~ /^0x/) next                   # "..." between instructions
    once = block SUBSEP src_line SUBSEP f[3]
    if (once in counted) next                 # listed again
    counted[once] = 1
    where = path SUBSEP src_line
    ran[where] = 1

    executed = number("Instructions Executed")
    on = number("Predicated-On Thread Instructions Executed")
    space = f[col["Address Space"]]
    op = f[col["Access Operation"]]
    size = number("Access Size")
    add(where, "inst", executed)
    add(where, "busy", on)
    add(where, "div_branches", number("Divergent Branches"))

    kind = ""
    if (space == "Global" && op == "Load") kind = "global_ld"
    else if (space == "Global" && op == "Store") kind = "global_st"
    else if (space == "Shared" && op == "Load") kind = "shared_ld"
    else if (space == "Shared" && op == "Store") kind = "shared_st"
    requests = executed
    excess = 0
    s = 0
    w = 0
    if (space == "Global") {
        if (kind == "global_ld") add(where, "g_ld", executed)
        if (kind == "global_st") add(where, "g_st", executed)
        s = number("L2 Theoretical Sectors Global")
        si = number("L2 Theoretical Sectors Global Ideal")
        add(where, "sectors", s)
        add(where, "sectors_ideal", si)
        if (executed > 0 && s - si > worst_excess[where]) {
            worst_excess[where] = s - si
            worst_spr[where] = s / executed
            worst_ideal_spr[where] = si / executed
        }
    }
    if (space == "Shared") {
        w = number("L1 Wavefronts Shared")
        wi = number("L1 Wavefronts Shared Ideal")
        excess = w - wi
        add(where, "wavefronts", w)
        add(where, "wavefronts_ideal", wi)
        if (number("L1 Conflicts Shared N-Way") > nway[where]) nway[where] = number("L1 Conflicts Shared N-Way")
        if (size > 0 && size <= 32) requests = wi  # one ideal wavefront per access some thread made
    }
    if (space == "Global" || space == "Shared") {
        add(where, "mem_req", requests)
        add(where, "mem_busy", on)
        if (++mem_instr_in[block, where] > mem_instr[where]) mem_instr[where] = mem_instr_in[block, where]
    }
    for (t = 1; t <= terms; t++) {
        split(lesson_term[t], part, ":")
        if (part[1] != "any" && part[1] != kind) continue
        if (part[2] == "inst") add(where, "lesson", executed)
        else if (part[2] == "sectors") add(where, "lesson", s)
        else if (part[2] == "requests") add(where, "lesson", requests)
        else if (part[2] == "excess") add(where, "lesson", excess)
        else if (part[2] == "wavefronts") add(where, "lesson", w)
    }
}

function record(where,    out, k) {
    out = ""
    for (k = 1; k <= nkeys; k++) out = out "\t" key[k] "=" (sum[where, key[k]] + 0)
    return out
}

END {
    mine = ""
    if (file in seen_path) mine = file
    else for (p in seen_path) if (p == name || substr(p, length(p) - length(name)) == "/" name) mine = p
    n = 0
    for (where in ran) {  # this file's lines, in order
        split(where, at, SUBSEP)
        if (at[1] != mine) continue
        mine_line[++n] = at[2] + 0
        for (i = n; i > 1 && mine_line[i] < mine_line[i - 1]; i--) {
            t = mine_line[i]; mine_line[i] = mine_line[i - 1]; mine_line[i - 1] = t
        }
    }
    for (i = 1; i <= n; i++) {
        where = mine SUBSEP mine_line[i]
        printf "line\t%d%s\tworst_spr=%.2f\tworst_ideal_spr=%.2f\tnway=%d\tmem_instr=%d\ttext=%s\n", mine_line[i], record(where),
            worst_spr[where], worst_ideal_spr[where], nway[where], mem_instr[where], line_text[where]
    }
    printf "total%s\n", record("total")
    for (m in unmapped) printf "lesson_unmapped\t%s\n", m
}
