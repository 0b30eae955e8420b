"""The toy rule set's presenter: the generic sentences (every default of the presenter
interface), its reasons (in English only: the toy's words are not in the catalogue), and its
camps (wolf / villager) for the archive on the profile page."""

from games.presenters.interface import Presenter
from games.presenters.reasons import ReasonTexts
from tests.toy import R

REASONS = ReasonTexts(R, {
    "bad_params": "That request is malformed.",
    "already_voted": "You have already voted today.",
    "not_allowed": "You cannot do that now.",
    "wolf_attacked": "the wolf attacked %(seat)s",
    "wolf_dead": "The wolf is dead.",
    "wolf_outlived": "The wolf outlived the village.",
})


class ToyPresenter(Presenter):
    REASONS = REASONS

    def final_camp(self, view: dict, number: int) -> str:
        return view["private"][number]["role"]


PRESENTER = ToyPresenter()
