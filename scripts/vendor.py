"""Fetch the front-end packages of static-vendor.lock into static/vendor/ (git-ignored), with no Node.

Each package's npm tarball comes from registry.npmjs.org and must match the lock's sha512 integrity
before anything is written; the files the lock names are extracted. A package whose stamp already
says this version and integrity, with its files present, is left as it is. Standard library only.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "static-vendor.lock"
VENDOR = ROOT / "static" / "vendor"
REGISTRY = "https://registry.npmjs.org"


def tarball_url(name: str, version: str) -> str:
    return f"{REGISTRY}/{name}/-/{name.rsplit('/', 1)[-1]}-{version}.tgz"


def integrity_of(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def package_fetch(name: str, spec: dict) -> None:
    stamp = VENDOR / f".{name.replace('/', '+')}.stamp"
    wanted = f"{spec['version']} {spec['integrity']}"
    targets = {member: VENDOR / target for member, target in spec["files"].items()}
    if stamp.is_file() and stamp.read_text().strip() == wanted and all(path.is_file() for path in targets.values()):
        return
    with urllib.request.urlopen(tarball_url(name, spec["version"]), timeout=60) as answer:  # noqa: S310 (https)
        data = answer.read()
    if integrity_of(data) != spec["integrity"]:
        sys.exit(f"vendor: {name} {spec['version']}: the tarball does not match the integrity in {LOCK.name}")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member, path in targets.items():
            source = archive.extractfile(member)
            if source is None:
                sys.exit(f"vendor: {name} {spec['version']} has no file {member}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(source.read())
    stamp.write_text(wanted + "\n")
    print(f"vendor: {name} {spec['version']} installed in {VENDOR}")


def main() -> None:
    VENDOR.mkdir(parents=True, exist_ok=True)
    for name, spec in json.loads(LOCK.read_text())["packages"].items():
        package_fetch(name, spec)


if __name__ == "__main__":
    main()
