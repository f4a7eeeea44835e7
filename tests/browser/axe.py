"""axe-core in the browser tests: every page checked, 0 violations.

axe-core comes from npm, pinned in package.json / package-lock.json and
installed by `npm ci` (.ci/run does it) into node_modules/. It is put into the
page through the DevTools protocol (`page.evaluate`), so the site's CSP, which
allows no inline script, neither blocks it nor has to be loosened for it.
Without node_modules the check is skipped with the reason (on CI it fails).
"""

from pathlib import Path

from tests.helpers import missing

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

# The WCAG 2.1 A and AA rules and axe's best practices, as the run used them.
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ")),
  }));
}"""


def violations(page) -> list[dict]:
    """axe-core's violations on the page as it stands now."""
    if not AXE.exists():
        missing(f"{AXE} is missing: run `npm ci` (axe-core, pinned in package-lock.json)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text())
    return page.evaluate(RUN)


def assert_accessible(page, where: str = "") -> None:
    found = violations(page)
    lines = [f"{v['id']} ({v['impact']}): {v['help']} at {', '.join(v['nodes'])}" for v in found]
    assert found == [], f"axe-core on {where or page.url}:\n" + "\n".join(lines)
