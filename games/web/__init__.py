"""The games app's pages, by page area. Thin: they read through games.selectors and write
through games.services; the URLs are in games/urls.py and games/community_urls.py.

    pages      the list of games, a game's home page, the deal commitment
    play       the seat's conversation with 神的使者 and its action form; the vote box
    community  sign up, withdraw, check in, take over a seat, ask for leave
    review     the post-game review and the event log as JSON
    awards     the post-game awards page
    calendar   the private iCalendar feed and its settings
    clock      what a game's page and the 天神 console say when the game clock has stopped
"""
