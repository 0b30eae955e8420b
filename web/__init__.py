"""The composition layer: what brings the apps together, above all of them (config,
accounts, messaging, games): the profile pages (each app's part of them), the sign-in mail
(allauth's adapter through the games' outbox) and the admin of accounts (which asks the
forum and the games before a user is deleted, and tells the games of a new name). Nothing
below imports it (tests/test_layers.py)."""
