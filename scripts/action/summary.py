#!/usr/bin/env python3
"""action.yml: the job summary ($GITHUB_STEP_SUMMARY) from kubegap's JSON report.

Usage: summary.py REPORT.json FAIL_ON EXIT_CODE OUTPUTS_FILE [BASE] > summary.md

With BASE (the action's PR mode), REPORT.json is `kubegap diff`'s: the summary says so and shows
the one-line change summary (the first line of diff's human output), from the report's `diff`.
Without a report (exit code 2), it shows kubegap's error message from REPORT.json.stderr.

Writes the counts by severity and the top findings as a Markdown table (errors first, then
warnings and infos, each in the report's order: file, line, column, rule), and appends the
counts to OUTPUTS_FILE ($GITHUB_OUTPUT) as `errors=`, `warnings=`, `infos=`. Locations link to
the file at the commit when GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA are set and the
finding is in a file of the repository (not stdin or a rendered chart).
"""

import json
import os
import sys

TOP = 20
ORDER = {"error": 0, "warning": 1, "info": 2}
ICON = {"error": "🔴 error", "warning": "🟠 warning", "info": "🔵 info"}


def cell(text: str, limit: int = 240) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("|", "\\|")


def location(finding: dict) -> str:
    file, line = finding["file"], finding["line"]
    shown = f"`{file}:{line}`"
    server, repo, sha = (os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"))
    if server and repo and sha and not file.startswith("<") and not os.path.isabs(file):
        path = os.path.normpath(file).replace(os.sep, "/")
        if not path.startswith("../"):
            return f"[{shown}]({server}/{repo}/blob/{sha}/{path}#L{line})"
    return shown


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def change_line(d: dict) -> str:
    """kubegap-cli/src/diff.rs `summary_line`, from the JSON report's `diff`."""
    return (
        f"changed: {plural(d['added'], 'object', 'objects')} added, {d['removed']} removed, "
        f"{d['modified']} modified, {plural(d['configs_changed'], 'config changed', 'configs changed')}; "
        f"{plural(d['new_findings'], 'new finding', 'new findings')}"
    )


def main() -> int:
    report_path, fail_on, exit_code, outputs = sys.argv[1:5]
    base = sys.argv[5] if len(sys.argv) > 5 else ""
    out = ["## kubegap", ""]
    if base:
        out += [f"Pull request diff: `kubegap diff --git {cell(base)}` (BASE) against the checkout (HEAD).", ""]
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        reason = cell(e)
        try:
            with open(report_path + ".stderr", encoding="utf-8") as f:
                lines = [line for line in f.read().splitlines() if line.strip()]
            if lines:
                reason = cell(lines[-1])
        except OSError:
            pass
        out.append(f"kubegap did not produce a report (exit code {exit_code}): {reason}. See the step's log.")
        print("\n".join(out))
        return 0
    if base and "diff" in report:
        out += [f"**{cell(change_line(report['diff']))}**", ""]
    s = report["summary"]
    with open(outputs, "a", encoding="utf-8") as f:
        f.write(f"errors={s['errors']}\nwarnings={s['warnings']}\ninfos={s['infos']}\n")
    verdict = {
        "0": f"passed (`--fail-on {fail_on}`)",
        "1": f"failed: findings at or above `{fail_on}`",
    }.get(exit_code, f"failed with exit code {exit_code} (usage or I/O error, see the log)")
    out.append(
        f"**{verdict}**: {s['files']} files, {s['objects']} objects; "
        f"{s['suppressed']} findings suppressed by `# kubegap-ignore`."
    )
    out += ["", "| severity | findings |", "|---|---:|"]
    for sev in ("error", "warning", "info"):
        out.append(f"| {ICON[sev]} | {s[sev + 's']} |")
    findings = sorted(report["findings"], key=lambda f: ORDER.get(f["severity"], 3))
    if findings:
        shown = findings[:TOP]
        title = f"Top {len(shown)} of {len(findings)} findings" if len(findings) > TOP else "Findings"
        out += ["", f"### {title}", "", "| severity | rule | location | message |", "|---|---|---|---|"]
        for f in shown:
            message = f["message"]
            if f.get("origin"):
                message += f" (from {f['origin']})"
            out.append(f"| {ICON.get(f['severity'], f['severity'])} | `{f['rule']}` | {location(f)} | {cell(message)} |")
        out += ["", "`kubegap explain RULE` prints a rule's documentation."]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
