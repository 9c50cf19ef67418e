#!/bin/bash
# Freshness speed on a django clone: check-docs cold and warm, the pre-commit hook on a 5-file
# edit (first run and again, REPEATS times, each from a copy of the same warm cache), then on a
# 2-file edit right after committing those five.
# usage (from the package checkout): benchmarks/freshness_hook.sh PYTHON CLONE CACHE [REPEATS]
#   CLONE: a scratch full clone of django, clean at d559cb02da (it is edited, committed, then reset)
#   CACHE: a scratch cache directory (emptied first; CACHE.warm holds the warm copy)
# The package's bytecode is written first, as an install has it: with PYTHONDONTWRITEBYTECODE
# set (some sandboxes set it), every run would also compile every module it imports.
set -u
P=$1; R=$2; C=$3; N=${4:-1}
unset PYTHONDONTWRITEBYTECODE
$P -c "import compileall, os, noface_ctx; compileall.compile_dir(os.path.dirname(noface_ctx.__file__), quiet=1)"
export NOFACE_CTX_CACHE_DIR=$C; rm -rf "$C" "$C.warm"
base=$(git -C "$R" rev-parse HEAD)
out=$(mktemp); err=$(mktemp); trap 'rm -f "$out" "$err"' EXIT  # this run's own: others may run the script too
t() { /usr/bin/time -f "$1 %e s wall %U+%S s cpu %M KB" $P -m noface_ctx check-docs --repo "$R" "${@:2}" > "$out" 2>"$err"; tail -1 "$err"; echo "  findings: $(wc -l < "$out")"; }
t cold; t warm
cp -a "$C" "$C.warm"
five="django/db/models/__init__.py django/db/models/aggregates.py django/db/models/base.py django/http/__init__.py django/http/cookie.py"
for i in $(seq "$N"); do
  (cd "$R" && git reset -q --hard "$base"); rm -rf "$C"; cp -a "$C.warm" "$C"
  (cd "$R" && for f in $five; do printf '\n# benchmark edit\n' >> $f; done && git add $five); sleep 2.2
  t hook-5-files-first $five; t hook-5-files-again $five
done
(cd "$R" && git -c user.email=b@b -c user.name=b commit -qm "bench edit")
two="django/utils/text.py django/forms/fields.py"
(cd "$R" && for f in $two; do printf '\n# another edit\n' >> $f; done && git add $two); sleep 2.2
t hook-2-files-after-a-commit $two; t whole-after-a-commit
(cd "$R" && git reset -q --hard "$base")
