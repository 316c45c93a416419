#!/usr/bin/env python3
"""Runs the steps of the composite action (action.yml) as GitHub's runner would, on a local
repository: `run:` steps in bash with the inputs, `GITHUB_OUTPUT`, `GITHUB_PATH`,
`GITHUB_STEP_SUMMARY`, `GITHUB_ACTION_PATH`, `RUNNER_TEMP`, and the `if:` conditions and
`${{ }}` expressions the action uses. Steps that `uses:` another action (actions/cache,
upload-sarif) need GitHub and are not run: the runner records whether their condition held and
the `with:` they would get.

Used by scripts/ci/action.sh, which asserts on the result (a JSON document on stdout):
{"result": "success"|"failure", "outputs": {...}, "steps": [{"name", "ran", "outcome",
"with"}...], "log": "...", "summary": "..."}.

Usage: run_action.py ACTION_DIR WORKSPACE RUNNER_TEMP PATH [input=value ...]
"""

import json
import os
import re
import subprocess
import sys

import yaml  # PyYAML, a dependency of pre-commit (scripts/ci/tools.sh installs it)

TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|(&&|\|\||==|!=|!|\(|\))|([A-Za-z_][A-Za-z0-9_.-]*)(\(\))?)")


class Context:
    def __init__(self, inputs, action_path, temp):
        self.inputs = inputs
        self.steps = {}
        self.action_path = action_path
        self.temp = temp
        self.failed = False

    def lookup(self, name):
        parts = name.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise ValueError(f"action.yml uses an undeclared input: {name}")
            return self.inputs[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        if name == "github.action_path":
            return self.action_path
        if name == "runner.temp":
            return self.temp
        if name == "runner.os":
            return "Linux"
        if name in ("true", "false"):
            return name == "true"
        raise ValueError(f"expression not supported by this runner: {name}")

    def evaluate(self, expr):
        """GitHub's expression subset the action uses, translated to Python."""
        out, pos = [], 0
        expr = expr.strip()
        while pos < len(expr):
            m = TOKEN.match(expr, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot parse expression: {expr!r} at {pos}")
            pos = m.end()
            literal, op, ident, call = m.groups()
            if literal is not None:
                out.append(repr(literal[1:-1].replace("''", "'")))
            elif op:
                out.append({"&&": " and ", "||": " or ", "!": " not ", "==": "==", "!=": "!="}.get(op, op))
            elif call:
                if ident == "always":
                    out.append("True")
                elif ident == "success":
                    out.append(repr(not self.failed))
                elif ident == "failure":
                    out.append(repr(self.failed))
                else:
                    raise ValueError(f"function not supported by this runner: {ident}()")
            else:
                out.append(repr(self.lookup(ident)))
        return eval("".join(out), {"__builtins__": {}}, {})  # noqa: S307 (tokens only)

    def substitute(self, text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(self.evaluate(m.group(1))), str(text))

    def condition(self, expr):
        if expr is None:
            return not self.failed
        expr = str(expr)
        if expr.startswith("${{"):
            expr = expr[3:].rstrip()[:-2]
        status = any(f in expr for f in ("always()", "success()", "failure()"))
        value = bool(self.evaluate(expr))
        return value if status else (value and not self.failed)


def read_outputs(path):
    outputs, lines = {}, open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<")[0]:
            key, delim = line.split("<<", 1)
            value = []
            i += 1
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            outputs[key] = "\n".join(value)
        elif "=" in line:
            key, value = line.split("=", 1)
            outputs[key] = value
        i += 1
    return outputs


def main():
    action_dir, workspace, temp, path = sys.argv[1:5]
    action = yaml.safe_load(open(os.path.join(action_dir, "action.yml"), encoding="utf-8"))
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    for arg in sys.argv[5:]:
        key, value = arg.split("=", 1)
        if key not in inputs:
            raise SystemExit(f"unknown input {key}")
        inputs[key] = value
    cx = Context(inputs, os.path.abspath(action_dir), temp)
    os.makedirs(temp, exist_ok=True)
    summary = os.path.join(temp, "step-summary.md")
    open(summary, "w").close()
    log, steps, path_entries = [], [], []
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {i}")
        record = {"name": name, "ran": False, "outcome": "skipped"}
        steps.append(record)
        if not cx.condition(step.get("if")):
            continue
        if "uses" in step:
            record["outcome"] = "would run (uses: %s)" % step["uses"]
            record["with"] = {k: cx.substitute(v) for k, v in (step.get("with") or {}).items()}
            continue
        output_file = os.path.join(temp, f"output-{i}")
        path_file = os.path.join(temp, f"path-{i}")
        open(output_file, "w").close()
        open(path_file, "w").close()
        env = {
            "PATH": ":".join(list(reversed(path_entries)) + [path]),
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": workspace,
            "GITHUB_ACTION_PATH": cx.action_path,
            "GITHUB_OUTPUT": output_file,
            "GITHUB_PATH": path_file,
            "GITHUB_STEP_SUMMARY": summary,
            "RUNNER_TEMP": temp,
            "RUNNER_OS": "Linux",
        }
        for key in ("PIP_NO_INDEX", "PIP_FIND_LINKS", "CARGO_HOME", "RUSTUP_HOME"):
            if key in os.environ:
                env[key] = os.environ[key]
        # Cargo profile overrides (.ci/run builds the packaging steps without fat LTO).
        for key, value in os.environ.items():
            if key.startswith("CARGO_PROFILE_"):
                env[key] = value
        for key, value in (step.get("env") or {}).items():
            env[key] = cx.substitute(value)
        script = os.path.join(temp, f"step-{i}.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(cx.substitute(step["run"]))
        shell = step.get("shell")
        if shell != "bash":
            raise SystemExit(f"step {name!r}: shell {shell!r} is not supported by this runner")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
            cwd=workspace, env=env, capture_output=True, text=True,
        )
        log.append(f"##[step] {name}\n{done.stdout}{done.stderr}")
        record["ran"] = True
        record["outcome"] = "success" if done.returncode == 0 else f"failure (exit {done.returncode})"
        if done.returncode != 0:
            cx.failed = True
        if "id" in step:
            cx.steps[step["id"]] = read_outputs(output_file)
        path_entries += [p for p in open(path_file, encoding="utf-8").read().splitlines() if p]
    outputs = {k: cx.substitute(v["value"]) for k, v in action.get("outputs", {}).items()}
    print(json.dumps({
        "result": "failure" if cx.failed else "success",
        "outputs": outputs,
        "steps": steps,
        "log": "".join(log),
        "summary": open(summary, encoding="utf-8").read(),
    }, indent=1))


if __name__ == "__main__":
    main()
