"""The rows a game's home page reads on every visit (its cache key and the visitor's seat)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import connection
from django.db.models import OuterRef, Subquery

from ..models import Game, Seat, Signup, Substitution

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


# The key row's columns, in the model's order (Model.from_db takes a partial row so).
_HOME_FIELDS = tuple(f.attname for f in Game._meta.concrete_fields if f.attname in (
    "id", "name", "status", "created", "page_version", "checkin_hours", "deadline"))


_HOME_COLUMNS = ", ".join(f"g.{name}" for name in _HOME_FIELDS)


_HOME_ROW = f"""
SELECT {_HOME_COLUMNS},
       s.number AS viewer_seat, s.checked_in_at AS viewer_checked_in_at,
       (SELECT u.role FROM {Signup._meta.db_table} u WHERE u.game_id = g.id AND u.user_id = %s
         AND u.withdrawn_at IS NULL) AS viewer_signup_role
FROM {Game._meta.db_table} g LEFT JOIN {Seat._meta.db_table} s
  ON s.game_id = g.id AND s.user_id = %s
WHERE g.id = %s"""  # noqa: S608 (names from _meta, values bound)


_HOME_ROW_ANONYMOUS = f"SELECT {_HOME_COLUMNS} FROM {Game._meta.db_table} g WHERE g.id = %s"  # noqa: S608


# For an active staff visitor, also whether they run the game as `is_gm` decides (named GM or
# co-GM, and never seated in it: no seat now, no accepted substitution either way), so the
# page knows without another query whether to give them the GM's word on the game clock.
_CO_GMS = Game._meta.get_field("co_gms")


_HOME_ROW_STAFF = _HOME_ROW.replace("\nFROM ", f""",
       ((g.gm_id = %s OR EXISTS (SELECT 1 FROM {_CO_GMS.m2m_db_table()} c
                                 WHERE c.{_CO_GMS.m2m_column_name()} = g.id
                                   AND c.{_CO_GMS.m2m_reverse_name()} = %s))
        AND s.number IS NULL
        AND NOT EXISTS (SELECT 1 FROM {Substitution._meta.db_table} x
                        WHERE x.game_id = g.id AND x.status = '{Substitution.Status.ACCEPTED}'
                          AND (x.outgoing_id = %s OR x.incoming_id = %s))) AS viewer_runs
FROM """, 1)  # noqa: S608


def home_row(pk, user: User | AnonymousUser | None) -> Game | None:
    """What every visit of game `pk`'s home page reads, in one small query written out (no
    state, no joins beyond the visitor's seat, no ORM compile; the page's cache key is made
    of it): the game's id, name, status, creation time, `page_version` (moved by the
    database on every change the page shows, migration games 0015), check-in window and
    deadline, all else deferred; for a signed-in `user` also `viewer_seat`,
    `viewer_checked_in_at` and `viewer_signup_role` as `game_for_home` reads them; and
    `viewer_runs`: what `is_gm(user, game)` answers (False without asking, for anyone but
    an active staff account). None: no such game."""
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        return None
    signed_in = user is not None and user.is_authenticated
    staff = signed_in and user.is_active and user.is_staff
    with connection.cursor() as cursor:
        if staff:
            cursor.execute(_HOME_ROW_STAFF, [user.pk, user.pk] + [user.pk] * 4 + [pk])
        elif signed_in:
            cursor.execute(_HOME_ROW, [user.pk, user.pk, pk])
        else:
            cursor.execute(_HOME_ROW_ANONYMOUS, [pk])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(_HOME_FIELDS)
    game = Game.from_db(connection.alias, _HOME_FIELDS, row[:n])
    if signed_in:
        game.viewer_seat, game.viewer_checked_in_at, game.viewer_signup_role = row[n:n + 3]
    game.viewer_runs = bool(row[n + 3]) if staff else False
    return game


def game_for_home(pk, user: User | AnonymousUser | None) -> Game | None:
    """Game `pk` with its board and current phase and, for a signed-in `user`, what the home
    page needs of them, in one query: `viewer_seat` (their seat's number, None: no seat),
    `viewer_checked_in_at` (that seat's check-in) and `viewer_signup_role` (their sign-up
    not withdrawn, None: none)."""
    qs = Game.objects.select_related("board", "current_phase")
    if user is not None and user.is_authenticated:
        seat = Seat.objects.filter(game=OuterRef("pk"), user_id=user.pk)
        qs = qs.annotate(
            viewer_seat=Subquery(seat.values("number")[:1]),
            viewer_checked_in_at=Subquery(seat.values("checked_in_at")[:1]),
            viewer_signup_role=Subquery(Signup.objects.filter(
                game=OuterRef("pk"), user_id=user.pk, withdrawn_at=None).values("role")[:1]))
    return qs.filter(pk=pk).first()
