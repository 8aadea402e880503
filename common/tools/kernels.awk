# kernels.awk: what a learner's module holds, read from the PTX nvcc wrote
# for it (one file per virtual architecture, all given at once), for the
# step's program and its planner (plan.h). One line each:
#
#   kernel<TAB>name=MANGLED<TAB>params=SIZE:ALIGN,...   a kernel, its parameters in order
#   global<TAB>name=NAME<TAB>bytes=N<TAB>space=global[<TAB>text=yes]
#                                                     a __device__ (space=global) or __constant__
#                                                     (space=const) variable; text=yes: bytes
#                                                     initialized as text (an assert's name)
#   text<TAB>name=$str<TAB>bytes=N                     a printf's format, which the program
#                                                     leaves alone
#   hidden<TAB>name=NAME<TAB>function=FUNCTION         a .global or .const declared inside a
#                                                     function (inline PTX), or named as printf's
#                                                     text without being text: memory that no
#                                                     copy between launches can find (the
#                                                     program refuses it)
#   op<TAB>name=FUNCTION<TAB>family=shfl<TAB>instruction=shfl.sync.down.b32[<TAB>where=FILE.cu:42]
#                                                     a function that uses an instruction of a
#                                                     family a step's lesson may leave out
#                                                     (steps.conf lesson_forbids): each family
#                                                     once a function, its first instruction,
#                                                     and the source line it came from where
#                                                     the PTX says (-lineinfo); after the rest
#                                                     of its file's lines
#   feeds<TAB>name=FUNCTION<TAB>family=atomic<TAB>instruction=red.global.add.u32
#                                                     a function that uses an instruction whose
#                                                     work only some of a lesson's counters see
#                                                     (its ?terms, steps.conf): family atomic
#                                                     (atom, red, multimem, mbarrier, in any
#                                                     memory), cp.async, cp.async.bulk (the
#                                                     TMA's), ldmatrix or stmatrix (wmma.load
#                                                     and wmma.store too); or call: a call of
#                                                     a function whose body the module does not
#                                                     hold before it (printf's vprintf, malloc,
#                                                     assert's __assertfail) or through a
#                                                     pointer, whose instructions no one can
#                                                     read here. A call of a helper brings the
#                                                     helper's families to its caller. Each
#                                                     family once a function.
#   unfenced<TAB>name=FUNCTION<TAB>instruction=atom.global.add.u32
#                                                     a function that takes a ticket with a global
#                                                     atomic after a store and loads after it,
#                                                     with no fence (see ticket_watch)
#   clock<TAB>name=FUNCTION<TAB>register=%clock64      a function that reads a clock, the SM's or the
#                                                     warp slot's id, the launch's (%gridid), the
#                                                     shared memory a tool may take (%total_smem_size,
#                                                     %aggr_smem_size) or a
#                                                     performance counter, or keeps memory between
#                                                     launches (register=malloc; FUNCTION is the
#                                                     last one started, or empty before the first)
#
# The kernels come from the first file (every architecture has the same);
# the variables and the clocks from all of them, each once, since code for
# one architecture may declare a variable or read a clock that another's
# does not (#if __CUDA_ARCH__).
#
#   awk -f kernels.awk build/keep/*.ptx > build/PROGRAM.kernels

function type_size(t) {
    if (t ~ /^\.(u8|s8|b8)$/) return 1
    if (t ~ /^\.(u16|s16|b16|f16|bf16)$/) return 2
    if (t ~ /^\.(u32|s32|b32|f32|f16x2|bf16x2)$/) return 4
    if (t ~ /^\.(u64|s64|b64|f64)$/) return 8
    if (t == ".b128") return 16
    return 0
}

# "NAME[16]" -> 16; "NAME" -> 1.
function count_of(word,    open) {
    open = index(word, "[")
    return open ? substr(word, open + 1, length(word) - open - 1) + 0 : 1
}

# A .b8 array initialized with characters (no byte 0 but at its end):
# text, such as the name of the function an assert() reports (__unnamed_1)
# or a printf's format ($str), not room for a kernel's data.
function text_bytes(line,    init, count, k, v, ended) {
    if (line !~ /\.b8[ \t]/ || !match(line, /=[ \t]*\{[0-9, \t]*\}/)) return 0
    init = substr(line, RSTART, RLENGTH)
    gsub(/[={} \t]/, "", init)
    count = split(init, v, ",")
    for (k = 1; k <= count; k++) {
        if (v[k] + 0 == 0) ended = 1
        else if (ended || v[k] + 0 > 255) return 0
    }
    return count > 0 && !(count == 1 && ended)
}

# A name with what may follow it on the line ("table[64]", "n,", "x;").
function name_word(word) {
    sub(/[,;].*/, "", word)
    return word
}

function name_of(word) {
    sub(/\[.*/, "", word)
    sub(/[,;(].*/, "", word)
    return word
}

# The size and alignment of a declaration's words from position `from`:
# [.align A] [.v2|.v4|.v8] .TYPE [.ptr [.global] [.align A]] NAME[N]; sets
# decl_name. A type it does not know gives "" and still sets decl_name (the
# first word past the directives), so that the variable is named, and
# refused, rather than missed.
function declared(from,    i, align, size, t, pointer, lanes) {
    align = 0
    lanes = 1
    decl_name = ""
    for (i = from; i <= NF; i++) {
        if ($i == ".ptr") pointer = 1  # its .align is the pointee's, not the parameter's
        if ($i == ".align") { if (!pointer) align = $(i + 1) + 0; i++; continue }
        if ($i ~ /^\.v(2|4|8)$/) { lanes = substr($i, 3) + 0; continue }  # a vector: its lanes side by side
        if ((size = type_size($i)) > 0) { t = i; break }
    }
    if (!t) {
        for (i = from; i <= NF && ($i ~ /^\./ || $i ~ /^[0-9]+$/); i++) ;
        if (i <= NF) decl_name = name_of($i)
        return ""
    }
    for (i = t + 1; i <= NF && $i ~ /^\./; i++)  # .ptr .global .align 4 ...
        if ($i == ".align") i++
    size *= lanes * count_of(name_word($i))
    if (!align) align = lanes * type_size($t)
    decl_name = name_of($i)
    return size ":" align
}

FNR == 1 { ops_out(); file++; depth = 0; in_comment = 0 }

# Where the code comes from: .loc FILE LINE before the instructions of a
# line of source, and .file FILE "PATH" (at the end of the PTX) naming it.
# A function inlined from a header (an intrinsic's) has .locs of its own,
# inlined_at the call: the last .loc that is not inlined is the line of the
# function being read, where the call is. The op records wait for the
# file's end, where the paths are known.
/^[ \t]*\.loc[ \t]/ && !/inlined_at/ { loc = $2 ":" $3 }
/^[ \t]*\.file[ \t]+[0-9]+[ \t]+"/ {
    path = $0
    sub(/^[^"]*"/, "", path)
    sub(/".*/, "", path)
    sub(/.*\//, "", path)
    source_file[$2] = path
}
function op_record(name, family, instruction) {
    op_pending[++op_count] = "op\tname=" name "\tfamily=" family "\tinstruction=" instruction
    op_loc[op_count] = loc
}
function ops_out(    k, where, f) {
    for (k = 1; k <= op_count; k++) {
        where = ""
        if (op_loc[k] != "") {
            split(op_loc[k], f, ":")
            if (f[1] in source_file) where = "\twhere=" source_file[f[1]] ":" f[2]
        }
        print op_pending[k] where
    }
    op_count = 0
    loc = ""
    split("", source_file)
}

# A line as ptxas reads it: comments left out, a block comment across lines
# too, and each string emptied (a .file line holds the source's path, whose
# folders may be named anything: a student called "free"). Read left to
# right, as ptxas does, so that a quote inside a comment opens no string and
# a comment's mark inside a string opens no comment: whatever the order of
# the two, the code between them is seen.
function code_of(line,    out, i, j, c) {
    if (!in_comment && line !~ /["\/]/) return line
    out = ""
    i = 1
    while (i <= length(line)) {
        if (in_comment) {
            j = index(substr(line, i), "*/")
            if (!j) return out
            i += j + 1
            in_comment = 0
            out = out " "
            continue
        }
        c = substr(line, i, 2)
        if (c == "//") return out
        if (c == "/*") { in_comment = 1; i += 2; continue }
        c = substr(line, i, 1)
        if (c == "\"") {
            j = index(substr(line, i + 1), "\"")
            out = out "\"\""
            if (!j) return out
            i += j + 1
            continue
        }
        out = out c
        i++
    }
    return out
}

# How deep in braces the line starts (0: file scope; a function's body and
# the blocks in it are deeper); a variable's initializer opens and closes
# its braces on its own line. A carriage return, form feed or vertical tab
# is white space to ptxas, as a space is: so it is here, before any rule
# reads the line.
{
    gsub(/[\r\f\v]/, " ")
    at = depth
    code = code_of($0)
    # ptxas reads a line's end as a space: a guard's @ at a line's end with
    # its predicate on the next line, or an opcode alone at a line's end
    # with its modifiers on the next (red / .global.add.u32), is one
    # statement. (Blank lines between them, and comments, are nothing.)
    if (guard != "") { code = guard code; guard = "" }
    if (opcarry != "" && code !~ /^[ \t]*$/) { code = opcarry " " code; opcarry = "" }
    # So is a declaration whose words go on past the line's end (.global,
    # then .align 4 .u32 x; on the next line).
    if (declcarry != "" && code !~ /^[ \t]*$/) { code = declcarry " " code; declcarry = "" }
    if (match(code, /(^|[;{}])[ \t]*(\.(visible|weak|extern)[ \t]+)?\.(global|const)([ \t][^;]*)?$/)) {
        if (substr(code, RSTART, 1) ~ /[;{}]/) RSTART++
        declcarry = substr(code, RSTART)
        code = substr(code, 1, RSTART - 1)
    }
    if (match(code, /@[ \t]*!?[ \t]*$/)) { guard = substr(code, RSTART); code = substr(code, 1, RSTART - 1) }
    else if (match(code, /(^|[;{}])[ \t]*([A-Za-z_$%][A-Za-z0-9_$]*:[ \t]*)*(@[ \t]*!?[ \t]*[A-Za-z0-9_$%]+[ \t]+)?[a-z][a-z0-9_]*(\.[A-Za-z0-9_:]+)*[ \t]*$/)) {
        if (substr(code, RSTART, 1) ~ /[;{}]/) RSTART++
        opcarry = opcarry substr(code, RSTART)
        code = substr(code, 1, RSTART - 1)
    }
    depth += gsub(/\{/, "{", code) - gsub(/\}/, "}", code)
}

# A function starts: a kernel (.entry) or a device function (.func), at
# file scope, as ptxas reads the line: a ".func" that a comment began
# (inline PTX's "/*", then ".func */ red.global..." on the next line) starts
# nothing, and the instructions after it are read as any others.
at == 0 && code ~ /^[ \t]*(\.visible[ \t]+|\.weak[ \t]+)?\.(entry|func)([ \t(]|$)/ {
    unfenced_verdict()
    loc = ""
    # The name follows .entry or .func, past a .func's return parameters
    # in parentheses: ".func (.param .b32 func_retval0) _Z4warpi(".
    line = code
    sub(/^.*\.(entry|func)[ \t]*/, "", line)
    if (line ~ /^\(/) sub(/^\([^)]*\)[ \t]*/, "", line)
    sub(/[ \t(;].*/, "", line)
    current = (line != "" ? line : "(unnamed)")
    body_size[current] = 0
    in_params = (code ~ /\.entry/ && file == 1)
    in_entry = (code ~ /\.entry/)
    params = ""
    if (in_params && code ~ /\)[ \t]*$/) { in_params = 0; print "kernel\tname=" current "\tparams=" }
    next
}

in_params && /^[ \t]*\.param/ {
    p = declared(2)
    if (p != "") params = params (params ? "," : "") p
    if ($0 !~ /,[ \t]*$/) { print "kernel\tname=" current "\tparams=" params; in_params = 0 }
    next
}

in_params && /^[ \t]*\)/ { print "kernel\tname=" current "\tparams=" params; in_params = 0; next }

# A variable of the module's: .global or .const, each declaration read from
# its own statement, wherever it stands on a line (inline PTX can close its
# function's body with a brace and declare one after it). At file scope, a
# global record; inside a function (only inline PTX declares one there), a
# hidden one, which the program refuses. The strings device printf keeps
# ($str, $str$1, ...) are text, left out; a variable named so that is not
# text is as good as hidden (no reset finds it), and listed so. A line of
# declarations alone is done here; the instructions of a line that holds
# both are read by the rules below, as any line's.
function declaration(statement, depth,    saved, i, p, is_text) {
    saved = $0
    $0 = statement
    for (i = 1; i <= NF; i++) if ($i == ".global" || $i == ".const") break
    p = declared(i + 1)
    is_text = text_bytes(statement)
    # An empty string ("" in a printf) is its closing zero alone: one byte,
    # no initializer.
    if (p ~ /^1:/ && statement !~ /=/ && decl_name ~ /^\$str(\$[0-9]+)?$/) is_text = 1
    if (p == "" && decl_name != "") {  # a type no reset knows the size of: as good as hidden
        if (!((decl_name, current) in hidden))
            print "hidden\tname=" decl_name "\tfunction=" (depth > 0 ? current : "(module scope)")
        hidden[decl_name, current] = 1
    } else if (p != "" && depth > 0) {
        if (!((decl_name, current) in hidden)) print "hidden\tname=" decl_name "\tfunction=" current
        hidden[decl_name, current] = 1
    } else if (p != "" && decl_name ~ /^\$str(\$[0-9]+)?$/) {
        split(p, sa, ":")
        if (!is_text) print "hidden\tname=" decl_name "\tfunction=(module scope)"
        else if (!(decl_name in listed)) print "text\tname=" decl_name "\tbytes=" sa[1]
        listed[decl_name] = 1
    } else if (p != "" && !(decl_name in listed)) {
        listed[decl_name] = 1
        split(p, sa, ":")
        print "global\tname=" decl_name "\tbytes=" sa[1] "\tspace=" substr($i, 2) (is_text ? "\ttext=yes" : "")
    }
    $0 = saved
}
{
    declarations = 0
    statements = 0  # the line's other statements, which the rules below still read
    n_decl = split(code, decl_statement, ";")
    decl_depth = at
    for (q = 1; q <= n_decl; q++) {
        lead = decl_statement[q]
        while (match(lead, /^[ \t]*[{}]/)) {
            decl_depth += substr(lead, RSTART + RLENGTH - 1, 1) == "{" ? 1 : -1
            lead = substr(lead, RSTART + RLENGTH)
        }
        if (lead ~ /^[ \t]*(\.visible[ \t]+|\.weak[ \t]+)?\.(global|const)[ \t]/ && lead !~ /\.extern/) {
            declaration(lead ";", decl_depth)
            declarations++
        } else if (lead ~ /[^ \t]/)
            statements++
        rest = lead
        decl_depth += gsub(/\{/, "{", rest) - gsub(/\}/, "}", rest)
    }
    if (declarations && !statements) next
}

# A block that takes a ticket -- a global atomic whose old value it uses,
# as the last block of a one-pass reduction learns that it is last -- and
# then reads what the other blocks stored needs a fence between their
# stores and their tickets (__threadfence(), or an atomic that releases):
# without one the last block may read a partial sum not yet visible, a race
# in global memory that no sanitizer watches. Per function, in the order of
# its text: a ticket is an atom on global or generic memory, after a write
# there with no fence between the two, whose destination register a later
# statement reads, with a read of global or generic memory after it (a
# load, ldu, a cp.async, or an atomic whose old value is used:
# atomicAdd(p, 0)): the block stored its part, took its ticket, and (if
# last) reads the others' parts. A count taken without its old value (a
# red, or an atom whose result no statement reads) is a ticket too where a
# read that sees other blocks' writes follows it (volatile, relaxed,
# acquire, .cg, .cv, .lu, .cs, L1::no_allocate or L1::evict_*, ldu, a
# cp.async, an atomic): the count read back. A write is a store (one that
# releases, or a block's, too), an atomic that puts a value in place (exch,
# cas, or an add of anything but 1 or -1), or the TMA's copy or reduction
# into global memory. A ticket taken before anything is written (a counter
# that hands out work) needs no fence, nor one after a fence of the GPU or
# the system (membar.gl, fence.sc, fence.acq_rel or fence.release of .gpu or
# .sys) or an atomic that releases at that scope; a fence of the block's or
# the cluster's scope, an acquire, or a fence after the ticket orders
# nothing of what came before it. A read after a ticket counts only where it
# may be of a buffer written before it (base_of: the input read after a
# work queue's or a debugging counter's atomic is none). A block's own
# (.cta) atomic or load through a generic address is taken for its shared
# memory's, and is no ticket nor read, unless the
# address is made from a kernel's pointer argument (from_argument). A count
# read back by a plain load of its own address (canon_address), with a load
# after it, is a ticket too. A path that returns or jumps away ends there,
# and a branch carries the writes to its label, where they join the text's: a fence that a branch jumps over, or
# one under a guard, orders nothing for sure. A loop's way back, with
# writes not yet fenced, is followed once (second_pass): a loop that stores
# on one pass and takes its ticket on the next is seen. A device function
# called is read where it is called (call_watch). Not seen: a call through
# a function pointer, a store by one
# thread and a ticket by another with no barrier between (one stream of
# instructions is read, not threads), a race of flags with no atomic at
# all, and one buffer passed twice, written through one argument and read
# through the other. At the function's end (the next one's start, or the
# file's), one line if it has an unfenced ticket:
#   unfenced<TAB>name=FUNCTION<TAB>instruction=atom.global.add.u32
# What an address is, as far as the text says: each register that simple
# arithmetic defines (add, sub, mul, mad, shl, shr, cvt, cvta, and, or, xor,
# selp, ld.param) stands for that operation of its sources' own meanings,
# written out (def), and a copy (mov, cvta of global memory) for its
# source; a register any other instruction writes is a new value, named by
# its version. Two addresses written alike are the same address; a
# doubt makes them differ, never alike.
function canon(x) {
    if (x !~ /^%/) return x
    return (x in def) ? def[x] : x "#" (ver[x] + 0)
}
function canon_address(operands,    a) {
    a = address_of(operands)
    if (a == "") return "(none)"
    if (match(a, /[+-]/)) return canon(substr(a, 1, RSTART - 1)) substr(a, RSTART)
    return canon(a)
}
# A copy's source: its second [address], as operands of their own.
function source_of(operands) {
    if (!match(operands, /\[[^]]*\][^[]*\[/)) return operands
    return substr(operands, RSTART + RLENGTH - 1)
}
# A generic address into global memory, as far as the text says: made from a
# module variable of global memory or a kernel's pointer argument, never
# from a shared or local one.
function generic_global(operands,    c) {
    c = canon_address(operands)
    if (c ~ /cvta\.(shared|local)/) return 0
    return (base_of(c) in listed) || from_argument(address_of(operands))
}
# The [address] of an instruction's operands, without its brackets or spaces.
function address_of(operands,    a) {
    if (!match(operands, /\[[^]]*\]/)) return ""
    a = substr(operands, RSTART + 1, RLENGTH - 2)
    gsub(/[ \t]/, "", a)
    return a
}
# An address into a kernel's pointer argument (global memory; a helper's
# parameter may point to shared memory): a generic access through it is
# no block's own shared memory, whatever its scope.
function from_argument(a,    c) {
    sub(/[+-].*/, "", a)
    c = canon(a)
    return in_entry && c ~ /ld\.param\.[usb]64\[\[/ && index(c, "[" current "_param_") && c !~ /cvta\.(shared|local)/
}
function track_def(word, operands,    n, part, i, dest, value, regs) {
    n = split(operands, part, ",")
    dest = part[1]
    gsub(/[ \t;]/, "", dest)
    if (dest ~ /^\{/) {  # a vector's registers, each written anew
        regs = operands
        sub(/\}.*/, "", regs)
        gsub(/[{ \t]/, "", regs)
        n = split(regs, part, ",")
        for (i = 1; i <= n; i++) { ver[part[i]]++; delete def[part[i]] }
        return
    }
    if (dest !~ /^%[A-Za-z0-9_]+$/) return
    # A copy is its source, and so is a global address made generic or back:
    # the two name the same byte.
    if ((word ~ /^mov(\.|$)/ || word ~ /^cvta(\.to)?\.global(\.|$)/) && n == 2) {
        gsub(/[ \t;]/, "", part[2])
        if (part[2] !~ /^\{/) { def[dest] = canon(part[2]); return }
    }
    # (A value a call returns, ld.param of retval, is a new one each call.)
    # A pointer clamped to its buffer's end (min, max: a vector loop's body
    # rounded up to its alignment) is still of that buffer.
    if (word ~ /^(mov|add|sub|mul|mad|shl|shr|cvt|cvta|and|or|xor|selp|min|max|neg|not|abs|rem|div|shf|bfe|bfi|prmt|slct)(\.|$)/ || (word ~ /^ld\.param(\.|$)/ && operands !~ /retval/)) {
        value = word "["
        for (i = 2; i <= n; i++) {
            gsub(/[ \t;]/, "", part[i])
            value = value (i > 2 ? "," : "") (word ~ /^ld\.param/ ? part[i] : canon(part[i]))
        }
        value = value "]"
        if (length(value) <= 2000) { def[dest] = value; return }
    }
    ver[dest]++
    delete def[dest]
}
# A call of a device function (a __noinline__ helper) is read as if its
# body stood there: what it writes, fences, counts and reads counts for the
# caller, its registers and labels renamed apart, its returns a jump to its
# end, and the register it returns its value in (st.param func_retval0) the
# caller's that loads it (ld.param retval0): a ticket taken in a helper is
# the caller's ticket. Only a function whose body came before the call
# (nvcc writes a helper before its callers), at most sixteen calls deep. A
# call under a guard may not run: what was written before it stays written.
function call_watch(word, operands,    rest, name, dest, before, g, b, kept, f) {
    if (word ~ /^ld\.param(\.|$)/ && operands ~ /\[retval/ && returned != "") {
        dest = operands
        sub(/^[ \t]*/, "", dest)
        sub(/[ \t,].*/, "", dest)
        if (returned in ticket) ticket[dest] = ticket[returned]
        if (returned in read_back) read_back[dest] = 1
        def[dest] = canon(returned)  # (a pointer it returns points where the helper's did)
        returned = ""
        return 1  # the returned value loaded: no read of it yet
    }
    if (word ~ /^call(\.uni)?$/) { calling = 1; call_guarded = guarded; returned = ""; rest = operands }  # (a value no one loaded is gone)
    else if (calling) rest = word operands
    else return
    gsub(/\([^)]*\)/, "", rest)  # (retval0), (param0, ...) where they stand on the line
    if (!match(rest, /[A-Za-z_$][A-Za-z0-9_$]*/)) return
    name = substr(rest, RSTART, RLENGTH)
    calling = 0
    if (body_size[name] > 0) {
        for (f in FEED_FAMILIES) if ((name, f) in fed) feed(current, f, "call " name)
    } else feed(current, "call", name)
    if (body_size[name] > 0 && replaying < 16) {
        before = stored
        for (b in written) kept[b] = 1
        g = call_guarded
        replay(name)
        if (g && before) {  # a call under a guard may not run: what was written stays
            stored = 1
            for (b in kept) written[b] = 1
        }
    }
}
# note_argument: what a call is about to pass (st.param [paramK], value),
# for the helper's ld.param of its parameter K.
function note_argument(word, operands,    k, v) {
    if (word !~ /^st\.param(\.|$)/ || !match(operands, /\[param[0-9]+(\+0)?\]/)) return
    k = substr(operands, RSTART + 1, RLENGTH - 2)
    sub(/\+0$/, "", k)
    v = operands
    sub(/^[^,]*,[ \t]*/, "", v)
    gsub(/[ \t;]/, "", v)
    argument[k] = canon(v)
}
function replay(name,    k, n, w, ops, g, lbl, i, tag, end_label, saved_guarded, src, instance, dest) {
    replaying++
    instance = ++replays  # each call's labels its own
    tag = "_in" instance "_" name
    end_label = name "#" instance ":return"
    saved_guarded = guarded
    n = body_size[name]
    for (k = 1; k <= n; k++) {
        w = body_word[name, k]
        ops = body_operands[name, k]
        g = body_guarded[name, k]
        split(body_labels[name, k], lbl, " ")
        for (i in lbl) if (lbl[i] != "") join(name "#" instance ":" lbl[i])
        gsub(/%[A-Za-z0-9_]+/, "&" tag, ops)
        guarded = g
        if (w ~ /^ret(\.|$)/) { carry(end_label); if (!g) unwritten(); continue }
        if (w ~ /^bra(\.|$)/) {
            ops = body_operands[name, k]
            gsub(/[ \t;]/, "", ops)
            ops = name "#" instance ":" ops
        }
        if (w ~ /^st\.param(\.|$)/ && ops ~ /func_retval/) {
            src = ops
            sub(/^[^,]*,[ \t]*/, "", src)
            gsub(/[ \t;]/, "", src)
            returned = src
            continue
        }
        # A parameter of the helper is what its caller passed (note_argument).
        if (w ~ /^ld\.param(\.|$)/ && match(body_operands[name, k], /_param_[0-9]+(\+0)?\]/)) {
            src = substr(body_operands[name, k], RSTART + 7, RLENGTH - 8)
            sub(/\+0$/, "", src)
            dest = ops
            sub(/^[ \t]*/, "", dest)
            sub(/[ \t,].*/, "", dest)
            if (("param" src) in argument) { def[dest] = argument["param" src]; continue }
        }
        note_argument(w, ops)
        if (!call_watch(w, ops)) { ticket_watch(w, ops); track_def(w, ops) }
    }
    join(end_label)
    guarded = saved_guarded
    replaying--
}
# counts_one(word, operands): an atomic whose every value is the constant 1
# or -1 -- a counter's add, which moves no element (the destination and the
# address are no values).
function counts_one(word, operands,    n, i, part, v) {
    if (word ~ /\.(inc|dec)(\.|$)/) return 1  # its operand is where it wraps; it counts by one
    v = operands
    gsub(/\[[^]]*\]/, "", v)
    if (word ~ /^atom\./) sub(/^[ \t]*[^ \t,]*[ \t]*,/, "", v)
    n = split(v, part, ",")
    for (i = 1; i <= n; i++) {
        gsub(/[ \t;]/, "", part[i])
        if (part[i] ~ /^%/) part[i] = canon(part[i])  # a register that holds the constant
        if (part[i] != "" && part[i] !~ /^(-?1|0[xX]0*1)$/) return 0
    }
    return 1
}
function ticket_watch(word, operands,    dest, rest, reg, b) {
    # A generic access the text shows is of shared or local memory (cvta)
    # is the block's own or the thread's.
    if (word ~ /^(ld|ldu|st|atom|red)\./ && word !~ /\.(global|shared|local|param|const)(::[a-z]+)?(\.|$)/ &&
        canon_address(operands) ~ /cvta\.(shared|local)/) return
    # Between the blocks of a grid only what the GPU's scope orders counts:
    # a fence of a block's scope orders nothing for another, and a block's
    # own (.cta) atomic or load through a generic address is taken for its
    # shared memory's (libcu++'s atomic_ref at block scope); such a store
    # may still be a partial sum's.
    if (word ~ /\.cta(\.|$)/ && (word ~ /^(membar|fence)\./ || (word !~ /\.global(\.|$)/ && !from_argument(address_of(operands))))) {
        if (word ~ /^st\./) wrote(operands)
        return
    }
    # A fence of the GPU or the system orders the writes before it, and so
    # does an atomic that releases at that scope: only a write after the
    # last one can be unseen when a ticket is taken. (An atomic that only
    # acquires orders nothing before it, nor does a store that releases
    # what came before the store itself: the ticket after it may pass it.)
    # (A fence under a guard may not run: it orders nothing for sure.)
    if (!guarded && (word ~ /^membar\.(gl|sys)$/ || word ~ /^fence\.(sc|acq_rel|release)\.(gpu|sys)$/)) { unwritten(); return }
    if (word ~ /^(atom|red)\./ && word ~ /\.(release|acq_rel)(\.|$)/ && word !~ /\.(cta|cluster)(\.|$)/) { if (!guarded) unwritten(); return }
    # Paths, forward: a branch carries the writes as they are to its label,
    # where they join those of the text before it (at_label); a path that
    # returns, or jumps away, goes no further, so the text after it starts
    # with what its label's branches carry (a block alone that stores the
    # sum and leaves, after the fence, before the ticket; a fence that a
    # branch jumps over orders nothing on that path).
    if (word ~ /^bra(\.|$)/) {
        target = operands
        gsub(/[ \t;]/, "", target)
        carry(target)
        if (!guarded) unwritten()
        return
    }
    if (word ~ /^(ret|exit)(\.|$)/) { if (!guarded) unwritten(); return }
    # Every name an operand reads: a register's, with or without its %.
    rest = operands
    while (match(rest, /[%A-Za-z_$][A-Za-z0-9_$]*/)) {
        reg = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
        if (!ticket_used && (reg in ticket)) { ticket_used = 1; ticket_instruction = ticket[reg] }
        if (reg in read_back) loaded_after = loaded_fresh = 1
    }
    if (word ~ /^(ld|ldu|st)\./ && word !~ /\.(shared|local|param|const)(::[a-z]+)?(\.|$)/) {
        if (word ~ /^st\./) wrote(operands)
        else if (tickets_after_store && (reads_written(operands) || reads_count(operands))) {
            # (The others' sums are in a buffer written before the ticket;
            # the count, read back, is at its own address.)
            if (reads_written(operands)) loaded_after = 1
            # A load that reads another block's fresh write (volatile, an
            # acquire, or past the L1 or out of it: relaxed, .cg, .cv, .lu,
            # .cs, L1::no_allocate, L1::evict_*), as a count read back is.
            if (word ~ /\.(volatile|relaxed|acquire|cg|cv|lu|cs)(\.|$)/ || word ~ /\.L1::(no_allocate|evict_)/) loaded_fresh = 1
            # A plain load of the count's own address, and a load after it:
            # the count read back (through the L1, stale or not), then the
            # others' sums.
            else if (count_reread) loaded_fresh = 1
            else if (signalled && (canon_address(operands) in count_at)) count_reread = 1
        }
    }
    # The TMA's copy or reduction into global memory writes as a store does
    # (its destination the first state space); a copy from global memory
    # into shared reads it as a load does.
    if (word ~ /^cp(\.reduce)?\.async\.bulk(\.tensor\.[0-9]d)?\.global(\.|$)/) wrote(operands)
    else if (word ~ /^cp\.async\./ && word ~ /\.global(\.|$)/ && tickets_after_store && reads_written(source_of(operands))) loaded_after = loaded_fresh = 1
    if (word ~ /^(atom|red)\./ && word !~ /\.(shared|local|param)(::[a-z]+)?(\.|$)/) {
        dest = operands
        sub(/^[ \t]*/, "", dest)
        sub(/[ \t,].*/, "", dest)
        if (dest !~ /^[%A-Za-z_$][A-Za-z0-9_$]*$/) dest = ""
        # After a ticket, an atomic whose old value is used reads what is
        # in place as a load does (the others' partial sums read by
        # atomicAdd(p, 0)); a counter's add, its result unused, reads nothing.
        if (word ~ /^atom\./ && tickets_after_store && dest != "" && reads_written(operands)) read_back[dest] = 1
        if (word ~ /^atom\./ && dest != "" && stored) { ticket[dest] = word; tickets_after_store = 1 }
        # A count taken without its old value (a red, or an atom whose
        # result is never read), after a write with no fence between, is a
        # ticket too when a fresh load follows: the block reads the count
        # back (a volatile load) to learn that it is last.
        if (stored) {
            signalled = 1; tickets_after_store = 1; if (ticket_instruction == "") ticket_instruction = word
            count_at[canon_address(operands)] = 1
            for (b in written) before_ticket[b] = 1  # what was written, unfenced, when the ticket was taken
        }
        # Atomics that put a value in place write as a store does (a partial
        # sum by atomicExch, or added into place); a counter's add does not.
        if (word ~ /\.(exch|cas)(\.|$)/ || !counts_one(word, operands)) wrote(operands)
    }
}
# The writes not yet fenced on a path: carry(LABEL) takes them along a
# branch, join(LABEL) adds what the branches to LABEL brought, and
# unwritten() is a fence's (or a path's end): nothing left unfenced.
function carry(target,    b) {
    if (!stored) return
    at_label[target] = 1
    for (b in written) label_written[target, b] = 1
}
function join(label,    k, part) {
    if (!(label in at_label)) return
    stored = 1
    for (k in label_written) {
        split(k, part, SUBSEP)
        if (part[1] == label) written[part[2]] = 1
    }
}
function unwritten() {
    stored = 0
    split("", written)
}
# wrote(operands): a write to global memory, not yet fenced; its buffer is
# one whose reads after a ticket are the others' sums.
function wrote(operands) {
    stored = 1
    written[base_of(canon_address(operands))] = 1
}
# The buffer an address is in, as far as the text says: a kernel's pointer
# argument (its parameter's name), a variable of the module's (its name), or
# "?" where the address came from memory or anything the text does not
# follow. A read after a ticket counts where it may be of a buffer written
# before (the others' partial sums), not where it is plainly another (the
# input, read by a block that counted itself into a work queue or a
# debugging counter; the sum, added into by atomics, is never read).
# Arguments are taken as distinct buffers: a launch that passes one buffer
# twice, to write it through one and read it through the other, is not
# seen.
function base_of(c,    b) {
    if (match(c, /ld\.param\.[a-z0-9]+\[\[[^]]*\]\]/)) {
        b = substr(c, RSTART, RLENGTH)
        sub(/^ld\.param\.[a-z0-9]+\[\[/, "", b)
        sub(/\]\]$/, "", b)
        sub(/\+0$/, "", b)  # a struct's pointers are buffers of their own: p+8 is not p
        return b
    }
    if (match(c, /(^|[[,])[A-Za-z_$][A-Za-z0-9_$]*([],]|$)/)) {
        b = substr(c, RSTART, RLENGTH)
        gsub(/[],[]/, "", b)
        return b
    }
    return "?"
}
function reads_count(operands) {
    return canon_address(operands) in count_at
}
function reads_written(operands,    b) {
    b = base_of(canon_address(operands))
    return b == "?" || ("?" in before_ticket) || (b in before_ticket)
}
# second_pass(EDGE): a loop's way back, read once more: from the loop's
# label to the function's end, as the next pass of the loop and then the
# text after it run, with the writes not yet fenced when the way back was
# taken, and no ticket yet. A ticket on that pass, and a read of what the
# last one wrote (a loop that stores on one pass and takes its ticket on the
# next, whether it reads the others' sums in the loop or after it), is an
# unfenced ticket as on any path. Whatever else the pass learns is
# forgotten. No pass inside a pass, nor inside a helper's replay.
function second_pass(edge,    k, lbl, i, w, ops, tag, target, found, found_instruction, carried, n_carried, fenced_after,
                     s_written, s_ticket, s_read_back, s_count_at, s_before, s_at_label, s_label_written, s_def, s_ver, s_argument,
                     s_stored, s_tas, s_used, s_instruction, s_after, s_signalled, s_fresh, s_reread, s_calling, s_returned, s_guarded) {
    if (replaying) return
    for (k in written) s_written[k] = written[k]
    for (k in ticket) s_ticket[k] = ticket[k]
    for (k in read_back) s_read_back[k] = read_back[k]
    for (k in count_at) s_count_at[k] = count_at[k]
    for (k in before_ticket) s_before[k] = before_ticket[k]
    for (k in at_label) s_at_label[k] = at_label[k]
    for (k in label_written) s_label_written[k] = label_written[k]
    for (k in def) s_def[k] = def[k]
    for (k in ver) s_ver[k] = ver[k]
    for (k in argument) s_argument[k] = argument[k]
    s_stored = stored; s_tas = tickets_after_store; s_used = ticket_used; s_instruction = ticket_instruction
    s_after = loaded_after; s_signalled = signalled; s_fresh = loaded_fresh; s_reread = count_reread
    s_calling = calling; s_returned = returned; s_guarded = guarded
    # The next pass begins: the writes carried, no ticket taken in it yet.
    split("", ticket); split("", read_back); split("", count_at); split("", before_ticket); split("", written)
    n_carried = split(back_written[edge], carried, SUBSEP)
    for (k = 1; k <= n_carried; k++) if (carried[k] != "") written[carried[k]] = 1
    stored = 1
    tickets_after_store = 0; ticket_used = 0; ticket_instruction = ""; loaded_after = 0
    signalled = 0; loaded_fresh = 0; count_reread = 0; calling = 0; returned = ""
    tag = "pass" edge ":"
    replaying++
    for (k = back_from[edge]; k <= fn_n; k++) {
        split(fn_labels[k], lbl, " ")
        for (i in lbl) if (lbl[i] != "") join(tag lbl[i])
        w = fn_word[k]
        ops = fn_operands[k]
        guarded = fn_guarded[k]
        if (w ~ /^bra(\.|$)/) { target = ops; gsub(/[ \t;]/, "", target); ops = tag target }
        # A fence after this pass's ticket, then an atomic whose old value is
        # kept: a ticket taken with every write fenced, which is what the
        # reads after it wait for (a work queue's ticket in the loop, then a
        # fenced last block after it), not the loop's.
        if (ticket_used && !guarded && (w ~ /^membar\.(gl|sys)$/ || w ~ /^fence\.(sc|acq_rel|release)\.(gpu|sys)$/)) fenced_after = 1
        if (fenced_after && w ~ /^atom\./ && ops ~ /^[ \t]*%/) {
            split("", ticket); split("", read_back); split("", before_ticket)
            tickets_after_store = 0; ticket_used = 0; loaded_after = 0; signalled = 0; loaded_fresh = 0; fenced_after = 0
        }
        note_argument(w, ops)
        if (!call_watch(w, ops)) { ticket_watch(w, ops); track_def(w, ops) }
    }
    replaying--
    found = (ticket_used && loaded_after) || (signalled && loaded_fresh)
    found_instruction = ticket_instruction
    split("", written); for (k in s_written) written[k] = s_written[k]
    split("", ticket); for (k in s_ticket) ticket[k] = s_ticket[k]
    split("", read_back); for (k in s_read_back) read_back[k] = s_read_back[k]
    split("", count_at); for (k in s_count_at) count_at[k] = s_count_at[k]
    split("", before_ticket); for (k in s_before) before_ticket[k] = s_before[k]
    split("", at_label); for (k in s_at_label) at_label[k] = s_at_label[k]
    split("", label_written); for (k in s_label_written) label_written[k] = s_label_written[k]
    split("", def); for (k in s_def) def[k] = s_def[k]
    split("", ver); for (k in s_ver) ver[k] = s_ver[k]
    split("", argument); for (k in s_argument) argument[k] = s_argument[k]
    stored = s_stored; tickets_after_store = s_tas; ticket_used = s_used; ticket_instruction = s_instruction
    loaded_after = s_after; signalled = s_signalled; loaded_fresh = s_fresh; count_reread = s_reread
    calling = s_calling; returned = s_returned; guarded = s_guarded
    return found ? found_instruction : ""
}
function unfenced_verdict(    e, loop_instruction) {
    loop_instruction = ""
    for (e = 1; e <= back_edges && loop_instruction == ""; e++) loop_instruction = second_pass(e)
    if (current != "" && ((ticket_used && loaded_after) || (signalled && loaded_fresh)))
        print "unfenced\tname=" current "\tinstruction=" ticket_instruction
    else if (current != "" && loop_instruction != "")
        print "unfenced\tname=" current "\tinstruction=" loop_instruction
    fn_n = 0; split("", label_at); back_edges = 0; split("", back_from); split("", back_written)
    split("", ticket); split("", read_back); ticket_instruction = ""; ticket_used = 0; split("", at_label)
    stored = 0; tickets_after_store = 0; loaded_after = 0; signalled = 0; loaded_fresh = 0
    split("", count_at); count_reread = 0; split("", def); calling = 0; returned = ""; split("", written); split("", label_written); split("", before_ticket); split("", argument)
}
END { unfenced_verdict(); ops_out() }

# The instructions that move or sum values between threads, or stand in for
# a whole tree, without the loads, stores and barriers a lesson counts:
# shuffles, warp and block sums (redux; bar.red.popc: __syncthreads_count;
# not the one-bit and/or, nor vote.any/all, which count nothing), ballots
# (and __activemask, a ballot made by divergence: inside an if, the lanes
# that took it) and matches (__match_any_sync: a warp's lanes of equal value, which
# counts a bit plane),
# matrix multiply-adds (tensor cores), asynchronous stores and
# reductions into another block's shared memory, and the bulk copies and
# reductions of the TMA, which no LSU counter sees; and a cluster's shared
# memory, through which blocks hand one another their shares. Each statement of a
# function's body (inline PTX may put several on a line) is read from its
# first word, past braces, labels and a predicate; a family is its name
# and every instruction that starts so.
function op_family(word, operands) {
    if (word ~ /^(shfl|redux|match)(\.|$)/) { sub(/\..*/, "", word); return word }
    if (word ~ /^vote(\.sync)?\.ballot(\.|$)/ || word ~ /^activemask(\.|$)/) return "vote"
    if (word ~ /^bar(rier)?(\.cta)?\.red\.popc(\.|$)/) return "bar.red"
    if (word ~ /^(mma|wmma\.mma|wgmma\.mma_async|tcgen05\.mma|movmatrix)(\.|$)/) return "mma"
    if (word ~ /^(st|red)\.async(\.|$)/) { sub(/\.async.*/, ".async", word); return word }
    if (word ~ /^cp(\.reduce)?\.async\.bulk(\.|$)/) return "cp.async.bulk"
    if (word ~ /^(mapa|getctarank|barrier\.cluster)(\.|$)/ || word ~ /\.shared::cluster(\.|$)/) return "cluster"
    # An atomic on shared memory, or through a pointer that may point there
    # (generic): ptxas may make a warp's atomics on one address one (a warp
    # sum and a single lane's add), a block's sum with no tree at all.
    # (A generic address the text shows is a module variable's or a kernel
    # argument's, as libcu++'s device-scope atomics make, is global memory.)
    if (word ~ /^(atom|red)\./ && word !~ /\.(global|shared(::[a-z]+)?|async|param|local)(\.|$)/ && generic_global(operands)) word = word ".global"
    if (word ~ /^(atom|red)\./ && (word ~ /\.shared(::cta)?\./ || word !~ /\.(global|shared(::[a-z]+)?|async|param|local)(\.|$)/)) return "atom.shared"
    # The same on global memory: every thread's atomicAdd of its element
    # into its block's slot of the output is one lane's add a warp, and no
    # tree. A counter's add of 1 (atomicAdd(&c, 1)) sums no element, and is
    # left alone; any other value (a bit plane's 1 << b too) is one.
    if (word ~ /^(atom|red)\./ && word ~ /\.global(\.|$)/ && !counts_one(word, operands)) return "atom.global"
    return ""
}

# feed_family(word): which family of the feeds records an instruction is of
# (none: ""). Every atomic and reduction, whatever its memory (a counter of
# a lesson reads the global ones and the shared ones apart), and mbarrier's
# operations on shared memory (whether ncu counts them as atomics is not
# measured: counted so, a term is only kept); an opcode with no modifier, which
# no rule here could read further, as its family (red, cp).
function feed_family(word) {
    if (word ~ /^(atom|red|multimem|mbarrier)(\.|$)/) return "atomic"
    if (word ~ /^cp(\.reduce)?\.async\.bulk(\.|$)/) return "cp.async.bulk"
    if (word ~ /^cp(\.|$)/) return "cp.async"
    if (word ~ /^(ldmatrix|stmatrix)(\.|$)/) { sub(/\..*/, "", word); return word }
    # wmma's load of a fragment from shared memory is ldmatrix's
    # instruction in SASS (LDSM, sm_90); its store is counted as stmatrix's
    # to be safe (ptxas made STS of it there).
    if (word ~ /^wmma\.load(\.|$)/) return "ldmatrix"
    if (word ~ /^wmma\.store(\.|$)/) return "stmatrix"
    return ""
}
function feed(name, family, instruction) {
    if (family == "" || name == "" || (name, family) in fed) return
    fed[name, family] = 1
    print "feeds\tname=" name "\tfamily=" family "\tinstruction=" instruction
}
BEGIN { split("atomic cp.async cp.async.bulk ldmatrix stmatrix call", feed_list, " "); for (ff in feed_list) FEED_FAMILIES[feed_list[ff]] = 1 }

# A kernel launched in clusters by its own declaration, which no launch's
# attributes show, and the cluster's registers: the blocks of a cluster read
# and write one another's shared memory (family cluster, with mapa and
# every access to shared::cluster).
current != "" && /^[ \t]*\.(reqnctapercluster|explicitcluster|maxclusterrank)([ \t]|$)/ {
    if (!((current, "cluster") in op_seen)) {
        op_seen[current, "cluster"] = 1
        op_record(current, "cluster", $1)
    }
}
at > 0 && current != "" && match(code, /%(cluster_[a-z]+|nclusterid|clusterid|is_explicit_cluster)([^a-z_0-9]|$)/) {
    if (!((current, "cluster") in op_seen)) {
        op_seen[current, "cluster"] = 1
        word = substr(code, RSTART, RLENGTH)
        sub(/[^a-z_0-9%]$/, "", word)
        op_record(current, "cluster", word)
    }
}
at > 0 && current != "" {
    n_statements = split(code, statement, ";")
    for (s = 1; s <= n_statements; s++) {
        word = statement[s]
        # A modifier may stand apart from its opcode (red .global .add):
        # ptxas reads each as a word of the same name.
        gsub(/[ \t]+\./, ".", word)
        sub(/^[ \t{}]*/, "", word)
        labels = ""
        while (match(word, /^[A-Za-z_$%][A-Za-z0-9_$]*:[ \t{}]*/)) {
            label = substr(word, 1, RLENGTH)
            sub(/:.*/, "", label)
            join(label)  # a branch brought writes here
            labels = labels " " label
            word = substr(word, RLENGTH + 1)
        }
        guarded = word ~ /^@/
        sub(/^@[ \t]*!?[ \t]*[A-Za-z0-9_$%]+[ \t]*/, "", word)
        operands = word
        sub(/[ \t{}].*/, "", word)
        sub(/^[^ \t{}]*/, "", operands)
        if (!in_entry) {  # a device function's statements, for its callers (call_watch)
            k = ++body_size[current]
            body_word[current, k] = word; body_operands[current, k] = operands
            body_guarded[current, k] = guarded; body_labels[current, k] = labels
        }
        # Every statement of the function, kept for a loop's second pass: a
        # branch back to a label of this function, with writes not yet
        # fenced, reads the loop's body again from that label on.
        fn_n++
        fn_word[fn_n] = word; fn_operands[fn_n] = operands; fn_guarded[fn_n] = guarded; fn_labels[fn_n] = labels
        n_labels = split(labels, label_list, " ")
        for (l = 1; l <= n_labels; l++) label_at[label_list[l]] = fn_n
        if (word ~ /^bra(\.|$)/ && stored && !replaying) {
            target = operands
            gsub(/[ \t;]/, "", target)
            if (target in label_at) {  # a way back: read again at the function's end, from its label
                back_edges++
                back_from[back_edges] = label_at[target]
                back_written[back_edges] = ""
                for (b in written) back_written[back_edges] = back_written[back_edges] SUBSEP b
            }
        }
        note_argument(word, operands)
        if (!call_watch(word, operands)) { ticket_watch(word, operands); track_def(word, operands) }
        feed(current, feed_family(word), word)
        family = op_family(word, operands)
        if (family != "" && !((current, family) in op_seen)) {
            op_seen[current, family] = 1
            op_record(current, family, word)
        }
        # A bulk copy or an asynchronous store into another block's shared
        # memory is of two families: its own, and the cluster's.
        if (family != "cluster" && word ~ /\.shared::cluster(\.|$)/ && !((current, "cluster") in op_seen)) {
            op_seen[current, "cluster"] = 1
            op_record(current, "cluster", word)
        }
    }
}

# Where a warp runs (%warpid: its slot on the SM) tells a run whose kernels
# take more registers, under a tool, from one without: as good as a clock.
match(code, /%(clock64|clock_hi|clock|globaltimer_lo|globaltimer_hi|globaltimer|smid|nsmid|warpid|nwarpid|gridid|pm[0-7](_64)?|total_smem_size|aggr_smem_size)([^a-z_0-9]|$)/) {
    reg = substr(code, RSTART, RLENGTH)
    sub(/[^a-z_0-9%]$/, "", reg)
    key = current SUBSEP reg
    if (!(key in seen)) { seen[key] = 1; print "clock\tname=" current "\tregister=" reg }
}

# Device-side malloc (and its kin, the __cuda_syscall_* calls behind
# __nv_aligned_device_malloc and the like): memory that outlives the launch,
# and the module, where one launch can leave work or state to the next. The
# name as a word anywhere in the code, comments left out, whatever the lines:
# a call, or a declaration, may put each of its parts on a line of its own.
match(" " code " ", /[^A-Za-z0-9_$](malloc|free|__cuda_syscall[A-Za-z0-9_]*)[^A-Za-z0-9_$]/) {
    key = current SUBSEP "malloc"
    if (!(key in seen)) { seen[key] = 1; print "clock\tname=" current "\tregister=malloc" }
}
