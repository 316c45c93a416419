#!/usr/bin/env python3
"""The nginx peer of scripts/bench.sh: gixy-ng's own command-line loop (one `Manager` per file,
default checks, JSON formatter), run over every file under the given paths in one process.
The `gixy` command stops at the first file a plugin crashes on (`AttributeError` in
`add_header_multiline` on a corpus file), so the loop here skips such a file and goes on.
Prints `files crashed` to stderr.
"""
import os
import sys

import gixy
from gixy.core.config import Config
from gixy.core.exceptions import InvalidConfiguration
from gixy.core.manager import Manager as Gixy
from gixy.formatters import get_all as formatters


def paths(args):
    for arg in args:
        if os.path.isfile(arg):
            yield os.path.abspath(arg)
            continue
        for dirpath, dirs, files in os.walk(arg):
            dirs.sort()
            for name in sorted(files):
                yield os.path.abspath(os.path.join(dirpath, name))


def main():
    config = Config(severity=gixy.severity.ALL[0], output_format="json", load_default_vars=True)
    formatter = formatters()["json"]()
    files = crashed = 0
    for path in paths(sys.argv[1:]):
        files += 1
        with Gixy(config=config) as yoda:
            try:
                with open(path, mode="rb") as fdata:
                    yoda.audit(path, fdata, is_stdin=False)
            except InvalidConfiguration:
                continue
            except Exception:  # a plugin crash: the gixy command would stop here
                crashed += 1
                continue
            formatter.feed(path, yoda)
    sys.stdout.write(formatter.flush() + "\n")
    print(files, crashed, file=sys.stderr)


if __name__ == "__main__":
    main()
