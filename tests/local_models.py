"""The local model servers the study tests talk to: mcot's fake provider (mcot.testing), imported here only."""

from mcot.testing import Agent, FakeProvider, Reply, RequestInfo

__all__ = ["Agent", "FakeProvider", "Reply", "RequestInfo"]
