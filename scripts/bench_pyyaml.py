#!/usr/bin/env python3
"""The bare-parse peer of scripts/bench.sh: PyYAML's libyaml loader (`CSafeLoader`), `load_all`
of every YAML file under the given paths (files or directories; `-` reads stdin), documents
counted and errors skipped, nothing else. Prints `files documents errors` to stderr.
"""
import os
import sys

import yaml

EXTS = (".yaml", ".yml", ".json")


def paths(args):
    for arg in args:
        if arg == "-" or os.path.isfile(arg):
            yield arg
            continue
        for dirpath, dirs, files in os.walk(arg):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(EXTS):
                    yield os.path.join(dirpath, name)


def main():
    files = docs = errors = 0
    for path in paths(sys.argv[1:]):
        files += 1
        try:
            if path == "-":
                stream = sys.stdin.buffer
                docs += sum(1 for _ in yaml.load_all(stream, Loader=yaml.CSafeLoader))
            else:
                with open(path, "rb") as stream:
                    docs += sum(1 for _ in yaml.load_all(stream, Loader=yaml.CSafeLoader))
        except Exception:  # a parse or constructor error: counted, as kubegap reports it
            errors += 1
    print(files, docs, errors, file=sys.stderr)


if __name__ == "__main__":
    main()
