"""bench/load.py ``--slices``: the closed-loop measurement of the parlor and the bare echo
in alternate slices, added up (fake servers and workers: no sockets, no timing)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_load_slices", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


load = _load()


class FakeServer:
    def __init__(self, cpu_per_slice: float) -> None:
        self.spent, self.step = 0.0, cpu_per_slice

    def cpu(self) -> float:
        self.spent += self.step / 2  # called before and after each slice
        return self.spent


class FakePool:
    """Each slice: one worker's part, ``answers`` answers, all in the measured window."""

    def __init__(self, label: str, answers: int, log: list) -> None:
        self.label, self.answers, self.log = label, answers, log

    async def phase(self, mode: str, commands: list[str], warmup: float, duration: float):
        self.log.append((self.label, mode, warmup, duration))
        return [{"latencies": [1000 * (i + 1) for i in range(self.answers)], "window": duration,
                 "sent": self.answers, "answers": self.answers, "missing": 0, "unexpected": 0,
                 "dropped": 0, "cpu": 0.1, "lag_p99": 0.0}]


async def test_slices_alternate_and_add_up():
    ns = load.parse_args(["--closed", "6", "--slices", "3", "--warmup", "1"])
    log: list = []
    servers = {"parlor": FakeServer(0.5), "bare": FakeServer(0.25)}
    pools = {"parlor": FakePool("parlor", 100, log), "bare": FakePool("bare", 300, log)}
    parlor, bare = await load.measure_alternately(ns, servers, pools)

    assert [entry[0] for entry in log] == ["parlor", "bare", "bare", "parlor", "parlor", "bare"]
    assert all(mode == "closed" and duration == 2.0 for _, mode, _, duration in log)
    assert [warmup for _, _, warmup, _ in log] == [1.0, 1.0, 0.2, 0.2, 0.2, 0.2]
    assert parlor["server"] == "parlor" and bare["server"] == "bare"
    assert parlor["answers"] == parlor["sent"] == 300 and bare["answers"] == 900
    assert parlor["throughput"] == pytest.approx(300 / 6) and bare["throughput"] == 150
    assert parlor["p50"] == 51.0  # ms: the latencies (1..100 ms, three slices) are in µs


def test_one_slice_is_the_default_and_zero_is_refused(capsys):
    assert load.parse_args([]).slices == 1
    with pytest.raises(SystemExit):
        load.parse_args(["--slices", "0"])
    assert "--slices" in capsys.readouterr().err
