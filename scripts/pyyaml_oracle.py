#!/usr/bin/env python3
"""Writes testdata/corpus/pyyaml_oracle.tsv: PyYAML (libyaml) verdicts on ../shared/corpus k8s+helm.

Columns: path (relative to shared/corpus), documents (non-empty), error line (1-based, or '-').
Run from the repository root: python3 scripts/pyyaml_oracle.py
"""
import os, sys, yaml

root = os.path.join("..", "shared", "corpus")
rows = []
for top in ("k8s", "helm"):
    for dirpath, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            docs, err = 0, "-"
            try:
                with open(path, "rb") as f:
                    for d in yaml.load_all(f, Loader=yaml.CSafeLoader):
                        if d is not None:
                            docs += 1
            except yaml.YAMLError as e:
                mark = getattr(e, "problem_mark", None)
                err = str(mark.line + 1) if mark else "?"
            except Exception as e:  # constructor errors on odd tags etc.
                err = "!" + type(e).__name__
            rows.append((rel, docs, err))
with open(os.path.join("testdata", "corpus", "pyyaml_oracle.tsv"), "w") as out:
    out.write("# path\tdocuments\terror_line  (PyYAML %s with libyaml, CSafeLoader)\n" % yaml.__version__)
    for r in rows:
        out.write("%s\t%d\t%s\n" % r)
print(len(rows), "files;", sum(1 for r in rows if r[2] != "-"), "errors", file=sys.stderr)
