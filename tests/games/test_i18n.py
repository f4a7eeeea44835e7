"""The translations: complete catalogs, compiled and committed, and English pages in English.

The .mo files are committed so a machine without gettext still serves English;
these tests read them with the standard library, no msgfmt needed.
"""

import gettext
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import bind, page_urls

ROOT = Path(__file__).resolve().parent.parent.parent
LOCALES = ("es", "en")


def read_po(path: Path) -> dict:
    """{msgid or (msgid, plural): msgstr or [msgstr...]} plus the fuzzy flags, minimal parser."""
    entries = {}
    for block in path.read_text().split("\n\n"):
        lines = block.strip().split("\n")
        if "#, fuzzy" in " ".join(line for line in lines if line.startswith("#,")):
            entries.setdefault("__fuzzy__", []).append(block)
        fields: dict[str, str] = {}
        key = None
        for line in lines:
            if line.startswith("#") or not line:
                continue
            match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (".*")$', line)
            if match:
                key = match.group(1)
                fields[key] = ""
                line = match.group(2)
            fields[key] += eval(line)  # a C-quoted string
        if not fields.get("msgid"):
            continue  # the header
        if "msgid_plural" in fields:
            entries[(fields["msgid"], fields["msgid_plural"])] = [
                fields[k] for k in sorted(k for k in fields if k.startswith("msgstr["))
            ]
        else:
            entries[fields["msgid"]] = fields["msgstr"]
    return entries


@pytest.mark.parametrize("language", LOCALES)
def test_every_message_is_translated_and_none_is_fuzzy(language):
    catalog = read_po(ROOT / "locale" / language / "LC_MESSAGES" / "django.po")
    assert "__fuzzy__" not in catalog
    assert len(catalog) > 200
    untranslated = [
        key
        for key, value in catalog.items()
        if not value or (isinstance(value, list) and not all(value))
    ]
    assert untranslated == []


@pytest.mark.parametrize("language", LOCALES)
def test_the_committed_mo_file_matches_its_po_file(language):
    folder = ROOT / "locale" / language / "LC_MESSAGES"
    catalog = read_po(folder / "django.po")
    with open(folder / "django.mo", "rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    assert len(catalog) > 200  # the parser read the catalog: an empty one would match anything
    for key, value in catalog.items():
        if isinstance(key, tuple):
            assert compiled.ngettext(key[0], key[1], 1) == value[0], key
            assert compiled.ngettext(key[0], key[1], 5) == value[1], key
        else:
            assert compiled.gettext(key) == value, key


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs gettext's xgettext")
def test_the_catalogs_hold_every_string_of_the_code_and_no_other(tmp_path):
    # Extract the messages from a copy of the code, so the real catalogs stay untouched.
    for name in ("games", "accounts", "config", "templates", "manage.py"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / "locale").mkdir()
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "en", "--no-location"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"},
    )
    extracted = read_po(tmp_path / "locale" / "en" / "LC_MESSAGES" / "django.po")
    committed = read_po(ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po")
    assert len(extracted) > 200
    missing = sorted(str(key) for key in extracted if key not in committed and key != "__fuzzy__")
    assert missing == [], "run makemessages and translate these"
    # A label the code dropped ("Match a N puntos") must not linger as a live entry.
    stale = sorted(str(key) for key in committed if key not in extracted)
    assert stale == [], "run make messages: it drops these"


@pytest.mark.django_db
def test_english_pages_show_no_spanish_sentence_from_the_catalog(room, alice, carol):
    catalog = read_po(ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po")
    # Long, distinctive Spanish sentences that have an English translation.
    spanish = [
        key
        for key, value in catalog.items()
        if isinstance(key, str) and key != value and len(key) > 25 and "%" not in key
    ]
    assert len(spanish) > 100  # enough sentences to look for
    bind(alice, room)
    urls = page_urls(room)
    for client in (alice.client, carol.client):
        for url in urls:
            response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
            assert response.status_code == 200, url  # an empty answer would hide nothing
            page = response.content.decode()
            leftovers = [sentence for sentence in spanish if sentence in page]
            assert leftovers == [], url
