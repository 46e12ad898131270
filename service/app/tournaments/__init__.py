"""Tournaments: event-sourced state (``state``), table plans (``plan``), and the application with its
scheduler (``service``)."""
