"""The Parlour server: application layer, Redis event store, gRPC transport, configuration and logging.

Data flows one way: transport (``service.api``) -> application (``service.app``) -> engine (decide) ->
store (``service.store``, append) -> subscribers (tail fan-out) -> transport.
"""
