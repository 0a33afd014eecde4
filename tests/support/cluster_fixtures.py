"""Session fixtures for several-node tests: a throwaway Redis and a HAProxy factory.

Loaded from ``tests/conftest.py`` with ``pytest_plugins = ["tests.support.cluster_fixtures"]``.
Like the PostgreSQL fixture, each skips when its program is not installed, unless
``ESTERPORT_REQUIRE_CLUSTER=1`` (as ``.ci/run`` sets) makes that a failure.
"""

from __future__ import annotations

import pytest

from tests.support.haproxy import REQUIRED, ThrowawayHAProxy
from tests.support.redis import ThrowawayRedis
from tests.support.teardown import sync_cleanup


def _require(available: bool, what: str) -> None:
    if available:
        return
    if REQUIRED:
        pytest.fail(f"{what} is required (ESTERPORT_REQUIRE_CLUSTER=1) but not installed")
    pytest.skip(f"{what} not installed")


@pytest.fixture(scope="session")
def redis_server():
    """One Redis for the session (``.url()``); a test that restarts it gets it back on the
    same port, empty. Tests share it: give each its own key prefix or ``db``."""
    server = ThrowawayRedis()
    _require(server.available, "redis-server")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def haproxy_binary() -> str:
    """The haproxy program (skips or fails when missing, as above)."""
    proxy = ThrowawayHAProxy()
    _require(proxy.available, "haproxy")
    return proxy.binary


@pytest.fixture
def haproxy(haproxy_binary):
    """A factory: ``haproxy(telnet_nodes, web_nodes)`` (lists of "host:port") starts a
    HAProxy from ``server/data/haproxy.cfg`` in front of them and returns it (ports
    ``telnet_port``, ``web_port``; ``url()``, ``log``, ``states()``, ``wait_up()``). Each
    is stopped after the test: the nodes differ from test to test."""
    started: list[ThrowawayHAProxy] = []

    def start(telnet_nodes: list[str], web_nodes: list[str] = (),
              inter: str = "500ms") -> ThrowawayHAProxy:
        proxy = ThrowawayHAProxy()
        started.append(proxy)
        proxy.start(telnet_nodes, web_nodes, inter=inter)
        return proxy

    yield start
    with sync_cleanup() as steps:  # each stop is bounded; one failing stops no other
        for proxy in started:
            steps.call(f"stopping HAProxy on :{proxy.telnet_port}", proxy.stop)
