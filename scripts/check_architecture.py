#!/usr/bin/env python3
"""check_architecture.py: keeps docs/ARCHITECTURE.md, the other docs and the comments of the C
sources true about the tree (the `unit` suite runs it).

Fails, with one line per problem, when
  - a file or folder named (a path under src/, cl/, include/, ...) no longer exists, where the
    namer is docs/ARCHITECTURE.md, another page of docs/, README.md or a comment in the C of
    src/, blas/, tools/, bench/ or tests/; a pattern (cl/*.cl) must match something; skipped are
    a template (src/families/<name>.c), a path in git's revision:path form
    (c870418:tests/gpu/x.sh, a file the history keeps) and a path of another project, cited on a
    line after its github.com address;
  - a file of a layer folder of src/ includes the header of a layer above its own, in the order
    of the page's line "Layers, lowest first: `core` < `types` < ...";
  - two files of src/ (or two of blas/) call each other's functions: a circle no layer order
    shows (functions are found by their definitions at the start of a line, not static).

Usage: scripts/check_architecture.py [REPO_ROOT]   (default: the repository holding this script)
"""
import glob
import os
import re
import sys

TOP_FOLDERS = "src|cl|include|blas|tools|bench|tests|scripts|python|fuzz|cmake|docs|examples"
PATH = re.compile(r"(?<![\w./:-])((?:%s)/[\w./*<>-]*[\w*/>])" % TOP_FOLDERS)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
FOREIGN = re.compile(r"github\.com/[^\n]*$")
LAYERS = re.compile(r"^Layers, lowest first:(.*)$", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"(\w+)/', re.M)
DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)


def named_paths(text):
    """The paths a text names, in order, each once; none of another project's tree."""
    seen = []
    for match in PATH.finditer(text):
        path = match.group(1)
        line = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
        if path not in seen and not FOREIGN.search(line):
            seen.append(path)
    return seen


def cited_texts(root):
    """(name, text) of every page and source whose citations are checked: the docs whole, the C
    sources (src/, blas/, tools/, bench/, tests/) by their comments only (their code holds paths
    that are not the tree's)."""
    texts = []
    pages = sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    for path in pages + [os.path.join(root, "README.md")]:
        with open(path, encoding="utf-8") as f:
            texts.append((os.path.relpath(path, root), f.read()))
    sources = []
    for folder in ("src", "blas", "tools", "bench", "tests"):
        sources += sorted(glob.glob(os.path.join(root, folder, "**", "*.[ch]"), recursive=True))
    for path in sources:
        with open(path, encoding="utf-8") as f:
            texts.append((os.path.relpath(path, root), "\n".join(COMMENT.findall(f.read()))))
    return texts


def missing_paths(root, texts):
    problems = []
    for name, text in texts:
        for path in named_paths(text):
            if "<" in path:
                continue
            full = os.path.join(root, path)
            exists = glob.glob(full) if "*" in path else os.path.exists(full)
            if not exists:
                problems.append("%s names %s, which does not exist" % (name, path))
    return problems


def upward_includes(root, text):
    match = LAYERS.search(text)
    if not match:
        return ['docs/ARCHITECTURE.md has no line "Layers, lowest first: ..."']
    order = re.findall(r"`(\w+)`", match.group(1))
    problems = []
    for layer in order:
        if not os.path.isdir(os.path.join(root, "src", layer)):
            problems.append("docs/ARCHITECTURE.md names layer %s, which src/ lacks" % layer)
    for path in sorted(glob.glob(os.path.join(root, "src", "*", "*.[ch]"))):
        layer = os.path.basename(os.path.dirname(path))
        if layer not in order:
            problems.append("%s: folder %s is not in the page's layer order" %
                            (os.path.relpath(path, root), layer))
            continue
        with open(path, encoding="utf-8") as f:
            source = f.read()
        for used in INCLUDE.findall(source):
            if used in order and order.index(used) > order.index(layer):
                problems.append("%s (layer %s) includes a header of %s, a layer above it" %
                                (os.path.relpath(path, root), layer, used))
    return problems


def mutual_calls(root):
    problems = []
    for pattern in ("src/*/*.c", "blas/*.c"):
        paths = sorted(glob.glob(os.path.join(root, pattern)))
        sources = {}
        for path in paths:
            with open(path, encoding="utf-8") as f:
                sources[os.path.relpath(path, root)] = f.read()
        defined_in = {}
        for name, source in sources.items():
            for function in DEFINITION.findall(source):
                defined_in.setdefault(function, name)
        calls = {}
        for name, source in sources.items():
            calls[name] = {defined_in[f] for f in set(re.findall(r"\b(\w+)\s*\(", source))
                           if f in defined_in and defined_in[f] != name}
        for a in sorted(calls):
            for b in sorted(calls[a]):
                if a < b and a in calls.get(b, ()):
                    problems.append("%s and %s call each other's functions" % (a, b))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
        text = f.read()
    texts = cited_texts(root)
    problems = missing_paths(root, texts) + upward_includes(root, text) + mutual_calls(root)
    for p in problems:
        print(p)
    named = sum(len(named_paths(t)) for _, t in texts)
    print("check_architecture: %d paths named in %d files, %d problems" %
          (named, len(texts), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
