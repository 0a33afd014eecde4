"""What TLS and MCCP2 would add to an idle session: resident memory per connection.

    .venv/bin/python bench/tls_memory.py                  # 500 connections each way
    .venv/bin/python bench/tls_memory.py --connections 2000

Three figures, each the growth of this process's resident memory (VmRSS) divided by the
count, after a first batch has warmed the allocator:

* **plain / TLS**: an asyncio server in this process (the parlor's transport, without the
  parlor: ``bench/idle.py`` measures a whole idle session), and clients in a child
  process; each connection is sent a 2 KB welcome screen and answers one line, then
  stays open. The difference is what the TLS port adds to a session (OpenSSL's
  connection, its buffers, asyncio's SSL protocol), with the parlor's context
  (``server/tls.py``, a self-signed certificate made by ``openssl req``).
* **MCCP2**: one zlib compressor per session, as a server keeps for as long as a client
  has compression on, having compressed that screen with a sync flush (as telnetlib3
  does after every write): telnetlib3 5.0.1's parameters (level 9, window 2^12,
  memLevel 5), zlib's defaults (level 9, 2^15, 8) and level 6 with telnetlib3's window.
  zlib's own formula for a compressor is ``(1 << (windowBits + 2)) + (1 << (memLevel +
  9))`` bytes plus about 6 KB of state: 32 KB and 256 KB (+6 KB) for the first two.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.sslproto
import gc
import os
import ssl
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from storm import rss_kib  # noqa: E402

from server.tls import server_context  # noqa: E402

WARM = 100
SCREEN = (("Welcome to Esterport, a parlor of games: Triptycha, Triad Dice, Triad and "
           "Pyramid.\r\n") * 30).encode()[:2048]

CLIENT = r"""
import asyncio, ssl, sys
async def main(port, count, tls):
    context = None
    if tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
        await reader.readexactly(2048)
        writer.write(b"NEW\r\n")
        held.append((reader, writer))
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"))
"""


class Held(asyncio.Protocol):
    """A connection that is sent the screen, reads one line, and stays."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        transport.write(SCREEN)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.line = data


async def per_connection(count: int, context: ssl.SSLContext | None) -> float:
    """KiB of this process's resident memory per held connection."""
    kept: list[Held] = []

    def made() -> Held:
        protocol = Held()
        kept.append(protocol)
        return protocol

    server = await asyncio.get_running_loop().create_server(made, "127.0.0.1", 0,
                                                            ssl=context, backlog=1024)
    port = server.sockets[0].getsockname()[1]

    async def batch(n: int) -> subprocess.Popen:
        child = subprocess.Popen([sys.executable, "-c", CLIENT, str(port), str(n),
                                  "1" if context else "0"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = await asyncio.wait_for(
            asyncio.get_running_loop().run_in_executor(None, child.stdout.readline), 120)
        assert line.strip() == "ready", line
        await asyncio.sleep(0.5)  # the last lines arrive
        return child

    warm = await batch(WARM)
    gc.collect()
    before = rss_kib(os.getpid())
    measured = await batch(count)
    gc.collect()
    after = rss_kib(os.getpid())
    for child in (warm, measured):
        child.stdin.write("\n")
        child.stdin.flush()
        child.wait(timeout=60)
    server.close()
    for protocol in kept:
        protocol.transport.close()
    await asyncio.sleep(0.5)
    return (after - before) / count


def compressors(count: int, level: int, wbits: int, mem_level: int) -> float:
    """KiB of resident memory per zlib compressor that has sent the screen."""
    gc.collect()
    before = rss_kib(os.getpid())
    kept = []
    for _ in range(count):
        deflate = zlib.compressobj(level, zlib.DEFLATED, wbits, mem_level)
        deflate.compress(SCREEN)
        deflate.flush(zlib.Z_SYNC_FLUSH)
        kept.append(deflate)
    after = rss_kib(os.getpid())
    del kept
    return (after - before) / count


def certificate(folder: Path) -> ssl.SSLContext:
    cert, key = folder / "bench.crt", folder / "bench.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj",
                    "/CN=localhost", "-days", "2", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return server_context(str(cert), str(key))


async def run(ns: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="esterport-tls-") as folder:
        context = certificate(Path(folder))
        plain = await per_connection(ns.connections, None)
        tls = await per_connection(ns.connections, context)
    print(f"{ns.connections} connections each, held open after a 2 KB screen and a line:")
    print(f"  plain TCP (asyncio transport)  {plain:6.1f} KiB a connection")
    print(f"  TLS (server/tls.py's context)  {tls:6.1f} KiB a connection "
          f"({tls - plain:+.1f} KiB over plain)")
    print("MCCP2: one zlib compressor a session, after the screen and a sync flush:")
    for label, args in (("telnetlib3 5.0.1: level 9, wbits 12, memLevel 5", "9,12,5"),
                        ("level 6, wbits 12, memLevel 5", "6,12,5"),
                        ("zlib's defaults: level 9, wbits 15, memLevel 8", "9,15,8")):
        # each in a fresh process: memory freed by the figures before would be reused
        done = subprocess.run([sys.executable, __file__, "--connections",
                               str(ns.connections), "--compressor", args],
                              capture_output=True, text=True, timeout=120, check=True)
        print(f"  {label:48s} {float(done.stdout):6.1f} KiB a session")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--connections", type=int, default=500)
    p.add_argument("--compressor", help=argparse.SUPPRESS)  # LEVEL,WBITS,MEMLEVEL: one figure
    p.add_argument("--tls-buffer", type=int, default=0, metavar="KIB",
                   help="asyncio's read buffer for each TLS connection (default: its own, "
                        "256 KiB)")
    ns = p.parse_args(argv)
    if ns.compressor:
        print(compressors(ns.connections, *(int(x) for x in ns.compressor.split(","))))
        return 0
    if ns.tls_buffer:
        asyncio.sslproto.SSLProtocol.max_size = ns.tls_buffer * 1024
    return asyncio.run(run(ns))


if __name__ == "__main__":
    sys.exit(main())
