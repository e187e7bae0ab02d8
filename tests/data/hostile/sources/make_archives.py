#!/usr/bin/env python3
"""Makes the hostile chart archives of this corpus (committed beside this script; run it again to remake them).

Each archive is a small chart `app` whose Chart.yaml or entries try to write outside the directory
`berth pull --untar` unpacks into: an empty or path-like chart name, absolute or climbing entry paths, links
pointing outside. Timestamps are fixed so that the bytes do not change from one run to the next.
"""
import gzip
import io
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def chart_yaml(name_line):
    return f"apiVersion: v2\n{name_line}\nversion: 1.0.0\n".encode()


def archive(file_name, name_line, extra=()):
    entries = [
        ("app/Chart.yaml", tarfile.REGTYPE, chart_yaml(name_line), ""),
        ("app/.bashrc", tarfile.REGTYPE, b"echo written by a hostile chart\n", ""),
        ("app/templates/cm.yaml", tarfile.REGTYPE, b"kind: ConfigMap\n", ""),
    ] + list(extra)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, data, link in entries:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.mode = 0o644
            info.mtime = 1_700_000_000
            info.linkname = link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    with open(os.path.join(HERE, file_name), "wb") as out:
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as compressed:
            compressed.write(raw.getvalue())


archive("untar-empty-name.tgz", 'name: ""')
archive("untar-no-name.tgz", "description: a chart without a name")
archive("untar-dot-name.tgz", "name: .")
archive("untar-dotdot-name.tgz", "name: ..")
archive("untar-slash-name.tgz", "name: ../../escaped")
archive("untar-backslash-name.tgz", "name: '..\\escaped'")
archive("untar-symlink-outside.tgz", "name: app", [("app/templates/passwd", tarfile.SYMTYPE, b"", "/etc/passwd")])
archive("untar-symlink-climbing.tgz", "name: app", [("app/templates/up", tarfile.SYMTYPE, b"", "../../../.ssh")])
archive("untar-hardlink-outside.tgz", "name: app", [("app/templates/hard", tarfile.LNKTYPE, b"", "../../.bashrc")])
archive("untar-absolute-entry.tgz", "name: app", [("app//tmp/berth-hostile-absolute", tarfile.REGTYPE, b"x\n", "")])
archive("untar-parent-entry.tgz", "name: app", [("app/../../berth-hostile-parent", tarfile.REGTYPE, b"x\n", "")])

# A well-formed chart, served where the hostility is elsewhere (an index's digest, a registry's answers).
archive("app-1.0.0.tgz", "name: app")
