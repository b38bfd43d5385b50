#!/bin/sh
# PostgreSQL's own isolation suite, each spec run by its real tester and by `experiments interleave` on one
# throw-away server, each in a database of its own (ours with --public, its tables in public as the tester's):
# identical, whitespace only, different, or refused / timed out
# (issue 67). The suite is the measurement, not a part of the repository: get it as ../shared/spec/TOOLCHAIN.md
# says (Debian's source package postgresql-15) and pass its src/test/isolation directory.
#   bench/pg-suite.sh DIR [OUT]     (OUT, default target/pg-suite: each spec's two outputs and the summary)
set -eu
dir=${1:?usage: bench/pg-suite.sh POSTGRESQL/src/test/isolation [OUT]}
out=${2:-target/pg-suite}
if [ -z "${PGPORT:-}" ]; then
  # A server of its own, as the tester's own suite wants it (prepared transactions on), removed after.
  exec pg_virtualenv -o fsync=off -o max_prepared_transactions=10 "$0" "$@"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
tester=$(ls /usr/lib/postgresql/*/lib/pgxs/src/test/isolation/isolationtester | tail -1)
cargo build --quiet --release --bin experiments --manifest-path "$root/Cargo.toml"
ours="$root/target/release/experiments"
mkdir -p "$out"
: > "$out/summary.tsv"
theirs_s=0 ours_s=0
for name in $(sed -n 's/^test: //p' "$dir/isolation_schedule" | tr ' ' '\n'); do
  spec="$dir/specs/$name.spec"
  for who in theirs ours; do
    db="${who}_$(echo "$name" | tr -c 'a-z0-9\n' '_')"
    createdb "$db"
    t0=$(date +%s.%N)
    if [ "$who" = theirs ]; then
      timeout 300 "$tester" "dbname=$db" < "$spec" > "$out/$name.$who" 2>&1 || true
    else
      url="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$db"
      set +e
      timeout 300 "$ours" interleave "$spec" --store "$url" --public > "$out/$name.$who" 2>&1
      echo "exit $?" > "$out/$name.$who.exit"
      set -e
    fi
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    if [ "$who" = theirs ]; then theirs_s=$(echo "$theirs_s + $s" | bc); else ours_s=$(echo "$ours_s + $s" | bc); fi
    dropdb --force "$db" 2>/dev/null || true
  done
  if [ "$(cat "$out/$name.ours.exit")" != "exit 0" ]; then
    kind=refused
  elif cmp -s "$out/$name.theirs" "$out/$name.ours"; then
    kind=identical
  elif [ "$(tr -d '[:space:]' < "$out/$name.theirs")" = "$(tr -d '[:space:]' < "$out/$name.ours")" ]; then
    kind=whitespace
  else
    kind=different
  fi
  printf '%s\t%s\n' "$name" "$kind" >> "$out/summary.tsv"
done
echo "specs: $(wc -l < "$out/summary.tsv")"
for kind in identical whitespace different refused; do
  printf '%s: %s\n' "$kind" "$(grep -c "	$kind$" "$out/summary.tsv" || true)"
done
printf 'time: the tester %.0f s, experiments interleave %.0f s\n' "$theirs_s" "$ours_s"
