"""The event store: one Redis stream per game, behind a small port (:mod:`service.store.port`)."""
