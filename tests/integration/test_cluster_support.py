"""The throwaway Redis and HAProxy of tests/support work as several-node tests need them."""

from __future__ import annotations

import subprocess

import pytest

# until tests/conftest.py loads the plugin (pytest_plugins), take its fixtures here
from tests.support.haproxy import TEMPLATE, render


def test_redis_answers_and_a_restart_comes_back_empty_on_the_same_port(
        redis_server):  # noqa: F811
    port = redis_server.port
    assert redis_server.url() == f"redis://127.0.0.1:{port}/0"
    assert redis_server.command("SET", "esterport:test", "1") == b"+OK\r\n"
    assert redis_server.command("GET", "esterport:test") == b"$1\r\n1\r\n"
    redis_server.restart()
    assert redis_server.port == port and redis_server.ping()
    assert redis_server.command("GET", "esterport:test") == b"$-1\r\n"   # nothing persisted


def test_the_template_renders_for_any_number_of_nodes():
    config = render(TEMPLATE.read_text(), {"telnet": "127.0.0.1:7000", "web": "127.0.0.1:7001"},
                    {"telnet_nodes": [f"10.0.0.{i}:4000" for i in (1, 2, 3)],
                     "web_nodes": ["10.0.0.1:8080"]}, inter="1s")
    lines = [line.strip() for line in config.splitlines()]
    assert "bind 127.0.0.1:7000" in lines and "bind 127.0.0.1:7001" in lines
    assert [line for line in lines if line.startswith("server ")] == [
        "server node1 10.0.0.1:4000", "server node2 10.0.0.2:4000",
        "server node3 10.0.0.3:4000", "server node1 10.0.0.1:8080"]
    assert "default-server send-proxy-v2 check inter 1s fall 3 rise 2" in lines
    with pytest.raises(ValueError, match="backend nowhere"):
        render(TEMPLATE.read_text(), {}, {"nowhere": ["10.0.0.1:1"]})


def test_the_shipped_template_and_a_rendered_copy_pass_haproxys_check(
        haproxy_binary, tmp_path):  # noqa: F811
    rendered = tmp_path / "haproxy.cfg"
    rendered.write_text(render(TEMPLATE.read_text(), {"telnet": "127.0.0.1:7000"},
                               {"telnet_nodes": ["127.0.0.1:4001", "127.0.0.1:4002"]}))
    for path in (TEMPLATE, rendered):
        check = subprocess.run([haproxy_binary, "-c", "-f", str(path)], capture_output=True,
                               text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "WARNING" not in check.stdout + check.stderr
