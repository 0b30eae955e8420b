"""The 猫有n条命 loss order as a person sets it on the act page (templates/games/act.html,
static/js/play-forms.js): the core card chosen in its select, the other cards put in order
with the 上移/下移 buttons, then sent. Nothing is typed."""

from __future__ import annotations


def cards_on_screen(page) -> list[str]:
    """The order the page shows, first lost first, the core card last (Chinese names)."""
    core = page.eval_on_selector("#id_core", "s => s.options[s.selectedIndex].text")
    return [*page.locator("#order-rows .order-card").all_inner_texts(), core]


def codes_on_screen(page) -> list[str]:
    """The same order as the form sends it: each position's select, then the core card."""
    return page.eval_on_selector_all("#order-rows select", "ss => ss.map(s => s.value)")


def choose_core(page, name: str) -> int:
    """Select the core card `name`; its place among the core cards offered (0: the first)."""
    offered = page.locator("#id_core option").all_inner_texts()
    page.select_option("#id_core", label=name)
    return offered.index(name)


def order_by_clicking(page, names: list[str]) -> int:
    """Put the cards `names` (Chinese) first, in this order, with 上移 alone: for each place
    from the top, the wanted card is clicked up until it gets there. The clicks made."""
    clicks = 0
    for place, name in enumerate(names):
        shown = page.locator("#order-rows .order-card").all_inner_texts()
        at = shown.index(name)
        while at > place:
            page.locator("#order-rows .order-row").nth(at).locator(".order-up").click()
            at -= 1
            clicks += 1
        assert page.locator("#order-rows .order-card").all_inner_texts()[place] == name
    return clicks


def send_order(page, follow) -> list[str]:
    """Send the loss-order form (by `follow`, the walk's click-and-wait); the codes it sent."""
    sent = codes_on_screen(page)
    follow(page, "#loss-order-submit")
    return sent
