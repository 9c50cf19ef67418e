#!/bin/bash
# Freshness speed of several versions of the code, alternately in the same minutes (a shared
# machine's load changes from minute to minute): per round and version, on a django clone,
# check-docs cold (empty cache) and warm, then the pre-commit hook on 5 staged edits, first run
# and again. Prints wall time, CPU (user+sys of every process the run waited for) and the load.
# usage: benchmarks/freshness_alternate.sh PYTHON CLONE SCRATCH ROUNDS CODE_DIR...
#   CLONE: a scratch full clone of django at d559cb02da (edited, then reset --hard)
#   CODE_DIR: a checkout of the package's code (`git archive SHA | tar -x -C DIR`)
set -u
P=$1; R=$2; S=$3; N=$4; shift 4
five="django/db/models/__init__.py django/db/models/aggregates.py django/db/models/base.py django/http/__init__.py django/http/cookie.py"
base=$(git -C "$R" rev-parse HEAD)
t() {
  local label=$1; shift
  (cd /tmp && NOFACE_CTX_CACHE_DIR=$C PYTHONPATH=$code /usr/bin/time -f "$v $label %e s wall %U+%S s cpu" \
    "$P" -m noface_ctx check-docs --repo "$R" "$@" > "$S/out" 2> "$S/err")
  echo "$(tail -1 "$S/err") findings=$(wc -l < "$S/out") load=$(cut -d' ' -f1 /proc/loadavg)"
}
for _ in $(seq "$N"); do
  for code in "$@"; do
    v=$(basename "$code"); C=$S/cache-$v
    (cd "$R" && git reset -q --hard "$base"); rm -rf "$C"
    "$P" -c "import compileall; compileall.compile_dir('$code/noface_ctx', quiet=1)"
    t cold; t warm
    (cd "$R" && for f in $five; do printf '\n# benchmark edit\n' >> "$f"; done && git add $five); sleep 2.2
    t hook-5-first $five; t hook-5-again $five
    (cd "$R" && git reset -q --hard "$base")
  done
done
