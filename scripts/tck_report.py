"""The A2A TCK step's bookkeeping, in two roles (used by scripts/tck.sh).

As a pytest plugin (`-p tck_report`, with this folder on PYTHONPATH and TCK_OUTCOMES set to a
file path): records each test's outcome, its requirement level (the TCK's `must`, `should`,
`may` markers) and, for a skip, its reason; writes them to TCK_OUTCOMES as JSON at the end.

As a command (`python tck_report.py OUTCOMES ALLOWLIST`): prints the counts (passed, failed,
skipped by reason) and exits 1 when a `must` or `should` test failed (the TCK reports a
failed `should` as xfailed) and is not in the allow-list, or when an allow-listed test no
longer fails (the list must shrink as the reply kinds land).

The allow-list has one test id a line, then `#` and the reason; blank lines and lines
starting with `#` are comments.
"""

from __future__ import annotations

import json
import os
import sys

from collections import Counter

_OUTCOMES: dict[str, dict] = {}
_LEVELS = ("must", "should", "may")


def _level(item) -> str:
    names = {marker.name for marker in item.iter_markers()}
    return next((level for level in _LEVELS if level in names), "unmarked")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


try:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        """Records the outcome of each phase; a failure in any phase fails the test."""
        outcome = yield
        report = outcome.get_result()
        entry = _OUTCOMES.setdefault(
            report.nodeid, {"level": _level(item), "outcome": "passed"}
        )
        if entry["outcome"] == "failed":
            return
        if hasattr(report, "wasxfail"):
            entry["outcome"] = "xfailed"
            entry["reason"] = str(report.wasxfail)
        elif report.failed:
            entry["outcome"] = "failed"
            lines = str(report.longrepr).splitlines()
            entry["reason"] = lines[-1] if lines else ""
        elif report.skipped:
            entry["outcome"] = "skipped"
            entry["reason"] = _skip_reason(report)

    def pytest_sessionfinish(session, exitstatus):
        """Writes the outcomes to TCK_OUTCOMES."""
        path = os.environ.get("TCK_OUTCOMES")
        if path:
            with open(path, "w", encoding="utf-8") as out:
                json.dump(_OUTCOMES, out, indent=1, sort_keys=True)

except ImportError:  # the command role needs no pytest
    pass


def _allow_list(path: str) -> dict[str, str]:
    allowed = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test_id, _, reason = line.partition("#")
            allowed[test_id.strip()] = reason.strip()
    return allowed


def main(outcomes_path: str, allow_path: str) -> int:
    with open(outcomes_path, encoding="utf-8") as source:
        outcomes = json.load(source)
    allowed = _allow_list(allow_path)
    counts = Counter(entry["outcome"] for entry in outcomes.values())
    skipped = Counter(
        entry["reason"] for entry in outcomes.values() if entry["outcome"] == "skipped"
    )
    failing = {
        test_id: entry
        for test_id, entry in outcomes.items()
        if entry["outcome"] == "failed"
        or (entry["outcome"] == "xfailed" and entry["level"] in ("must", "should"))
    }
    ignored = [
        (test_id, entry)
        for test_id, entry in failing.items()
        if entry["level"] == "may" and entry["outcome"] == "failed"
    ]
    for test_id, _ in ignored:
        failing.pop(test_id)
    waiting = sorted(test_id for test_id in failing if test_id in allowed)
    unexpected = sorted(test_id for test_id in failing if test_id not in allowed)
    stale = sorted(test_id for test_id in allowed if test_id not in failing)

    print(
        "TCK: {passed} passed, {failed} failed, {xfailed} xfailed (failed SHOULD/MAY), "
        "{skipped} skipped".format(
            passed=counts["passed"],
            failed=counts["failed"],
            xfailed=counts["xfailed"],
            skipped=counts["skipped"],
        )
    )
    print("skipped, by reason:")
    for reason, count in skipped.most_common():
        print(f"  {count:4}  {reason}")
    may_xfailed = [
        test_id
        for test_id, entry in outcomes.items()
        if entry["outcome"] == "xfailed" and entry["level"] not in ("must", "should")
    ]
    for test_id in sorted(may_xfailed) + [test_id for test_id, _ in ignored]:
        print(f"  (MAY, not required) {test_id}: {outcomes[test_id].get('reason', '')}")
    if waiting:
        print(f"waiting for reply kinds (allow-listed in {os.path.basename(allow_path)}):")
        for test_id in waiting:
            print(f"  {test_id}  # {allowed[test_id]}")
    for test_id in unexpected:
        entry = failing[test_id]
        print(f"FAILED ({entry['level']}) {test_id}: {entry.get('reason', '')}")
    for test_id in stale:
        state = outcomes.get(test_id, {}).get("outcome", "not run")
        print(f"STALE allow-list entry ({state}, remove it): {test_id}")
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tck_report.py OUTCOMES.json ALLOWLIST")
    sys.exit(main(sys.argv[1], sys.argv[2]))
