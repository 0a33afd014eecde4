"""``[cluster]``: off by default, on with a Redis URL, refused with SQLite or bad values."""

from __future__ import annotations

import pytest

from server import cli
from server.config import Config


def test_without_a_cluster_nothing_changes():
    config = Config()
    assert not config.cluster.enabled
    config.check()  # SQLite, one process: fine


def test_a_cluster_needs_postgresql():
    config = Config.from_dict({"cluster": {"redis": "redis://127.0.0.1:6379/0"}})
    with pytest.raises(ValueError, match="needs PostgreSQL"):
        config.check()
    ok = Config.from_dict({"cluster": {"redis": "redis://127.0.0.1:6379/0", "node": "n1"},
                           "database": {"url": "postgresql+asyncpg://u:p@h/db"}})
    ok.check()
    assert ok.cluster.enabled and ok.cluster.node == "n1"


@pytest.mark.parametrize("section, message", [
    ({"redis": "127.0.0.1:6379"}, "redis:// URL"),
    ({"redis": "redis://h/0", "node": "n 1"}, "node should be"),
    ({"redis": "redis://h/0", "lease": 0.5}, "lease should be"),
    ({"redis": "redis://h/0", "nodes": 3}, "unknown key 'nodes'"),
])
def test_bad_cluster_settings_are_refused_with_one_line(section, message):
    with pytest.raises(ValueError, match=message):
        Config.from_dict({"cluster": section})


def test_serve_takes_redis_and_node_and_refuses_sqlite_in_one_line(capsys, tmp_path):
    (tmp_path / "c.toml").write_text("")
    status = cli.main(["serve", "--config", str(tmp_path / "c.toml"),
                       "--redis", "redis://127.0.0.1:1/0", "--node", "n1"], app=object())
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "needs PostgreSQL" in err


def test_a_nodes_holder_writes_a_pid_file_of_its_own():
    """Nodes started in one folder (the README's cluster) keep their holders apart."""
    from server.config import ClusterSection, Config

    assert Config().pid_path == "esterport.pid"
    node = Config(cluster=ClusterSection(redis="redis://127.0.0.1:6379/0", node="n2"))
    assert node.pid_path == "esterport-n2.pid"
