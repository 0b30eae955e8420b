"""The GM console for the forum and the conversations with 神的使者.

Who sees what here is the games' per-game authority (messaging.rules, which asks the
authority games register): the boards, threads and posts of the games a user runs (GM or
co-GM, never seated), and for a superuser those of no game (`rules.console_boards_q`); the
conversations a user may answer as 神的使者 (`rules.gm_conversations`, the same rule as
`rules.answer_refusal`). Nothing of a game a user plays in, superusers included: such rows
are not listed, their pages and forged POSTs answer "does not exist" and change nothing.
The answers name their writer here (never to players). Threads and posts are written
through the site (the services number posts and keep counters), so the admin does not add
them; what it changes or deletes goes through `messaging.services` too, which move the
versions the pages' cached parts are keyed by.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import Http404
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _

from config.inputs import DateRangeAdmin

from . import keeping, rules, services
from .forms import BodyField
from .models import Board, Conversation, Message, Post, Report, Thread
from .words import words_as_text


def as_text(body: str) -> str:
    """A body as a list cell reads it: a player's words quoted in an official post as
    "【玩家的话 · 作者】 …", never the Markdown fence's markers."""
    return words_as_text(body, _("Player's words"))


def _name(user) -> str:
    from accounts.models import display_name

    return display_name(user) if user is not None else "—"


class OutOfReach:
    """A row outside the user's list (another game's, one they play in) is a 404 on its
    pages and to a forged POST, not Django's redirect to the index: the console's answer."""

    def _get_obj_does_not_exist_redirect(self, request, opts, object_id):
        raise Http404


class BoardAdminForm(forms.ModelForm):
    class Meta:
        model = Board
        fields = ("title", "slug", "kind", "description", "position", "is_locked")

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if slug.startswith(rules.GM_BOARD_PREFIX) and slug != self.instance.slug:
            raise forms.ValidationError(
                _("Addresses starting with “%(prefix)s” belong to the games' GM boards."),
                params={"prefix": rules.GM_BOARD_PREFIX})
        return slug


@admin.register(Board)
class BoardAdmin(OutOfReach, admin.ModelAdmin):
    form = BoardAdminForm
    list_display = ("title", "slug", "kind", "position", "is_locked", "last_post_at")
    list_filter = ("kind", "is_locked")
    list_editable = ("position", "is_locked")
    search_fields = ("title", "slug", "description")
    prepopulated_fields = {"slug": ("title",)}

    def get_queryset(self, request):
        return super().get_queryset(request).filter(rules.console_boards_q(request.user))

    def get_readonly_fields(self, request, obj=None):
        # A game's board and its GM board keep their address and kind: the games find the
        # GM board by its address, and its kind is what keeps it for the GMs.
        if obj is not None and obj.pk in rules.game_boards():
            return ("slug", "kind", "created_at", "last_post_at")
        return ("created_at", "last_post_at")

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj is not None and obj.pk in rules.game_boards() else \
            self.prepopulated_fields

    def save_model(self, request, obj: Board, form, change):
        if not change:
            super().save_model(request, obj, form, change)
            return
        services.save_board(board=obj, fields=form.changed_data)


@admin.register(Thread)
class ThreadAdmin(OutOfReach, DateRangeAdmin, admin.ModelAdmin):
    list_display = ("title", "board", "kind", "author_name", "post_count", "is_locked",
                    "is_pinned", "last_post_at")
    list_filter = ("kind", "is_locked", "is_pinned", "board__kind",
                   ("board", admin.RelatedOnlyFieldListFilter))
    search_fields = ("title", "key", "author__profile__display_name", "author__email")
    list_select_related = ("board", "author__profile")
    readonly_fields = ("author", "created_at", "last_post_at", "last_post", "post_count")
    fields = ("board", "kind", "title", "key", "is_locked", "is_pinned", "author",
              "created_at", "last_post_at", "post_count")
    date_hierarchy = "created_at"
    actions = ("lock", "unlock")

    def get_queryset(self, request):
        return super().get_queryset(request).filter(
            rules.console_boards_q(request.user, "board_id"))

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        # A thread moves only between boards the user manages here.
        if db_field.name == "board":
            kwargs["queryset"] = Board.objects.filter(rules.console_boards_q(request.user))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description=_("author"), ordering="author__profile__display_name")
    def author_name(self, obj: Thread) -> str:
        return _name(obj.author)

    def save_model(self, request, obj: Thread, form, change):
        if "board" in form.changed_data:
            services.move_thread(thread=obj, board=obj.board)
        services.save_thread(thread=obj, fields=form.changed_data)

    def delete_model(self, request, obj: Thread):
        services.delete_threads(threads=Thread.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        services.delete_threads(threads=queryset)

    @admin.action(description=_("Lock the selected threads"))
    def lock(self, request, queryset):
        services.set_threads_locked(threads=queryset, locked=True)

    @admin.action(description=_("Unlock the selected threads"))
    def unlock(self, request, queryset):
        services.set_threads_locked(threads=queryset, locked=False)


@admin.register(Post)
class PostAdmin(OutOfReach, DateRangeAdmin, admin.ModelAdmin):
    list_display = ("__str__", "board", "author_name", "excerpt", "created_at", "edited_at")
    list_filter = ("thread__kind", ("thread__board", admin.RelatedOnlyFieldListFilter))
    search_fields = ("body", "author__profile__display_name", "author__email", "thread__title")
    list_select_related = ("thread__board", "author__profile")
    raw_id_fields = ("thread", "quote", "author")
    readonly_fields = ("thread", "number", "author", "quote", "created_at", "edited_at",
                       "edited_by", "shown")
    fields = ("thread", "number", "author", "quote", "body", "shown", "created_at", "edited_at",
              "edited_by")
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).filter(
            rules.console_boards_q(request.user, "thread__board_id"))

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description=_("board"), ordering="thread__board__title")
    def board(self, obj: Post):
        return obj.thread.board

    @admin.display(description=_("author"), ordering="author__profile__display_name")
    def author_name(self, obj: Post) -> str:
        return _name(obj.author)

    @admin.display(description=_("text"))
    def excerpt(self, obj: Post) -> str:
        return Truncator(as_text(obj.body)).chars(60)

    @admin.display(description=_("as shown"))
    def shown(self, obj: Post) -> str:
        return mark_safe(obj.html)  # noqa: S308 - sanitized by render_markdown when stored

    def save_model(self, request, obj: Post, form, change):
        # A moderator's edit goes through the service: rendered like a post written on the
        # site, the earlier text kept in the post's revisions, "edited by the GM" shown.
        # The body is the one field the form may change.
        if "body" in form.changed_data:
            services.edit_post(post=obj, editor=request.user, body=obj.body)

    def delete_model(self, request, obj: Post):
        services.delete_posts(posts=Post.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        services.delete_posts(posts=queryset)


class WaitingFilter(admin.SimpleListFilter):
    title = _("waiting for an answer")
    parameter_name = "waiting"

    def lookups(self, request, model_admin):
        return (("yes", _("Yes")), ("no", _("No")))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(staff_unread__gt=0)
        if self.value() == "no":
            return queryset.filter(staff_unread=0)
        return queryset


class ConversationAdminForm(forms.ModelForm):
    answer = BodyField(label=_("Answer as the messenger"),
                       help_text=_("Sent in the name of 神的使者; players never see who wrote "
                                   "it, the GMs see it here."))
    user = None  # the staff member writing (ConversationAdmin.get_form)
    mark_as_read = forms.BooleanField(
        label=_("Mark as read without answering"), required=False,
        help_text=_("Opening a conversation leaves it waiting; answering it or ticking this "
                    "and saving takes it off the waiting list."))

    class Meta:
        model = Conversation
        fields = ("owner", "board")

    def clean_answer(self) -> str:
        answer = self.cleaned_data.get("answer") or ""
        if not answer.strip():
            return ""
        try:
            return services.clean_body(answer)
        except services.PostingRefused as refused:
            raise forms.ValidationError(str(refused.message)) from None

    def clean(self):
        # Who may answer (rules.answer_refusal), checked before anything is written: a
        # refused answer saves nothing, not even the "mark as read" box. A new conversation
        # is one the writer must be able to answer.
        cleaned = super().clean()
        conversation = self.instance
        if conversation.pk is None:
            conversation = Conversation(owner=cleaned.get("owner"), board=cleaned.get("board"))
            if conversation.owner_id is None:
                return cleaned
        elif not cleaned.get("answer"):
            return cleaned
        refusal = rules.answer_refusal(self.user, conversation)
        if refusal:
            raise forms.ValidationError(refusal)
        return cleaned


@admin.register(Conversation)
class ConversationAdmin(OutOfReach, admin.ModelAdmin):
    form = ConversationAdminForm
    list_display = ("owner_name", "context", "waiting", "staff_unread", "owner_unread",
                    "last_message_at")
    list_filter = (WaitingFilter, "board__kind", ("board", admin.RelatedOnlyFieldListFilter))
    search_fields = ("owner__profile__display_name", "owner__email", "owner__username",
                     "board__title", "messages__body")
    list_select_related = ("owner__profile", "board")
    raw_id_fields = ("owner",)
    actions = ("mark_read",)

    def get_queryset(self, request):
        # A seat's conversation reaches the GMs of its game only, never a staff user who
        # plays in it or hosts another game; a general one, the superusers who play in no
        # running game with its owner (rules.gm_conversations).
        return rules.gm_conversations(request.user, super().get_queryset(request))

    # Staff status means "may host games": a host without model permissions
    # reads and answers the conversations it answers as the GM (the queryset above, and
    # `answer_as_messenger` checks again); adding and deleting keep Django's permissions.
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self._answers(request, obj)

    def has_change_permission(self, request, obj=None):
        return self._answers(request, obj)

    def _answers(self, request, obj) -> bool:
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        return obj is None or rules.gm_conversations(user).filter(pk=obj.pk).exists()

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"user": request.user})

    def get_readonly_fields(self, request, obj=None):
        # The owner changes only through a handover (services.hand_over_conversation).
        # Shown by name and board title: a GM has no page of the user's or the board's row.
        return ("owner_name", "context", "created_at", "last_message_at", "history") \
            if obj else ()

    def get_fields(self, request, obj=None):
        if obj:
            return ("owner_name", "context", "created_at", "last_message_at", "history",
                    "answer", "mark_as_read")
        return ("owner", "board", "answer")

    @admin.display(description=_("messages"))
    def history(self, obj: Conversation) -> str:
        """The whole conversation, oldest first, naming the staff member behind each answer
        (GM-only information)."""
        rows = []
        for message in obj.messages.select_related("sender__profile", "written_by__profile"):
            who = _name(message.sender)
            if message.written_by_id:
                who = f"{who} ({_name(message.written_by)})"
            rows.append((localtime(message.created_at).strftime("%Y-%m-%d %H:%M"), who,
                         mark_safe(message.html)))  # noqa: S308 - sanitized when stored
        if not rows:
            return _("No messages yet.")
        return format_html('<div class="conversation-history">{}</div>', format_html_join(
            "\n", '<div class="message"><p><strong>{}</strong> · {}</p>{}</div>',
            ((who, when, html) for when, who, html in rows)))

    @admin.display(description=_("player"), ordering="owner__profile__display_name")
    def owner_name(self, obj: Conversation) -> str:
        return _name(obj.owner)

    @admin.display(description=_("context"), ordering="board__title")
    def context(self, obj: Conversation) -> str:
        return obj.board.title if obj.board_id else _("general")

    @admin.display(description=_("waiting"), boolean=True, ordering="-staff_unread")
    def waiting(self, obj: Conversation) -> bool:
        return obj.staff_unread > 0

    @admin.action(description=_("Mark as read"))
    def mark_read(self, request, queryset):
        queryset.update(staff_unread=0)

    # No GET of the console clears a waiting flag (an image planted in a
    # post could otherwise make the GM's browser open a conversation unseen); only a POST
    # does: an answer, the "mark as read" box, or the list's "Mark as read" action.
    def save_model(self, request, obj: Conversation, form, change):
        # A saved conversation has no field to change here (owner and board are read-only);
        # saving the row would write back the counters as they were read.
        if not change:
            super().save_model(request, obj, form, change)
        answer = form.cleaned_data.get("answer")
        if answer:
            try:
                services.answer_as_messenger(conversation=obj, staff=request.user, body=answer)
            except services.PostingRefused as refused:
                self.message_user(request, refused.message, messages.ERROR)
                return
            self.message_user(request, format_html(
                _("Sent to {} as the messenger."), _name(obj.owner)), messages.SUCCESS)
        if form.cleaned_data.get("mark_as_read"):
            services.mark_read_by_staff(conversation=obj)


@admin.register(Message)
class MessageAdmin(OutOfReach, DateRangeAdmin, admin.ModelAdmin):
    list_display = ("conversation", "sender_name", "from_messenger", "writer_name",
                    "excerpt", "created_at")
    list_filter = ("from_messenger",
                   ("conversation__board", admin.RelatedOnlyFieldListFilter))
    search_fields = ("body", "sender__profile__display_name", "sender__email",
                     "conversation__owner__profile__display_name")
    list_select_related = ("conversation__owner__profile", "conversation__board",
                           "sender__profile", "written_by__profile")
    readonly_fields = ("conversation", "sender", "from_messenger", "written_by", "body",
                       "created_at")

    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).filter(
            conversation__in=rules.gm_conversations(request.user))

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("from"), ordering="sender__profile__display_name")
    def sender_name(self, obj: Message) -> str:
        return _name(obj.sender)

    @admin.display(description=_("written by (staff)"),
                   ordering="written_by__profile__display_name")
    def writer_name(self, obj: Message) -> str:
        """Who wrote an answer sent as 神的使者 (the audit; never shown to players)."""
        return _name(obj.written_by) if obj.written_by_id else "—"

    @admin.display(description=_("text"))
    def excerpt(self, obj: Message) -> str:
        return Truncator(as_text(obj.body)).chars(60)


@admin.register(Report)
class ReportAdmin(OutOfReach, admin.ModelAdmin):
    """举报: the reports of the boards the user manages (`keeping.open_reports`: a game's
    GMs and co-GMs for its boards, superusers for the boards of no game), open ones first;
    read and marked handled, never written here (players report from the post)."""

    list_display = ("post_link", "author_name", "reporter_name", "reason_excerpt",
                    "created_at", "handled_at")
    # The reason opens the report: the first column links to the post itself (a link in a
    # link would leave an empty one, nameless to a screen reader).
    list_display_links = ("reason_excerpt",)
    list_filter = (("handled_at", admin.EmptyFieldListFilter),)
    readonly_fields = ("post_link", "author_name", "shown", "reporter_name", "reason",
                       "created_at", "handled_at", "handler_name")
    fields = readonly_fields
    actions = ("mark_handled",)
    ordering = ("-created_at", "-id")

    def get_queryset(self, request):
        return keeping.open_reports(request.user, super().get_queryset(request))

    # A game's GM reads its reports without model permissions, as the conversations.
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request) and (
            obj is None or keeping.open_reports(request.user).filter(pk=obj.pk).exists())

    def has_change_permission(self, request, obj=None):
        return self.has_view_permission(request, obj)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("post"))
    def post_link(self, obj: Report) -> str:
        return format_html('<a href="{}">{} #{}</a>', obj.post.get_absolute_url(),
                           obj.post.thread.title, obj.post.number)

    @admin.display(description=_("author"))
    def author_name(self, obj: Report) -> str:
        return _name(obj.post.author)

    @admin.display(description=_("reported by"))
    def reporter_name(self, obj: Report) -> str:
        return _name(obj.reporter)

    @admin.display(description=_("handled by"))
    def handler_name(self, obj: Report) -> str:
        return _name(obj.handled_by) if obj.handled_by_id else "—"

    @admin.display(description=_("reason"))
    def reason_excerpt(self, obj: Report) -> str:
        return Truncator(obj.reason).chars(60)

    @admin.display(description=_("as shown"))
    def shown(self, obj: Report) -> str:
        return mark_safe(obj.post.html)  # noqa: S308 - sanitized by render_markdown when stored

    @admin.action(description=_("Mark the selected reports handled"))
    def mark_handled(self, request, queryset):
        done = keeping.mark_handled(user=request.user,
                                    report_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, _("%(n)d reports marked handled.") % {"n": done},
                          messages.SUCCESS)
