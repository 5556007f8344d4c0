"""``deploy/role``: one of the Procfile's processes by name, from the checkout it is in, with the host's
environment (what each host role's unit, ``deploy/systemd/punto@.service``, and the test bed's hosts start)."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def checkout(tmp_path: Path, procfile: str) -> Path:
    (tmp_path / "deploy").mkdir()
    shutil.copy2(ROOT / "deploy" / "role", tmp_path / "deploy" / "role")
    (tmp_path / "Procfile").write_text(procfile)
    return tmp_path / "deploy" / "role"


def test_a_process_runs_its_procfile_command_in_the_checkout_with_the_hosts_environment(tmp_path):
    role = checkout(tmp_path, 'web: echo web\ngreeter: mkdir -p var && echo "${GREETING:-none} $PWD" > var/out\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run([role, "greeter"], cwd=elsewhere, env={"PATH": "/usr/bin:/bin", "GREETING": "hi"}, check=True)
    assert (tmp_path / "var" / "out").read_text() == f"hi {tmp_path}\n"


def test_an_unknown_or_missing_name_is_refused_with_the_names_there_are():
    for args in (["nope"], [], ["we"], [".*"]):  # a prefix of a name, or a pattern, is no name
        run = subprocess.run([ROOT / "deploy" / "role", *args], capture_output=True, text=True)
        assert run.returncode == 2
        names = [line.partition(":")[0] for line in (ROOT / "Procfile").read_text().splitlines() if line]
        assert all(name in run.stderr.split() for name in names)
