"""Playing: the seat's conversation with 神的使者 with the action form, and the vote box
above a phase's vote thread. Thin: reads through games.selectors, writes through services."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from config.http import is_page_navigation
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
    describe,
    field_label,
    listing,
    picker_entry,
    seat_name,
    tally_line,
    vote_heading,
)
from ..presenters.base import who
from ..services.lifecycle import choices_closed
from .pages import game_links, game_or_404
from .play_forms import ActForm, LossOrderForm, LossOrderSetup, round_cost

# Steps a seat may send in one phase before it must wait: enough to change
# one's mind many times, not enough to fill the GM's and the seat's logs.
ACTION_RATE = "10/10m"


def choice_value(choice: Choice) -> str:
    """The option's value in the form. Two choices differing only in their free texts (an
    attack with a manifesto or with a story) get different values ("texts")."""
    data: dict = {"kind": choice.kind, "params": choice.params}
    if choice.text_fields:
        data["texts"] = [f.name for f in choice.text_fields]
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


# Parameters a multi-part choice offers as pickers of their own, in the order
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
    chosen: str = ""  # the value entered (a refused form shows it again)
    errors: list = field(default_factory=list)


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


# Steps that cannot be taken back once sent: a confirmation step shows them before they go.
FINAL_KINDS = ("vote", "runoff_vote")


@login_required
def act(request, pk):
    """The seat's conversation with 神的使者 in this game, with the action form and (while
    the rules let the seat order a list: a 猫有n条命 loss order) the ordering form.

    A POST is one of: the ordering form (`form=loss_order`), a message to 神的使者
    (`free_text` without a `choice`), or the action form. A refused form comes back with
    what was entered and the refusal beside its field; a step that cannot be taken back (a
    vote) or that costs more than it shows (a day card after a night card) is sent only
    after a confirmation step (`confirmed`); `back` from there shows the form as it was."""
    game = game_or_404(pk)
    seat = selectors.seat_of(game, request.user)
    if seat is None:
        raise Http404
    if request.method == "POST":
        if request.POST.get("form") == "loss_order":
            return _submit_loss_order(request, game, seat)
        if request.POST.get("free_text", "").strip() and not request.POST.get("choice"):
            return _free_text(request, game, seat)
        return _submit(request, game, seat)
    return _act_page(request, game, seat)


@dataclass
class TextRow:
    """A free-text box of the action form: the field the rules describe, its label, what
    was entered and its refusals."""

    field: object
    label: str
    value: str
    errors: list


class ActPage:
    """What the act page offers the seat, from the engine's legal actions (read once)."""

    def __init__(self, game: Game, seat, user):
        self.game, self.seat = game, seat
        self.view, _seat = selectors.view_for(game, user)
        self.names = selectors.seat_names(game)
        self.choices = selectors.legal_actions_for(game, seat.number)
        # Votes are cast in the box above the phase's vote thread; a phase without a vote
        # thread (a rule set whose voters each have their own short phase) offers them here.
        # An ordered list (a loss order) has a form of its own (LossOrderForm).
        thread_votes = game.phase_name in rulesets.engine(game.ruleset).vote_phases
        self.options, self.pickers = grouped_options(game.ruleset, [
            c for c in self.choices if not self.ordered(c) and (
                c.kind not in services.VOTE_KINDS or c.kind == "proxy_vote"
                or not thread_votes)], self.names)
        self.text_fields = {}
        for c in self.choices:
            for f in c.text_fields:
                self.text_fields.setdefault(f.name, f)
        me = (self.view or {}).get("me") or {}
        self.loss_setup = LossOrderSetup.from_choices(self.choices, me.get("loss_order"),
                                                      me.get("hand"))
        self.cost = round_cost(game.ruleset, self.view) if any(
            c.kind == "use_card" for c in self.choices) else ""

    @staticmethod
    def ordered(choice: Choice) -> bool:
        """A step whose parameter is an order the person sets (the ordering form's)."""
        return choice.kind == "loss_order"

    def offers(self, kind: str, params: dict) -> bool:
        """Whether (kind, params) is one of the steps the rules offer, its texts aside."""
        return any(c.kind == kind and c.params == {
            k: v for k, v in params.items() if k not in {f.name for f in c.text_fields}}
            for c in self.choices)

    def act_form(self, data=None) -> ActForm:
        return ActForm(data, picks=[p.key for p in self.pickers], texts=list(self.text_fields))

    def loss_form(self, data=None) -> LossOrderForm | None:
        if self.loss_setup is None:
            return None
        return LossOrderForm(data, setup=self.loss_setup, ruleset=self.game.ruleset,
                             names=self.names)


def _act_page(request, game: Game, seat, *, page: ActPage | None = None,
              form: ActForm | None = None, loss_form: LossOrderForm | None = None,
              status: int = 200):
    """The act page; `form` / `loss_form` bound to what was posted when one is refused."""
    page = page or ActPage(game, seat, request.user)
    form = form or page.act_form()
    if loss_form is None:
        loss_form = page.loss_form()
    chosen = form.value("choice")
    for picker in page.pickers:
        picker.chosen = form.value(f"pick_{picker.key}")
        picker.errors = form.errors_of(f"pick_{picker.key}")
    texts = [TextRow(f, field_label(name), form.value(f"text_{name}"),
                     form.errors_of(f"text_{name}")) for name, f in page.text_fields.items()]
    legend = pgettext("pickers", "Choose %(what)s") % {
        "what": listing(p.label for p in page.pickers)} if page.pickers else ""
    conversation = seat.conversation
    if conversation is not None and is_page_navigation(request):  # not a planted <img>
        forum.mark_read_by_owner(conversation=conversation)
    chat = Message.objects.filter(conversation=conversation).select_related(
        "sender__profile").order_by("-created_at", "-id") if conversation else Message.objects.none()
    messages_page = Paginator(chat, 50).get_page(request.GET.get("page"))
    panel = get_template(rulesets.get(game.ruleset).panel)
    view = page.view
    return render(request, "games/act.html", {
        "panel_template": panel, "names": page.names,
        "phase_title": selectors.current_phase_name(game),
        "choices_closed": choices_closed(game, timezone.now()),
        "game": game, "seat": seat, "view": view, "options": page.options,
        "pickers": page.pickers, "pickers_legend": legend,
        "texts_hint": texts_hint(page.options, page.pickers), "text_rows": texts,
        "form": form, "chosen": chosen, "choice_errors": form.errors_of("choice"),
        "form_errors": form.non_field_errors() if form.is_bound else [],
        "loss_form": loss_form, "loss_rows": loss_form.rows() if loss_form else [],
        "round_cost": page.cost, "page": messages_page,
        "me": json.dumps(view.get("me", {}), ensure_ascii=False, indent=1) if view else "",
        **game_links(game),
    }, status=status)


def _read_step(request, game: Game, seat, page: ActPage) -> tuple[str, dict]:
    """(kind, params) of the action form as posted: the option `choice` (read by
    config.inputs.parse_offered_choice), its pickers, the free texts it takes (never a
    reserved key). InputError (with the field it concerns) for anything no form sends."""
    raw = request.POST.get("choice", "")
    if raw == "":
        raise InputError(_("Choose an action first."), field="choice")
    kind, params, texts = parse_offered_choice(raw)
    check_param_keys([key[5:] for key in request.POST if key.startswith("text_")],
                     field="choice")
    picks = offered_picks(raw)
    # A grouped option: the card and its target (the victim and the pact
    # bandit...) come from the pickers, and the texts from what the combination takes.
    matching = complete_picks(request, game, seat.number, kind, params, picks) if picks \
        else None
    typed = {key[5:]: value for key, value in request.POST.items()
             if key.startswith("text_") and value.strip()}
    if matching is not None:
        params.update(chosen_texts(typed, matching))
    else:
        # Only the texts the picked option asks for: a manifesto typed for another option
        # must not travel with this one.
        params.update({name: value for name, value in typed.items()
                       if texts is None or name in texts})
    return kind, params


def _submit(request, game: Game, seat):
    """The action form. Refused input (InputError: 400) and refusals of the rules (200) show
    the form again with what was entered; nothing is stored."""
    page = ActPage(game, seat, request.user)
    form = page.act_form(request.POST)
    form.is_valid()  # every field is optional: this only binds the data for the page
    if request.POST.get("back"):  # from the confirmation step: the form as it was
        return _act_page(request, game, seat, page=page, form=form)
    expected = None
    try:
        expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
        kind, params = _read_step(request, game, seat, page)
    except InputError as refused:
        messages.error(request, refused.message)
        form.refuse(refused.message, field=refused.field)
        return _act_page(request, game, seat, page=page, form=form, status=400)
    cost = page.cost if kind == "use_card" else ""
    # Only a step the rules offer is confirmed; any other goes on and the rules say why.
    if (cost or kind in FINAL_KINDS) and not request.POST.get("confirmed") \
            and page.offers(kind, params):
        return _confirm_page(request, game, seat, kind, params, cost=cost,
                             final=kind in FINAL_KINDS, names=page.names)
    try:
        consume(scope=f"games.act:{game.pk}:{seat.number}:{game.current_phase_id}",
                who=f"seat:{seat.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind, params=params,
                               expected_phase=expected, now=received_at(request, expected))
    except services.GameError as exc:
        messages.error(request, exc.message)
        form.refuse(exc.message, code=exc.code)
        return _act_page(request, game, seat, form=form)
    messages.success(request, _("Received. 神的使者 has confirmed it below."))
    return redirect("game-act", pk=game.pk)


def _confirm_page(request, game: Game, seat, kind: str, params: dict, *, cost: str,
                  final: bool, names: dict[int, str]):
    """The confirmation step of the action form: the step in words, what it costs, and the
    form again as hidden fields with "confirm" and "back" (works without a script)."""
    summary = describe(game.ruleset, {"kind": kind, "data": params,
                                      "visibility": {"public": False, "seats": []}}, names)
    hidden = [(key, value) for key, values in request.POST.lists()
              if key not in ("csrfmiddlewaretoken", "confirmed", "back") for value in values]
    return render(request, "games/act_confirm.html", {
        "game": game, "seat": seat, "summary": summary, "cost": cost, "final": final,
        "hidden": hidden, "phase_title": selectors.current_phase_name(game),
        **game_links(game)})


def _submit_loss_order(request, game: Game, seat):
    """The ordering form: the order exactly as chosen (each position's card, the core card
    last), or the form again with the refusal beside the position it concerns."""
    page = ActPage(game, seat, request.user)
    expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
    if page.loss_setup is None:
        # The rules offer no order now (the window closed, a camp to choose first...):
        # they say why, through the service, for the order as posted.
        cards = [request.POST.get(k) for k in sorted(
            (k for k in request.POST if re.fullmatch(r"order_[0-9]{1,2}", k)),
            key=lambda k: int(k[6:]))] + [request.POST.get("core")]
        try:
            services.submit_action(game_id=game.pk, user=request.user, kind="loss_order",
                                   params={"cards": [c for c in cards if c]},
                                   expected_phase=expected, now=received_at(request, expected))
        except services.GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Received. 神的使者 has confirmed it below."))
        return redirect("game-act", pk=game.pk)
    form = page.loss_form(request.POST)
    if not form.is_valid():
        messages.error(request, _("Your loss order was not sent: see the marked positions."))
        return _act_page(request, game, seat, page=page, loss_form=form, status=400)
    try:
        consume(scope=f"games.act:{game.pk}:{seat.number}:{game.current_phase_id}",
                who=f"seat:{seat.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind="loss_order",
                               params={"cards": form.cards()}, expected_phase=expected,
                               now=received_at(request, expected))
    except services.GameError as exc:
        messages.error(request, exc.message)
        form.refuse(exc.message, code=exc.code)
        return _act_page(request, game, seat, page=page, loss_form=form)
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
    small JSON answer). A vote cannot be changed, so a browser's form first gets a
    confirmation page naming the target; the vote is cast only with `confirmed` (a script
    asking for JSON sends the confirmed vote itself). The cast reads only what it needs
    before the service locks the game and reads it whole: not the state."""
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
    seat = selectors.seat_of(game, request.user)
    if not wants_json and not request.POST.get("confirmed"):
        confirm = _vote_confirm_page(request, pk, seat, kind, target, back["Location"])
        if confirm is not None:
            return confirm
        # Not a vote the rules offer this seat now: the service says why (nothing stored).
    try:
        consume(scope=f"games.vote:{game.pk}:{game.current_phase_id}",
                who=f"seat:{seat.pk}" if seat else f"user:{request.user.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind,
                               params={"target": target}, expected_phase=expected,
                               now=received_at(request, expected))
    except services.GameError as exc:
        return _vote_result(request, back, wants_json, False, exc.message)
    return _vote_result(request, back, wants_json, True, _("Your vote was counted."))


def _vote_confirm_page(request, pk: int, seat, kind: str, target: int, back_url: str):
    """The vote's confirmation page: whom the vote goes to, that it cannot be changed, and
    the same fields again with `confirmed`; None when the rules do not offer this vote to
    this seat now (then nothing is confirmed: the service refuses it with the reason)."""
    if seat is None:
        return None
    game = game_or_404(pk)
    offered = [c for c in selectors.legal_actions_for(game, seat.number)
               if c.kind == kind and c.params.get("target") == target]
    if not offered:
        return None
    names = selectors.seat_names(game)
    hidden = [(key, request.POST.get(key)) for key in ("thread", "phase", "kind", "target")
              if request.POST.get(key) is not None]
    return render(request, "games/vote_confirm.html", {
        "game": game, "label": choice_label(game.ruleset, offered[0], names),
        "target_name": who(names, target), "hidden": hidden, "back_url": back_url,
        "phase_title": selectors.current_phase_name(game), **game_links(game)})


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
