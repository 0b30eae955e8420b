"""The toy rule set's presenter: the generic sentences (every default of the presenter
interface), and its camps (wolf / villager) for the archive on the profile page."""

from games.presenters.interface import Presenter


class ToyPresenter(Presenter):
    def final_camp(self, view: dict, number: int) -> str:
        return view["private"][number]["role"]


PRESENTER = ToyPresenter()
