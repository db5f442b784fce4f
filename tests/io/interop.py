#!/usr/bin/python3
"""Interoperability helpers for tests/test_io_interop.cpp (run with Debian's /usr/bin/python3).

  interop.py numpy-write DIR   files written by NumPy (np.save / savez / savez_compressed,
                               C and Fortran order, big-endian) + MANIFEST + raw references
  interop.py numpy-check DIR   loads the files tensora wrote (DIR/MANIFEST) with NumPy
  interop.py st-write DIR      a safetensors file written with json + struct only
  interop.py st-check DIR      parses tensora's safetensors file with the same json + struct reader

MANIFEST lines: file, member ('-' for .npy), tensora dtype, shape (comma separated, '-' for
0-d), order (C or F: the layout the file must have), raw reference (C-order little-endian bytes).
"""
import json
import os
import struct
import sys

DTYPES = [  # tensora name, NumPy little-endian type string
    ("Bool", "|b1"), ("I8", "|i1"), ("I16", "<i2"), ("I32", "<i4"), ("I64", "<i8"),
    ("U8", "|u1"), ("U16", "<u2"), ("U32", "<u4"), ("U64", "<u8"), ("F16", "<f2"),
    ("BF16", "|V2"), ("F32", "<f4"), ("F64", "<f8"), ("C64", "<c8"), ("C128", "<c16"),
]
SHAPES = [(), (0, 3), (5,), (2, 3, 4)]
ST_NAMES = {"Bool": "BOOL", "I8": "I8", "I16": "I16", "I32": "I32", "I64": "I64", "U8": "U8",
            "U16": "U16", "U32": "U32", "U64": "U64", "F16": "F16", "BF16": "BF16", "F32": "F32",
            "F64": "F64", "C64": "C64"}


def shape_text(shape):
    return ",".join(str(s) for s in shape) if shape else "-"


def parse_shape(text):
    return () if text == "-" else tuple(int(s) for s in text.split(","))


def sample(np, descr, shape, seed):
    """Deterministic values of every kind (bit patterns for V2 / BF16)."""
    n = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=n * np.dtype(descr).itemsize, dtype=np.uint8)
    if descr == "|b1":
        raw = raw & 1
    a = np.frombuffer(raw.tobytes(), dtype=descr).copy()
    if descr[1] in "fc":  # finite values, so the NumPy comparison can use ==
        a = (rng.standard_normal(n) * 100).astype(descr)
        if descr[1] == "c":
            a = a + 1j * (rng.standard_normal(n) * 10).astype(descr)
    return a.reshape(shape)


def ref_bytes(np, a):
    little = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
    return np.ascontiguousarray(a.astype(little)).tobytes(order="C")


def numpy_write(out):
    import numpy as np
    lines = []
    seed = 0
    for name, descr in DTYPES:
        for shape in SHAPES:
            seed += 1
            a = sample(np, descr, shape, seed)
            tag = f"{name}_{shape_text(shape).replace(',', 'x')}"
            with open(os.path.join(out, tag + ".ref"), "wb") as f:
                f.write(ref_bytes(np, a))
            np.save(os.path.join(out, tag + "_C.npy"), a.copy(order="C"))  # ascontiguousarray makes 0-d 1-D
            lines.append(f"{tag}_C.npy\t-\t{name}\t{shape_text(shape)}\tC\t{tag}.ref")
            if len(shape) >= 2 and 0 not in shape:
                np.save(os.path.join(out, tag + "_F.npy"), np.asfortranarray(a))
                lines.append(f"{tag}_F.npy\t-\t{name}\t{shape_text(shape)}\tF\t{tag}.ref")
            if descr[0] == "<":
                big = a.astype(descr.replace("<", ">"))
                np.save(os.path.join(out, tag + "_BE.npy"), big)
                lines.append(f"{tag}_BE.npy\t-\t{name}\t{shape_text(shape)}\tC\t{tag}.ref")
    # Archives: every dtype of the 3-D shape, C order, stored and compressed.
    members = {}
    for name, descr in DTYPES:
        a = sample(np, descr, (2, 3, 4), 1000 + len(members))
        members[name] = np.asfortranarray(a) if name in ("F32", "C128") else a
        with open(os.path.join(out, f"z_{name}.ref"), "wb") as f:
            f.write(ref_bytes(np, a))
    np.savez(os.path.join(out, "stored.npz"), **members)
    np.savez_compressed(os.path.join(out, "deflated.npz"), **members)
    for archive in ("stored.npz", "deflated.npz"):
        for name, _ in DTYPES:
            order = "F" if name in ("F32", "C128") else "C"
            lines.append(f"{archive}\t{name}\t{name}\t2,3,4\t{order}\tz_{name}.ref")
    with open(os.path.join(out, "MANIFEST"), "w") as f:
        f.write("\n".join(lines) + "\n")


def numpy_check(out):
    import numpy as np
    descr_of = dict(DTYPES)
    failures = 0
    checked = 0
    archives = {}
    for line in open(os.path.join(out, "MANIFEST")):
        fname, member, dtype, shape, order, ref = line.rstrip("\n").split("\t")
        path = os.path.join(out, fname)
        if member == "-":
            a = np.load(path, allow_pickle=False)
        else:
            if path not in archives:
                archives[path] = np.load(path, allow_pickle=False)
            a = archives[path][member]
        want_descr = descr_of[dtype]
        problems = []
        if a.dtype.str.replace("|", "<") != want_descr.replace("|", "<") and a.dtype.str != want_descr:
            problems.append(f"dtype {a.dtype.str} != {want_descr}")
        if a.shape != parse_shape(shape):
            problems.append(f"shape {a.shape} != {parse_shape(shape)}")
        if order == "F" and not a.flags.f_contiguous:
            problems.append("not Fortran-ordered")
        if order == "C" and not a.flags.c_contiguous:
            problems.append("not C-ordered")
        want = np.frombuffer(open(os.path.join(out, ref), "rb").read(), dtype=a.dtype).reshape(a.shape)
        if a.tobytes(order="C") != want.tobytes(order="C"):
            problems.append("values differ")
        if a.dtype.kind in "fc" and a.size and not np.array_equal(a, want, equal_nan=True):
            problems.append("values differ (numeric)")
        checked += 1
        if problems:
            failures += 1
            print(f"FAIL {fname} {member}: {'; '.join(problems)}")
    print(f"checked {checked} arrays, {failures} failures")
    return 1 if failures else 0


def st_read(path):
    """An independent reader: struct for the length, json for the header, offsets by the spec."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    meta = header.pop("__metadata__", {})
    spans = sorted((v["data_offsets"][0], v["data_offsets"][1]) for v in header.values())
    cursor = 0
    for b, e in spans:
        assert b == cursor, f"hole or overlap at {b}"
        cursor = e
    assert cursor == len(data), "trailing bytes"
    return header, meta, data


def st_write(out):
    """Tensors of each safetensors dtype (row-major), values from a fixed byte pattern."""
    tensors = []
    lines = []
    for i, (name, descr) in enumerate(DTYPES):
        if name == "C128":
            continue  # not a safetensors dtype
        item = int(descr[2:])  # bytes per element
        for j, shape in enumerate(SHAPES):
            count = 1
            for s in shape:
                count *= s
            raw = bytes(((k * 7 + i * 13 + j) % 251) & (1 if name == "Bool" else 0xFF)
                        for k in range(count * item))
            tag = f"st_{name}_{j}"
            tensors.append((tag, ST_NAMES[name], list(shape), raw))
            with open(os.path.join(out, tag + ".ref"), "wb") as f:
                f.write(raw)
            lines.append(f"x.safetensors\t{tag}\t{name}\t{shape_text(shape)}\tC\t{tag}.ref")
    header = {"__metadata__": {"writer": "json+struct", "quote": "\"q\" \u00e9"}}
    offset = 0
    for tag, dt, shape, raw in tensors:
        header[tag] = {"dtype": dt, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(out, "x.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors))
    with open(os.path.join(out, "MANIFEST"), "w") as f:
        f.write("\n".join(lines) + "\n")


def st_check(out):
    header, meta, data = st_read(os.path.join(out, "t.safetensors"))
    failures = 0
    want_meta = json.load(open(os.path.join(out, "metadata.json")))
    if meta != want_meta:
        print(f"FAIL metadata {meta} != {want_meta}")
        failures += 1
    checked = 0
    for line in open(os.path.join(out, "MANIFEST")):
        fname, member, dtype, shape, order, ref = line.rstrip("\n").split("\t")
        info = header[member]
        b, e = info["data_offsets"]
        want = open(os.path.join(out, ref), "rb").read()
        problems = []
        if info["dtype"] != ST_NAMES.get(dtype, dtype):
            problems.append(f"dtype {info['dtype']}")
        if tuple(info["shape"]) != parse_shape(shape):
            problems.append(f"shape {info['shape']}")
        if data[b:e] != want:
            problems.append("bytes differ")
        checked += 1
        if problems:
            failures += 1
            print(f"FAIL {member}: {'; '.join(problems)}")
    print(f"checked {checked} tensors, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "numpy-write":
        numpy_write(out)
    elif cmd == "numpy-check":
        sys.exit(numpy_check(out))
    elif cmd == "st-write":
        st_write(out)
    elif cmd == "st-check":
        sys.exit(st_check(out))
    else:
        sys.exit(f"unknown command {cmd}")
