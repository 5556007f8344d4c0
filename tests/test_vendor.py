"""scripts/vendor.py: the front-end packages of static-vendor.lock, pinned exactly, written only from a tarball
whose integrity matches, fetched again only when missing or outdated."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("vendor", ROOT / "scripts" / "vendor.py")
vendor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vendor)


def tarball(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class Answer(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def test_the_lock_pins_exact_versions_with_their_integrity():
    packages = json.loads(vendor.LOCK.read_text())["packages"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", packages["hls.js"]["version"])
    for package in packages.values():
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", package["integrity"])
    assert "package/dist/hls.light.min.mjs" in packages["hls.js"]["files"]


def test_a_package_is_written_only_from_a_matching_tarball_and_once(tmp_path, monkeypatch):
    monkeypatch.setattr(vendor, "VENDOR", tmp_path)
    data = tarball({"package/dist/player.mjs": b"export default 1;\n"})
    fetched: list[str] = []

    def urlopen(url: str, timeout: float) -> Answer:
        fetched.append(url)
        return Answer(data)

    monkeypatch.setattr(vendor.urllib.request, "urlopen", urlopen)
    spec = {"version": "1.2.3", "integrity": vendor.integrity_of(data), "files": {"package/dist/player.mjs": "p/p.mjs"}}

    vendor.package_fetch("player", spec)
    vendor.package_fetch("player", spec)  # up to date: not fetched again
    assert (tmp_path / "p" / "p.mjs").read_bytes() == b"export default 1;\n"
    assert fetched == ["https://registry.npmjs.org/player/-/player-1.2.3.tgz"]

    tampered = {**spec, "version": "1.2.4", "integrity": vendor.integrity_of(b"another tarball")}
    with pytest.raises(SystemExit, match="does not match the integrity"):
        vendor.package_fetch("player", tampered)
    assert (tmp_path / "p" / "p.mjs").read_bytes() == b"export default 1;\n"  # nothing written
