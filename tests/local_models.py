"""The local model servers the tests talk to: mcot's fake provider, imported here only (one line to change when
it moves to mcot.testing)."""

from mcot.agents.fake_provider import Agent, FakeProvider, Reply, RequestInfo

__all__ = ["Agent", "FakeProvider", "Reply", "RequestInfo"]
