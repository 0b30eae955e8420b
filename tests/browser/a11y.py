"""The two accessibility checks the browser tests run on a page (tests/browser/
test_reach_and_comfort.py, test_a11y_admin.py): axe-core (vendored,
tests/browser/vendor/axe.min.js, injected into the test's own browser context, whose
content security policy the test bypasses) and the site's own target size, every link,
button and field a finger aims at at least MIN x MIN CSS px (stricter than axe's target-size
rule, which lets a small target pass when it has room around it)."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLOCKING = ("serious", "critical")
MIN = 24

# Every link, button, field and radio or checkbox row a finger aims at, with its size. A
# radio or checkbox is measured by its row (the label that holds it). Links inside a post's
# or a quote's text are words of a sentence (WCAG 2.5.8's inline exception) and are left out.
MEASURE = """() => {
  const out = [];
  const seen = new Set();
  const nodes = document.querySelectorAll(
    'a[href], button, select, textarea, summary, input:not([type=hidden])');
  for (let el of nodes) {
    if (el.closest('.post-body, .quote-body')) continue;
    if ((el.type === 'radio' || el.type === 'checkbox') && el.closest('label')) el = el.closest('label');
    if (seen.has(el)) continue;
    seen.add(el);
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    if (el.classList.contains('skip-link')) continue;  // off screen until focused, measured then
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    out.push({what: el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
              (el.className ? '.' + String(el.className).split(' ').join('.') : ''),
              text: (el.innerText || el.value || '').trim().slice(0, 20),
              width: Math.round(r.width * 10) / 10, height: Math.round(r.height * 10) / 10});
  }
  return out;
}"""


def targets(page) -> list[dict]:
    """Every target of the page as shown: {what, text, width, height}."""
    return page.evaluate(MEASURE)


def small_targets(page) -> list[dict]:
    """The targets of the page smaller than MIN x MIN px."""
    return [t for t in targets(page) if t["width"] < MIN or t["height"] < MIN]


# What a colour scheme changes: the rules to run again in the second scheme of a page.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def axe_findings(page, scheme: str, *, only: tuple[str, ...] = ()) -> list[dict]:
    """axe's violations of the page as shown in colour scheme `scheme` ("light" or "dark"),
    the target-size rule on; `only` these rules when given (COLOUR_RULES: the page was
    checked whole in the other scheme). [{id, impact, nodes}]"""
    page.emulate_media(color_scheme=scheme)
    # The admin's links and buttons fade to the scheme's colours (CSS transitions of 0.15 s):
    # axe reads the colours once none is running.
    page.wait_for_function("""() => document.getAnimations().every(
        a => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity)""")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    options = ({"runOnly": {"type": "rule", "values": list(only)}} if only else
               {"rules": {"target-size": {"enabled": True}}})
    return page.evaluate("""async (options) => {
        const r = await axe.run(document, Object.assign({resultTypes: ["violations"]}, options));
        return r.violations.map(v => ({id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " " + n.failureSummary)}));
    }""", options)


def blocking(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["impact"] in BLOCKING]
