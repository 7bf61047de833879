#!/usr/bin/env bash
# sass_pattern_kernels.sh BINARY|CUBIN: every shared-memory instruction in the single-instruction
# pattern kernels (kernels/pattern_kernels.cuh), per kernel, from cuobjdump -sass; then a check
# that each issue-11 kernel holds exactly ONE LDSM / STSM / ATOMS / LDGSTS of the form its template
# arguments name (exit 1 otherwise; k_ldgsts_pf<W, cg, P> must be LDGSTS.E[.BYPASS].LTC<P>B[.64|.128]). Needs cuobjdump (and nvdisasm) on PATH or in CUOBJDUMP.
# Predicated-off "@!PT LDS RZ, [RZ]" lines (never executed; nvcc pads cp.async kernels with them)
# are listed but not counted as shared accesses.
set -u -o pipefail
bin=${1:?usage: sass_pattern_kernels.sh BINARY|CUBIN}
CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
sass=$("$CUOBJDUMP" -sass "$bin") || { echo "cuobjdump -sass $bin failed" >&2; exit 1; }
demangle() { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }
echo "$sass" | awk '
  /Function :/ { f = $3; next }
  f ~ /k_pattern|k_ldsm|k_stsm|k_atoms|k_ldgsts/ && /(LDSM|STSM|ATOMS|LDGSTS|LDS|STS|LDGDEPBAR|DEPBAR)/ {
    line = $0; sub(/^ *\/\*[0-9a-f]*\*\/ */, "", line); sub(/ *;.*$/, "", line); print f "\t" line }' |
  demangle | sed 's/(bankscope::PatternArgs const\*, int, unsigned int\*[^)]*)//' > /tmp/sass_pattern_kernels.$$
cat /tmp/sass_pattern_kernels.$$
echo
echo "# check: one instruction of the named form per issue-11 kernel"
python3 - /tmp/sass_pattern_kernels.$$ <<'PY'
import re, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f, ins = line.rstrip("\n").split("\t", 1)
    if ins.startswith("@!PT"):
        continue  # never executed
    rows[f].append(ins)
atom = {0: "ADD", 1: "MIN", 2: "MAX", 3: "EXCH", 4: "CAS", 5: "POPC.INC.32"}  # 5: atomicAdd(&x, 1), result unused (R8b)
def unmangle(f):
    # Without c++filt: _ZN9bankscope6k_ldsmILi4ELb1EEEv... -> k_ldsm<4, true>
    m = re.search(r"(k_ldsm|k_stsm|k_atoms|k_ldgsts_pf|k_ldgsts)I(L[ib]\d+E)(L[ib]\d+E)(L[ib]\d+E)?", f)
    if not m:
        return f
    def arg(a):
        kind, v = a[1], a[2:-1]
        return ("true" if v == "1" else "false") if kind == "b" else v
    args = [arg(g) for g in m.groups()[1:] if g]
    return "%s<%s>" % (m.group(1), ", ".join(args))
def want(f):
    f = unmangle(f)
    m = re.search(r"k_(ldsm|stsm)<(\d), (true|false)>", f)
    if m:
        op = "LDSM" if m.group(1) == "ldsm" else "STSM"
        t = "MT88" if m.group(3) == "true" else "M88"
        n = {"1": "", "2": ".2", "4": ".4"}[m.group(2)]
        return re.compile(r"^%s\.16\.%s%s " % (op, t, re.escape(n)))
    m = re.search(r"k_atoms<(\d), (\d)>", f)
    if m:
        w = ".64" if m.group(1) == "8" else ""
        return re.compile(r"^ATOMS\.%s%s " % (atom[int(m.group(2))], re.escape(w)))
    m = re.search(r"k_ldgsts_pf<(\d+), (true|false), (\d+)>", f)
    if m:
        w = {"4": "", "8": ".64", "16": ".128"}[m.group(1)]
        byp = ".BYPASS" if m.group(2) == "true" else ""
        return re.compile(r"^LDGSTS\.E%s\.LTC%sB%s " % (byp, m.group(3), re.escape(w)))
    m = re.search(r"k_ldgsts<(\d+), (true|false)>", f)
    if m:
        w = {"4": "", "8": ".64", "16": ".128"}[m.group(1)]
        byp = ".BYPASS" if m.group(2) == "true" else ""
        return re.compile(r"^LDGSTS\.E%s%s " % (byp, re.escape(w)))
    return None
bad = 0
n = 0
for f, ins in sorted(rows.items()):
    w = want(f)
    if w is None:
        continue
    n += 1
    mem = [i for i in ins if re.match(r"^(@\S+ )?(LDSM|STSM|ATOMS|LDGSTS|LDS|STS)", i)]
    ok = len(mem) == 1 and w.match(mem[0].split(" ", 1)[-1] if mem[0].startswith("@") else mem[0])
    print(("ok   " if ok else "BAD  ") + f + ": " + " | ".join(mem))
    bad += not ok
print("%d kernels checked, %d bad" % (n, bad))
sys.exit(1 if bad or n == 0 else 0)
PY
rc=$?
rm -f /tmp/sass_pattern_kernels.$$
exit $rc
