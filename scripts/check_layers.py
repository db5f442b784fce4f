#!/usr/bin/python3
"""Fails on an #include that runs upward or sideways between the layers of src/.

The layer order and what each layer may include are read from src/layers.txt (the one place
they are written; src/CMakeLists.txt builds the targets from it too). A file in src/<layer>/
may include "<layer>/...", "tensora/..." (the public headers), system headers and the headers
of the layers its line lists. Lines `known <file> <header> <why>` are reported but do not fail.
Usage: scripts/check_layers.py [repo root]; exit status 1 lists every bad include as file:line.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/[^"]+"')


def read_layers(path):
    allowed, known = {}, {}
    for raw in path.read_text().splitlines():
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "known":
            known[(words[1], words[2])] = " ".join(words[3:])
        else:
            allowed[words[0]] = set(words[1:])
    return allowed, known


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    src = root / "src"
    allowed, known = read_layers(src / "layers.txt")
    bad, seen_known, found_known = [], [], []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".h") or not path.is_file():
            continue
        rel = path.relative_to(src)
        layer = rel.parts[0]
        if len(rel.parts) < 2:
            continue
        if layer not in allowed:
            bad.append(f"src/{rel}:1: folder '{layer}' is not a layer in src/layers.txt")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target in ("tensora", layer) or target in allowed[layer]:
                continue
            header = line.split('"')[1]
            where = f"src/{rel}:{number}: {layer} includes \"{header}\""
            if (rel.as_posix(), header) in known:
                seen_known.append(f"{where}  (known exception: {known[(rel.as_posix(), header)]})")
                found_known.append((rel.as_posix(), header))
                continue
            if target not in allowed:
                bad.append(f"{where}: '{target}' is not a layer")
            else:
                bad.append(f"{where}: {layer} may include only {', '.join(sorted(allowed[layer])) or 'itself'}")
    for line in seen_known:
        print(line)
    cleared = set(known) - {tuple(k) for k in found_known}
    for file, header in sorted(cleared):
        print(f"src/{file}: no longer includes \"{header}\": drop its `known` line from src/layers.txt")
    if bad:
        print("check_layers: includes that run upward or sideways (src/layers.txt):", file=sys.stderr)
        for line in bad:
            print("  " + line, file=sys.stderr)
        return 1
    print(f"check_layers: {len(allowed)} layers, no upward or sideways includes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
