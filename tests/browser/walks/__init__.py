"""Walks: one Chromium test per rule set where the
players start from the home page and only click, and read what the pages say."""
