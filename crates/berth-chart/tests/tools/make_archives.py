#!/usr/bin/env python3
"""Writes the hand-crafted chart archives of the load-errors probe case (archives `helm package` would never
make: path traversal, absolute paths, misplaced Chart.yaml, oversized entries, non-tar content, symlinks).

Usage: make_archives.py CASE_DIR   (writes CASE_DIR/c/*.tgz and the subchart archives under CASE_DIR/c/*/charts)
Deterministic (fixed mtimes), so re-running leaves git clean.
"""
import gzip
import io
import os
import sys
import tarfile

CHART = b"apiVersion: v2\nname: %s\nversion: 0.1.0\n"
TEMPLATE = b"values: {{ toJson .Values }}\n"


def entry(tar, name, data=b"", kind=tarfile.REGTYPE, size=None, link=""):
    info = tarfile.TarInfo(name)
    info.mtime = 1700000000
    info.type = kind
    info.linkname = link
    info.size = len(data) if size is None else size
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def archive(path, entries, fmt=tarfile.USTAR_FORMAT):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as tar:
        for args in entries:
            entry(tar, *args)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(gzip.compress(raw.getvalue(), mtime=0))


def chart_entries(name, top=None):
    top = top or name
    return [
        (f"{top}/Chart.yaml", CHART % name.encode()),
        (f"{top}/values.yaml", b"x: 1\n"),
        (f"{top}/templates/t.yaml", TEMPLATE),
    ]


def main(case):
    c = os.path.join(case, "c")
    archive(f"{c}/traversal.tgz", chart_entries("traversal") + [("traversal/../../evil.txt", b"x")])
    archive(f"{c}/absolute.tgz", chart_entries("absolute") + [("absolute//etc/evil", b"x")])
    archive(f"{c}/misplaced.tgz", [("Chart.yaml/x", b"x")] + chart_entries("misplaced"))
    archive(f"{c}/no-chart-yaml.tgz", [("nochart/values.yaml", b"a: 1\n")])
    archive(f"{c}/symlink.tgz", chart_entries("symlink") + [("symlink/link.txt", b"", tarfile.SYMTYPE, 0, "/etc/passwd")])
    archive(f"{c}/gnu-long-name.tgz", chart_entries("longname") + [("longname/" + "d" * 120 + "/f.txt", b"long")], tarfile.GNU_FORMAT)
    archive(f"{c}/pax.tgz", chart_entries("pax") + [("pax/" + "é" * 60 + ".txt", b"pax")], tarfile.PAX_FORMAT)
    archive(f"{c}/windows.tgz", [("win\\Chart.yaml", CHART % b"win"), ("win\\templates\\t.yaml", TEMPLATE)])
    archive(f"{c}/bom.tgz", [("bom/Chart.yaml", b"\xef\xbb\xbf" + CHART % b"bom"), ("bom/values.yaml", b"\xef\xbb\xbfk: v\n"), ("bom/templates/t.yaml", TEMPLATE)])
    archive(f"{c}/two-tops.tgz", chart_entries("two") + [("other/values.yaml", b"fromOtherTop: 1\n")])
    with open(f"{c}/not-tar.tgz", "wb") as out:
        out.write(gzip.compress(b"this is not a tar stream" * 30, mtime=0))
    with open(f"{c}/truncated.tgz", "wb") as out:
        whole = open(f"{c}/pax.tgz", "rb").read()
        out.write(whole[: len(whole) // 2])
    # Subcharts: the same refusals inside charts/, where Helm reports their detail.
    for name, entries in [
        ("sub-traversal", chart_entries("inner") + [("inner/../../evil.txt", b"x")]),
        ("sub-misplaced", [("Chart.yaml/x", b"x")] + chart_entries("inner")),
        ("sub-oversized", chart_entries("inner") + [("inner/big.bin", b"", tarfile.REGTYPE, 6 * 1024 * 1024)]),
    ]:
        parent = f"{c}/{name}"
        os.makedirs(f"{parent}/templates", exist_ok=True)
        with open(f"{parent}/Chart.yaml", "wb") as out:
            out.write(CHART % b"parent")
        with open(f"{parent}/templates/t.yaml", "wb") as out:
            out.write(TEMPLATE)
        if name == "sub-oversized":
            # A header claiming 6 MiB with no data behind it: the size check must come first.
            raw = io.BytesIO()
            with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
                for args in entries[:-1]:
                    entry(tar, *args)
                info = tarfile.TarInfo("inner/big.bin")
                info.size = 6 * 1024 * 1024
                info.mtime = 1700000000
                raw.write(info.tobuf(format=tarfile.USTAR_FORMAT))
            os.makedirs(f"{parent}/charts", exist_ok=True)
            with open(f"{parent}/charts/inner-0.1.0.tgz", "wb") as out:
                out.write(gzip.compress(raw.getvalue(), mtime=0))
        else:
            archive(f"{parent}/charts/inner-0.1.0.tgz", entries)


main(sys.argv[1])
