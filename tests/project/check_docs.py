#!/usr/bin/env python3
"""Checks the user documentation: the README, docs/, the CHANGELOG and the cases' comments.

    tests/docs/check_docs.py SOURCE_DIR

- every relative link (Markdown or <img src>) names a file of the repository, inside it;
- no path outside the repository and no development-tracker talk ("issue 12", commit hashes,
  a "session", a "lent" machine); the papers are cited by name (docs/references.md), not by
  their file prefix;
- the README is short (at most 200 lines) and its build command is the one .ci/run runs;
- the man page (docs/gpufem.1) formats without warnings (when groff is installed).
Prints every problem with its file and line; exits 1 if there is one.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

FORBIDDEN = [
    (re.compile(r"\bissues?\s*#?\d+", re.I), "a reference to the development tracker"),
    (re.compile(r"\bsession\b", re.I), "development talk ('session')"),
    (re.compile(r"\blent\b", re.I), "development talk ('lent')"),
    (re.compile(r"\.\./shared|/work/|shared/papers|shared/tools"), "a path outside the repository"),
    (re.compile(r"(?<![\w/.-])/(home|root|tmp/bash_jobs)\b"), "a path outside the repository"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"), "a commit hash"),
]
PAPER_PREFIX = re.compile(r"\b00[0-4]_…")
LINK = re.compile(r"\]\(([^)\s]+)\)|<img[^>]*\bsrc=\"([^\"]+)\"")


def documents():
    files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CHANGELOG.md")]
    for folder, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    return [f for f in files if os.path.exists(f)]


def case_comments():
    """Comment lines of the shipped cases and meshes: (file, line number, text)."""
    for folder, _, names in os.walk(os.path.join(ROOT, "cases")):
        for name in sorted(names):
            path = os.path.join(folder, name)
            marker = "#" if name.endswith(".yaml") else "//" if name.endswith(".geo") else None
            if marker is None:
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if marker in line:
                        yield path, number, line[line.index(marker):]


def main():
    problems = []

    def check_text(path, number, text, allow_paper_prefix=False):
        for pattern, what in FORBIDDEN:
            found = pattern.search(text)
            if found:
                problems.append("%s:%d: %s: %r" % (os.path.relpath(path, ROOT), number, what, found.group(0)))
        if not allow_paper_prefix and PAPER_PREFIX.search(text):
            problems.append("%s:%d: cite the paper by name (docs/references.md), not by its file prefix"
                            % (os.path.relpath(path, ROOT), number))

    for path in documents():
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for number, line in enumerate(lines, 1):
            check_text(path, number, line, allow_paper_prefix=path.endswith("references.md"))
            for match in LINK.finditer(line):
                target = (match.group(1) or match.group(2)).split("#")[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue  # an anchor, or http:, https:, mailto:
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
                if os.path.commonpath([resolved, ROOT]) != ROOT:
                    problems.append("%s:%d: link outside the repository: %s" % (os.path.relpath(path, ROOT), number, target))
                elif not os.path.exists(resolved):
                    problems.append("%s:%d: link to a missing file: %s" % (os.path.relpath(path, ROOT), number, target))
    for path, number, text in case_comments():
        check_text(path, number, text)

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    if readme.count("\n") > 200:
        problems.append("README.md: %d lines, more than 200: move the detail to docs/" % readme.count("\n"))
    ci = [l.strip() for l in open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") if l.strip() and not l.startswith(("#", "set ", "cd "))]
    if not ci or ci[-1] not in readme:
        problems.append("README.md: the build command is not .ci/run's: %r" % (ci[-1] if ci else ""))

    manual = os.path.join(ROOT, "docs", "gpufem.1")
    if shutil.which("groff") and os.path.exists(manual):
        out = subprocess.run(["groff", "-man", "-z", "-ww", manual], capture_output=True, text=True)
        if out.returncode != 0 or out.stderr.strip():
            problems.append("docs/gpufem.1: groff: " + out.stderr.strip())

    for problem in problems:
        print(problem)
    print("check_docs: %d files, %d problems" % (len(documents()), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
