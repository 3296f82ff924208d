# maven.sh (sourced): mvn_run ARGS... runs `mvn -B -q ARGS` offline (-o) and,
# only when that fails for want of an artifact not yet in the local repository
# (~/.m2, outside the clone, kept between runs), once more online to resolve it
# from Maven Central. So a warm machine never asks the network, and a cold one
# (CI on a fresh machine) fills ~/.m2 once. Its output is Maven's (quiet: only
# warnings, errors and what the build itself prints).
mvn_run() {
  local log status
  log="$(mktemp)"
  status=0
  mvn -B -q -Dstyle.color=never -o "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ] && grep -q -E "in offline mode|has not been downloaded from it before|offline mode and the artifact" "$log"; then
    echo "maven: resolving from Maven Central into ~/.m2 (once)" >&2
    status=0
    mvn -B -q -Dstyle.color=never "$@" >"$log" 2>&1 || status=$?
  fi
  sed "s/\x1b\[[0-9;]*m//g" "$log"
  rm -f "$log"
  return "$status"
}
