"""Playing: the seat's conversation with 神的使者 with the action form, and the vote box
above a phase's vote thread. Thin: reads through games.selectors, writes through services."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from config.http import is_page_navigation  # issue 16 item 1 (ops branch)
from config.inputs import (
    InputError,
    check_param_keys,
    offered_picks,
    parse_choice,
    parse_int,
    parse_offered_choice,
)
from config.ratelimit import consume
from messaging import services as forum
from messaging.models import Message, Thread

from .. import rulesets, selectors, services
from ..engine.base import Choice
from ..models import Game, Vote
from ..presenters import (
    choice_label,
    field_label,
    listing,
    param_label,
    picker_entry,
    seat_name,
    tally_line,
    vote_heading,
)
from .pages import game_links, game_or_404

# Steps a seat may send in one phase before it must wait (issue 16 item 4): enough to change
# one's mind many times, not enough to fill the GM's and the seat's logs.
ACTION_RATE = "10/10m"


def choice_value(choice: Choice) -> str:
    """The option's value in the form. Two choices differing only in their free texts (an
    attack with a manifesto or with a story) get different values ("texts")."""
    data: dict = {"kind": choice.kind, "params": choice.params}
    if choice.text_fields:
        data["texts"] = [f.name for f in choice.text_fields]
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


# Parameters a multi-part choice offers as pickers of their own (issue 14 item 7), in the order
# the pickers appear: the card, then the seat (or the virtual player) it is used on, then the
# death-pact bandit. A 猫有n条命 card use is one option with a card picker and a target picker,
# not one option per (card, target, text) combination; the classic night kill's victim and
# pact bandit likewise; gold's replacement picks a card of the hand and a virtual player.
PICK_KEYS = ("card", "target", "pact", "virtual")
# Picked parameters that name a seat: their entries read "3 · 阿狗".
SEAT_PICKS = ("target", "pact")


@dataclass
class Option:
    """One option of the act form's action list. `combos` (grouped options only) is the JSON
    of every combination the rules offer: [{"params": {...}, "texts": [...]}] (the texts a
    combination may carry, any one of them). The page's script reads it to narrow the
    pickers; the server never trusts it (`complete_picks` asks the rules again)."""

    value: str
    label: str
    combos: str = ""


@dataclass
class Picker:
    key: str
    label: str
    entries: list[tuple[str, str]]  # (the value as the form sends it, its label)


def pick_value(value) -> str:
    """A picked parameter as its picker's option value: a seat 2 -> "2", a card "JAIL"."""
    return str(value)


def _group_key(choice: Choice) -> tuple:
    keys = tuple(k for k in PICK_KEYS if k in choice.params)
    fixed = {k: v for k, v in choice.params.items() if k not in keys}
    return choice.kind, json.dumps(fixed, sort_keys=True), keys


def grouped_options(ruleset: str, choices: list[Choice], names: dict[int, str]):
    """(options, pickers) of the act form.

    1. Choices of one kind with the same other parameters that each name two or more
       PICK_KEYS (a card and its target; a victim and a pact bandit) are ONE option naming
       those keys under "picks", whatever text each combination asks for; each key gets a
       picker (a select) listing every value the rules offer for it.
    2. Every other choice is an option of its own (a card without a target, a vote...).
    A grouped option's step is completed from the pickers and must be one of `choices`
    (`complete_picks`), so the pickers can only send what the rules offered.
    """
    groups: dict[tuple, list[Choice]] = {}
    for c in choices:
        groups.setdefault(_group_key(c), []).append(c)
    options: list[Option] = []
    pickers: dict[str, dict] = {}
    for (kind, fixed_json, keys), group in groups.items():
        if len(keys) < 2:
            options += [Option(choice_value(c), choice_label(ruleset, c, names)) for c in group]
            continue
        fixed = json.loads(fixed_json)
        combos: dict[str, dict] = {}
        for c in group:
            combo = combos.setdefault(json.dumps(c.params, sort_keys=True),
                                      {"params": c.params, "texts": []})
            combo["texts"] += [f.name for f in c.text_fields if f.name not in combo["texts"]]
            for k in keys:
                pickers.setdefault(k, {}).setdefault(
                    c.params[k], pick_label(ruleset, k, c.params[k], names, group))
        value = json.dumps({"kind": kind, "params": fixed, "picks": list(keys)},
                           sort_keys=True, ensure_ascii=False)
        options.append(Option(value, choice_label(ruleset, Choice(kind, fixed), names),
                              json.dumps(list(combos.values()), ensure_ascii=False)))
    rows = []
    for k in PICK_KEYS:  # the pickers in PICK_KEYS order; seats by number, cards as held
        if k in pickers:
            values = pickers[k].items()
            if all(isinstance(v, int) for v in pickers[k]):
                values = sorted(values)
            rows.append(Picker(k, field_label(k), [(pick_value(v), lab) for v, lab in values]))
    return options, rows


def seat_name_of(names: dict[int, str], seat) -> str:
    """A picker's entry: "6 · 大黄" (the seat's number from 1, and its player)."""
    return f"{seat + 1} · {names.get(seat, '')}".rstrip(" ·") if isinstance(seat, int) \
        else str(seat)


def pick_label(ruleset: str, key: str, value, names: dict[int, str], group) -> str:
    """A picker's entry: a seat as "3 · 阿狗", a card or a virtual player by the presenter."""
    if key in SEAT_PICKS and isinstance(value, int):
        return seat_name_of(names, value)
    return picker_entry(ruleset, key, value, names, group)


def texts_hint(options: list[Option], pickers: list[Picker]) -> str:
    """The line above the free-text boxes when a picked combination takes one text among
    several (an attack: a manifesto or a story of one's own): "使用狙击手、杀手时，只写以下
    其中一项：杀人宣言、剧情。" ("" when no combination offers a choice of texts)."""
    first = {p.key: dict(p.entries) for p in pickers}
    which, texts = {}, {}
    for option in options:
        if not option.combos:
            continue
        lead = json.loads(option.value)["picks"][0]
        for combo in json.loads(option.combos):
            if len(combo["texts"]) > 1:
                value = pick_value(combo["params"][lead])
                which.setdefault(value, first[lead].get(value, value))
                texts.update((t, field_label(t)) for t in combo["texts"])
    if not which:
        return ""
    return _("With %(what)s, write only one of these: %(texts)s.") % {
        "what": listing(which.values()), "texts": listing(texts.values())}


def complete_picks(request, game: Game, seat_number: int, kind: str, params: dict,
                   picks: list[str]) -> list[Choice]:
    """Fill the picked parameters from the `pick_<key>` selects and check that the step is
    one the rules offered; the offered choices it matches (one per text it may carry).

    1. The picked keys are PICK_KEYS, each once, none already fixed by the option.
    2. Each picker's value must be exactly one of the values its select offers for this
       option (a string compared as it was sent: "²" or "０" is no seat, a card the seat does
       not hold is no card), and offered together with the values picked before it.
    Otherwise InputError: a readable refusal, nothing stored.
    """
    if not picks or len(set(picks)) != len(picks) or any(
            k not in PICK_KEYS or k in params for k in picks):
        raise InputError(_("Choose one of the offered actions."), field="choice")
    names = selectors.seat_names(game)
    live = [c for c in selectors.legal_actions_for(game, seat_number) if c.kind == kind
            and all(k in c.params for k in picks)
            and {k: v for k, v in c.params.items() if k not in picks} == params]
    if not live:
        raise InputError(_("Choose one of the offered actions."), field="choice")
    group, earlier = live, []
    for key in picks:
        what = field_label(key)
        raw = request.POST.get(f"pick_{key}", "")
        if raw == "":
            raise InputError(_("Choose %(what)s.") % {"what": what}, field=f"pick_{key}")
        offered = {pick_value(c.params[key]): c.params[key] for c in live}
        if raw not in offered:
            if earlier and raw in {pick_value(c.params[key]) for c in group}:
                raise InputError(_("The %(what)s you chose cannot go with %(earlier)s; "
                                   "choose again.") % {"what": what, "earlier": listing(earlier)},
                                 field=f"pick_{key}")
            raise InputError(_("The %(what)s you chose is not one of those offered; choose "
                               "from the list.") % {"what": what}, field=f"pick_{key}")
        value = offered[raw]
        live = [c for c in live if c.params[key] == value]
        params[key] = value
        earlier.append(_("%(what)s “%(value)s”") % {
            "what": what, "value": pick_label(game.ruleset, key, value, names, group)})
    return live


def chosen_texts(typed: dict[str, str], matching: list[Choice]) -> dict[str, str]:
    """The free texts that travel with a picked combination: those its choices ask for.
    A combination that takes one text among several (a manifesto or a story) takes the one
    written; both written is refused (InputError), none written goes to the rules, which say
    what is missing."""
    alternatives = [tuple(f.name for f in c.text_fields) for c in matching]
    wanted = {name for alt in alternatives for name in alt}
    written = {name: text for name, text in typed.items() if name in wanted}
    if len(alternatives) > 1 and not any(set(written) <= set(alt) for alt in alternatives):
        raise InputError(_("Write only one of these: %(texts)s.") % {
            "texts": listing(field_label(n) for n in sorted(written))}, field="choice")
    return written


def split_list(value: str) -> list[str]:
    """A list typed in a text box: items separated by commas (any width), 、 or spaces."""
    return [v.strip() for v in re.split(r"[,，、\s]+", value) if v.strip()]


def typed_items(ruleset: str, key: str, offered: list, typed: list[str],
                names: dict[int, str]) -> list:
    """The typed items as the rules name them: an item typed the way the page shows it (a
    card's Chinese name, `param_label`) is that item of the offered list; anything else
    stays as typed (an engine code, or a mistake the rules refuse with a reason)."""
    shown = {param_label(ruleset, key, [item], names): item for item in offered}
    return [shown.get(t, t) for t in typed]


def fill_list(offered: list, typed: list[str]) -> list:
    """The list parameter of a chosen option with the order the player typed, if any.

    An empty box keeps the option exactly as its label shows it. A typed order applies, but
    the option decides the last item (a loss order's core card: the option picked names it),
    so the typed list loses one copy of it and gets it appended. A typed list that is not the
    option's items in some order reaches the rules unchanged, which refuse it with a reason.
    """
    if not typed or not offered:
        return typed or offered
    last = offered[-1]
    rest = list(typed)
    if last in rest:
        rest.remove(last)
    return rest + [last]


@login_required
def act(request, pk):
    """The seat's conversation with 神的使者 in this game, with the action form."""
    game = game_or_404(pk)
    seat = selectors.seat_of(game, request.user)
    if seat is None:
        raise Http404
    status = 200
    if request.method == "POST":
        try:
            return _submit(request, game, seat)
        except InputError as refused:  # the form again, with the sentence; nothing stored
            messages.error(request, refused.message)
            status = 400
    view, _seat = selectors.view_for(game, request.user)
    names = selectors.seat_names(game)
    choices = selectors.legal_actions_for(game, seat.number)
    # Votes are cast in the box above the phase's vote thread; a phase without a vote thread
    # (a rule set whose voters each have their own short phase) offers them here instead.
    thread_votes = game.phase_name in rulesets.engine(game.ruleset).vote_phases
    options, pickers = grouped_options(game.ruleset, [
        c for c in choices if c.kind not in services.VOTE_KINDS or c.kind == "proxy_vote"
        or not thread_votes], names)
    # A list parameter (a loss order) gets an optional box, empty (the option's own order
    # stands) with the current order as its placeholder, items named as the page names them
    # (typed_items reads them back): the player may type another order; the option picked
    # still decides the last item (fill_list).
    list_fields = {}
    for c in choices:
        for key, value in c.params.items():
            if isinstance(value, list):
                list_fields.setdefault(key, (field_label(key), ", ".join(
                    param_label(game.ruleset, key, [v], names) for v in value)))
    text_fields = {}
    for c in choices:
        for f in c.text_fields:
            text_fields.setdefault(f.name, (f, field_label(f.name)))
    legend = pgettext("pickers", "Choose %(what)s") % {
        "what": listing(p.label for p in pickers)} if pickers else ""
    conversation = seat.conversation
    if conversation is not None and is_page_navigation(request):  # not a planted <img>
        forum.mark_read_by_owner(conversation=conversation)
    chat = Message.objects.filter(conversation=conversation).select_related(
        "sender__profile").order_by("-created_at", "-id") if conversation else Message.objects.none()
    page = Paginator(chat, 50).get_page(request.GET.get("page"))
    panel = get_template(rulesets.get(game.ruleset).panel)
    return render(request, "games/act.html", {
        "panel_template": panel, "names": names,
        "phase_title": selectors.current_phase_name(game),
        "game": game, "seat": seat, "view": view, "options": options, "pickers": pickers,
        "pickers_legend": legend, "texts_hint": texts_hint(options, pickers),
        "text_fields": text_fields.values(), "page": page, "list_fields": [(k, lab, v) for k, (lab, v) in list_fields.items()],
        "me": json.dumps(view.get("me", {}), ensure_ascii=False, indent=1) if view else "",
        **game_links(game),
    }, status=status)


def _submit(request, game: Game, seat):
    """The action form: the step (`choice`, read by config.inputs.parse_offered_choice), `text_*` and
    `list_*` fields adding params (never a reserved key), the phase it was shown for."""
    raw = request.POST.get("choice", "")
    if request.POST.get("free_text", "").strip() and not raw:
        return _free_text(request, game, seat)
    # InputError: the caller shows the form again (400)
    kind, params, texts = parse_offered_choice(raw)
    check_param_keys([key[5:] for key in request.POST if key.startswith(("text_", "list_"))],
                     field="choice")
    picks = offered_picks(raw)
    # A grouped option (issue 14 item 7): the card and its target (the victim and the pact
    # bandit...) come from the pickers, and the texts from what the combination takes.
    matching = complete_picks(request, game, seat.number, kind, params, picks) if picks \
        else None
    expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
    typed = {key[5:]: value for key, value in request.POST.items()
             if key.startswith("text_") and value.strip()}
    if matching is not None:
        params.update(chosen_texts(typed, matching))
    else:
        # Only the texts the picked option asks for: a manifesto typed for another option
        # must not travel with this one.
        params.update({name: value for name, value in typed.items()
                       if texts is None or name in texts})
    for key, value in request.POST.items():
        name = key[5:]
        if key.startswith("list_") and isinstance(params.get(name), list):
            listed = typed_items(game.ruleset, name, params[name], split_list(value),
                                 selectors.seat_names(game))
            params[name] = fill_list(params[name], listed)
    try:
        consume(scope=f"games.act:{game.pk}:{seat.number}:{game.current_phase_id}",
                who=f"seat:{seat.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind, params=params,
                               expected_phase=expected, now=received_at(request, expected))
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Received. 神的使者 has confirmed it below."))
    return redirect("game-act", pk=game.pk)


def _free_text(request, game: Game, seat):
    try:
        forum.send_to_messenger(conversation=seat.conversation, author=request.user,
                                body=request.POST["free_text"])
    except forum.PostingRefused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your message was sent to 神的使者."))
    return redirect("game-act", pk=game.pk)


@require_POST
@login_required
def vote(request, pk):
    """A vote from the vote thread's form; back to the thread with a readable result (or a
    small JSON answer). Reads only what it needs before the service locks the game and reads
    it whole: not the state (issue 17 item 5)."""
    game = Game.objects.only("pk", "status", "current_phase_id").filter(pk=pk).first()
    if game is None or game.status == Game.Status.DRAFT:  # as game_or_404
        raise Http404
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        thread_id = parse_int(request.POST.get("thread"), field="thread", minimum=1,
                              default=None)
        kind = parse_choice(request.POST.get("kind"), field="kind",
                            choices=services.VOTE_KINDS, default="vote")
        target = parse_int(request.POST.get("target"), field="target", default=None)
        expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
    except InputError as refused:
        if wants_json:
            return JsonResponse({"ok": False, "message": str(refused.message)}, status=400)
        raise  # config.middleware.RefusalMiddleware: the 400 page with the sentence
    back = redirect("messaging-thread", pk=thread_id) if thread_id is not None \
        else redirect("game-home", pk=game.pk)
    if target is None:
        return _vote_result(request, back, wants_json, False, _("Choose whom to vote for."))
    try:
        seat = selectors.seat_of(game, request.user)
        consume(scope=f"games.vote:{game.pk}:{game.current_phase_id}",
                who=f"seat:{seat.pk}" if seat else f"user:{request.user.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind,
                               params={"target": target}, expected_phase=expected,
                               now=received_at(request, expected))
    except services.GameError as exc:
        return _vote_result(request, back, wants_json, False, exc.message)
    return _vote_result(request, back, wants_json, True, _("Your vote was counted."))


def received_at(request, expected_phase: int | None):
    """When the request reached the application (config.middleware.ReceivedAtMiddleware),
    so a busy server does not turn a step sent before the deadline into a late one. Only for
    a request that names its phase: the service refuses it if that phase has ended since,
    so a step sent in one phase can never land in the next (without one: the service's
    clock, as before)."""
    return getattr(request, "received_at", None) if expected_phase is not None else None


def _vote_result(request, back, wants_json: bool, ok: bool, message):
    """A redirect with a flash message for browsers; JSON for scripts (Accept: JSON)."""
    if wants_json:
        return JsonResponse({"ok": ok, "message": str(message)}, status=200 if ok else 409)
    (messages.success if ok else messages.error)(request, message)
    return back


def vote_panel_context(request, thread: Thread) -> dict | None:
    """What the vote box above a vote thread shows (None: not a game's vote thread)."""
    game = getattr(thread.board, "game", None)
    if game is None or not thread.key.startswith("vote-"):
        return None
    phase_seq = int(thread.key.split("-", 1)[1])
    phase = game.phases.filter(seq=phase_seq).first()
    names = selectors.seat_names(game)
    view, seat = selectors.view_for(game, request.user)
    is_current = game.current_phase_id == getattr(phase, "pk", None) and \
        game.status == Game.Status.RUNNING
    options = []
    if is_current and seat is not None:
        options = [(c.kind, c.params.get("target"), choice_label(game.ruleset, c, names))
                   for c in selectors.legal_actions_for(game, seat.number)
                   if c.kind in ("vote", "runoff_vote")]
    votes = Vote.objects.filter(phase=phase, proxy=False).select_related(
        "voter", "target").order_by("created", "id") if phase else []
    history = [(v.created, seat_name(names, v.voter.number),
                seat_name(names, v.target.number) if v.target else "—") for v in votes]
    # The tally from the engine's public events (proxies, voided votes, CURSE/BLESS as the
    # rules publish them, the result), the same for every viewer.
    tally = selectors.phase_vote_tally(game, phase) if phase else None
    return {"game": game, "phase": phase, "is_current": is_current, "options": options,
            "phase_title": vote_heading(game.ruleset, phase) if phase else "",
            "history": history, "tally": tally,
            "tally_lines": [tally_line(r) for r in tally.rows] if tally else [],
            "seat": seat, "thread": thread}
