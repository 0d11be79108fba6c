#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every relative link in the documentation points at something that exists.

    scripts/check-doc-links.py [FILE.md ...]    (default: README.md and docs/*.md)

Checks inline links and images, [text](target), and reference definitions, [id]: target,
outside code blocks and code spans. A target with a scheme (https:, mailto:) is not
followed. A relative target must name an existing file or directory of the repository; a
fragment (#section) into a Markdown file must name one of its headings, as GitHub derives
heading anchors. Prints each broken link as FILE:LINE: target: reason and exits 1 if there
is any.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1) == fence:
                    fence = None
                continue
            if fence is None:
                yield number, line.rstrip("\n")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every anchor of a Markdown file's headings (repeats get -1, -2, ... as on GitHub)."""
    if path not in _anchors:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        _anchors[path] = found
    return _anchors[path]


def targets(path):
    """(line number, target) of every link in a Markdown file's prose."""
    for number, line in prose_lines(path):
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)
            continue
        for m in INLINE_LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, m.group(1)


def problem(source, target):
    """Why a link is broken, or None."""
    if not target:
        return "empty target"
    if SCHEME.match(target):
        return None
    path, _, fragment = target.partition("#")
    if path:
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path))
        if os.path.commonpath([resolved, ROOT]) != ROOT:
            return "outside the repository"
        if not os.path.exists(resolved):
            return "no such file"
    else:
        resolved = source
    if fragment and resolved.endswith(".md") and os.path.isfile(resolved):
        if fragment not in anchors(resolved):
            return f"no heading with anchor #{fragment} in {os.path.relpath(resolved, ROOT)}"
    return None


def main(argv):
    if argv:
        files = [os.path.abspath(a) for a in argv]
    else:
        docs = os.path.join(ROOT, "docs")
        files = [os.path.join(ROOT, "README.md")] + sorted(
            os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    checked = broken = 0
    for source in files:
        for number, target in targets(source):
            checked += 1
            reason = problem(source, target)
            if reason:
                broken += 1
                print(f"{os.path.relpath(source, ROOT)}:{number}: {target}: {reason}")
    print(f"doc links: {checked} checked in {len(files)} files, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
