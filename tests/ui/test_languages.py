"""Languages (docs/ui.md, Languages): the Chinese catalogues complete, compiled as committed, and the pages in the
language the browser asks for, the menu's choice or a partner's launch."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

ROOT = Path(settings.BASE_DIR)
CATALOGUES = sorted((ROOT / "locale").glob("*/LC_MESSAGES/*.po"))
FIELD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$')


def entries(path: Path) -> list[dict[str, str]]:
    """The catalogue's entries (the header apart): each field's text, and its flags."""
    found = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        fields: dict[str, list[str]] = {}
        flags = ""
        current = None
        for line in block.splitlines():
            if line.startswith("#,"):
                flags += line
            elif match := FIELD.match(line):
                current = match[1]
                fields[current] = [match[2]]
            elif line.startswith('"') and current:
                fields[current].append(line)
        text = {name: "".join(ast.literal_eval(part) for part in parts) for name, parts in fields.items()}
        if text.get("msgid"):
            found.append({**text, "flags": flags})
    return found


def test_there_are_catalogues():
    assert {path.parent.parent.name for path in CATALOGUES} >= {"zh_Hans"}
    assert {path.stem for path in CATALOGUES} == {"django", "djangojs"}


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_every_message_is_translated_and_none_is_fuzzy(path):
    found = entries(path)
    assert len(found) > 100
    untranslated = [entry["msgid"] for entry in found if not (entry.get("msgstr") or entry.get("msgstr[0]"))]
    fuzzy = [entry["msgid"] for entry in found if "fuzzy" in entry["flags"]]
    assert not untranslated, untranslated
    assert not fuzzy, fuzzy
    for entry in found:  # the placeholders survive the translation
        translated = entry.get("msgstr") or entry.get("msgstr[0]")
        assert sorted(re.findall(r"%\(\w+\)s", translated)) == sorted(set(re.findall(r"%\(\w+\)s", entry["msgid"])))


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_compiled_catalogue_is_committed_and_msgfmt_finds_nothing_missing(path, tmp_path):
    assert path.with_suffix(".mo").exists()
    if not shutil.which("msgfmt"):
        pytest.skip("no msgfmt here")
    checked = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", str(tmp_path / "out.mo"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "untranslated" not in checked.stderr and "fuzzy" not in checked.stderr, checked.stderr
    assert (tmp_path / "out.mo").read_bytes() == path.with_suffix(".mo").read_bytes(), "run compilemessages"


@pytest.mark.django_db
def test_the_lobby_speaks_the_browsers_language_or_the_menus(client):
    chinese = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert '<html lang="zh-hans">' in chinese.text
    assert "真人牌桌" in chinese.text
    assert 'value="en"' in chinese.text and '<span class="language-long">English</span>' in chinese.text
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US")
    assert '<html lang="en">' in english.text and "Live tables" in english.text
    assert '<span class="language-long">简体中文</span>' in english.text

    chosen = client.post(reverse("set_language"), {"language": "en", "next": "/"}, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert chosen.status_code == 302
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert "Live tables" in client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN").text


@pytest.mark.django_db
def test_the_javascript_catalogue_is_chinese_for_a_chinese_browser(client):
    catalogue = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert catalogue.status_code == 200
    assert "\\u66f1\\u7534\\u8def" in catalogue.text or "曱甴路" in catalogue.text  # Cockroach Pig
