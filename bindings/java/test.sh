#!/usr/bin/env bash
# The Java part of `make test`: the binding's JUnit 5 tests through Surefire
# (mvn install: build, test, install into ~/.m2), then the quickstart server
# (bin/quickstart-java.jar) unless TOOLERR_PREPARED=1 says the prepare phase
# built it. Ends with one line, "N passed, M failed", summed from Surefire's
# reports. Maven's repository stays in ~/.m2, outside the clone, so later runs
# are offline (bindings/java/maven.sh).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/maven.sh"
rm -rf "$here/target/surefire-reports"
mvn_run -f "$here/pom.xml" install
status=$?
# Surefire's own summary is quiet under -q: count its reports.
python3 - "$here/target/surefire-reports" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
tests = failed = 0
for path in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    suite = ET.parse(path).getroot()
    tests += int(suite.get("tests", 0))
    failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    for case in suite.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            print(f"FAIL {suite.get('name')}.{case.get('name')}: {bad.get('message', '')[:300]}")
print(f"{tests - failed} passed, {failed} failed")
PY
[ "$status" -eq 0 ] || exit "$status"
[ -n "${TOOLERR_PREPARED:-}" ] || bash "$root/examples/java/build.sh"
