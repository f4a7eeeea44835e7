"""The README and docs/*.md as shipped: every relative link reaches a file (and,
with a #fragment, a heading of it, named as GitHub names headings), the README
stays a screen or two, and it points to every page under docs/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
# [text](target) or [text](target "title"); an image's ![alt](src) too.
INLINE = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def prose(text: str) -> Iterator[tuple[int, str]]:
    """Each line outside fenced code blocks, with its number."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def links(text: str) -> list[tuple[int, str]]:
    """The targets of the inline and reference links, outside code."""
    found = []
    for number, line in prose(text):
        if match := REFERENCE.match(line):
            found.append((number, match.group(1)))
            continue
        line = CODE_SPAN.sub("", line)
        found.extend((number, match.group(1)) for match in INLINE.finditer(line))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower case, without punctuation
    (letters, digits, `_`, `-` and spaces stay), spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor; a repeated one gets -1, -2... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose(text):
        if match := HEADING.match(line):
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken(page: Path, text: str, root: Path = ROOT) -> list[str]:
    """Each relative link of `text` (read from `page`, under `root`) that leads nowhere."""
    problems = []
    for number, target in links(text):
        if EXTERNAL.match(target):
            continue
        path, _, fragment = target.partition("#")
        where = f"{page.relative_to(root)}:{number}: {target}"
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            problems.append(f"{where}: no such file")
        elif fragment and goal.suffix == ".md" and fragment not in anchors(goal.read_text()):
            problems.append(f"{where}: no heading #{fragment} in {goal.relative_to(root)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading(page):
    assert broken(page, page.read_text()) == []


def test_the_readme_fits_on_a_screen_or_two():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES


def test_the_readme_points_to_every_page_under_docs():
    targets = {target.partition("#")[0] for _, target in links((ROOT / "README.md").read_text())}
    pages = {f"docs/{page.name}" for page in PAGES[1:]}
    assert pages - targets == set()


def test_the_checker_finds_what_is_broken_and_passes_what_is_not(tmp_path):
    other = "# Other page\n\n## Rate limits: 429\n\n## Rate limits: 429\n"
    (tmp_path / "other.md").write_text(other)
    page = tmp_path / "page.md"
    text = (
        "# Page\n"
        "[ok](other.md) [ok](other.md#rate-limits-429) [ok](other.md#rate-limits-429-1)\n"
        "[ok](#page) [ok](https://example.com/missing.md) ![img](other.md)\n"
        "`[in code](missing.md)`\n"
        "```\n[in a block](missing.md)\n```\n"
        "[gone](missing.md) [no heading](other.md#rate-limits)\n"
        "[ref]: also-missing.md\n"
    )
    page.write_text(text)
    assert broken(page, text, root=tmp_path) == [
        "page.md:8: missing.md: no such file",
        "page.md:8: other.md#rate-limits: no heading #rate-limits in other.md",
        "page.md:9: also-missing.md: no such file",
    ]
