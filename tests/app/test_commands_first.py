"""What the application tells the store and the live fan-out about the commands it is applying."""

from __future__ import annotations

from service.app.fanout import CommandsFirst


async def test_several_commands_are_under_way_only_while_more_than_one_is_being_applied() -> None:
    """The store holds an append for others to join it only when other commands are under way: one command
    at a time is never kept waiting for company that cannot come."""
    commands = CommandsFirst()
    assert not commands.several()
    with commands.command():
        assert not commands.several()  # this command alone
        with commands.command():
            assert commands.several()
        assert not commands.several()
    assert not commands.several()
