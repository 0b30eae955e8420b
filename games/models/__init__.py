"""The games app's models, by domain (Django sees them through this package):

    game       Game, Seat, Phase, Action (the replay log), Vote, Event (append-only, with
               visibility), Announcement (drafts), ReminderLook, ReminderSent
    community  Signup, Substitution, LeaveRequest, ActivityWarning, MovedThread, Watcher
    awards     Award, Nomination, AwardVote
    outbox     OutboxEmail (every email, sent by games.mail)
    backoff    AdvanceBackoff (a game whose advance raised waits before the next try)
    rollback   Rollback (the GM's undo), StepMessage (which step sent a private message), StepPost (which step wrote a post),
               WithdrawnThread (a thread of a phase a rollback took away)
    manifestos ManifestoApproval (the manifestos the GM approved)
"""

from .awards import Award, AwardVote, Nomination
from .backoff import AdvanceBackoff
from .community import (
    ActivityWarning,
    LeaveRequest,
    MovedThread,
    Signup,
    Substitution,
    Watcher,
)
from .game import (
    DEFAULT_PHASE_MINUTES,
    Action,
    Announcement,
    Event,
    Game,
    Phase,
    ReminderLook,
    ReminderSent,
    Seat,
    Vote,
)
from .manifestos import ManifestoApproval
from .outbox import OutboxEmail
from .rollback import Rollback, StepMessage, StepPost, WithdrawnThread

__all__ = [
    "DEFAULT_PHASE_MINUTES", "Action", "AdvanceBackoff", "ActivityWarning", "Announcement", "Award", "AwardVote",
    "Event", "Game", "LeaveRequest", "ManifestoApproval", "MovedThread", "Nomination", "OutboxEmail", "Phase", "ReminderLook", "ReminderSent",
    "Rollback", "Seat", "StepMessage", "StepPost", "Signup", "Substitution", "Vote", "Watcher",
    "WithdrawnThread",
]
