"""The A2A TCK step's bookkeeping, in two roles (used by scripts/tck.sh).

As a pytest plugin (`-p tck_report`, with this folder on PYTHONPATH and TCK_OUTCOMES set to a
file path): records each test's outcome, its requirement level (the TCK's `must`, `should`,
`may` markers) and, for a skip, its reason; writes them to TCK_OUTCOMES as JSON at the end.

As a command (`python tck_report.py OUTCOMES [LATER ...]`): merges the passes (a test that
skipped in an earlier pass and ran in a later one counts as it ran; scripts/tck.sh runs the
push-off tests in a second pass), prints the counts (passed, failed, skipped by reason) and
exits 1 when a `must` or `should` test failed (the TCK reports a failed `should` as
xfailed).
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


def merged(paths: list[str]) -> tuple[dict[str, dict], int]:
    """The outcomes of the passes in `paths`, a later pass's outcome replacing an earlier
    skip; and how many tests the later passes ran that way."""
    outcomes: dict[str, dict] = {}
    replaced = 0
    for index, path in enumerate(paths):
        with open(path, encoding="utf-8") as source:
            passed = json.load(source)
        for test_id, entry in passed.items():
            earlier = outcomes.get(test_id)
            if earlier is None and index == 0:
                outcomes[test_id] = entry
            elif earlier is not None and earlier["outcome"] == "skipped":
                # Run, or skipped for the reason that holds once the earlier one is gone
                # (a gRPC test skips for its transport).
                outcomes[test_id] = entry
                replaced += entry["outcome"] != "skipped"
    return outcomes, replaced


def main(paths: list[str]) -> int:
    outcomes, replaced = merged(paths)
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
    # Push: the tests that need push and found it off count against the SUT; those that
    # check the not-supported error skip because push is on, and cannot run in the same pass.
    push_off = sum(
        count for reason, count in skipped.items() if "not support push" in reason.lower()
    )
    push_on = sum(
        count
        for reason, count in skipped.items()
        if reason.lower().startswith("agent supports push notifications")
    )
    print(
        f"push notification skips: {push_off} (push needed but off), {push_on} (the error of "
        f"a server without push, left skipped by the push-off pass); "
        f"{replaced} run by the later passes"
    )
    may_xfailed = [
        test_id
        for test_id, entry in outcomes.items()
        if entry["outcome"] == "xfailed" and entry["level"] not in ("must", "should")
    ]
    for test_id in sorted(may_xfailed) + [test_id for test_id, _ in ignored]:
        print(f"  (MAY, not required) {test_id}: {outcomes[test_id].get('reason', '')}")
    for test_id, entry in sorted(failing.items()):
        print(f"FAILED ({entry['level']}) {test_id}: {entry.get('reason', '')}")
    return 1 if failing else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: tck_report.py OUTCOMES.json [LATER.json ...]")
    sys.exit(main(sys.argv[1:]))
