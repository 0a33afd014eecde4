"""Real terminal clients against a real server process: Debian's telnet and TinTin++,
driven through a pseudo-terminal with pexpect, as a person at a keyboard would."""

from __future__ import annotations

import pexpect

from tests.conftest import require_program


def _spawn(cmd: str) -> pexpect.spawn:
    return pexpect.spawn(cmd, encoding="utf-8", timeout=10, dimensions=(40, 100))


def test_telnet_program_create_login_say_tell_who_quit(server_process):
    telnet = require_program("telnet")
    port = server_process
    bob = _spawn(f"{telnet} 127.0.0.1 {port}")
    bob.expect("Name: ")
    bob.sendline("NEW")
    bob.expect("Choose a name: ")
    bob.sendline("Bob")
    bob.expect("Choose a password: ")
    bob.sendline("hunter22")
    bob.expect("Type it again: ")
    bob.sendline("hunter22")
    bob.expect("Exits:")
    assert "hunter22" not in bob.before  # the password was not echoed back

    alice = _spawn(f"{telnet} 127.0.0.1 {port}")
    alice.expect("Name: ")
    alice.sendline("NEW")
    alice.expect("Choose a name: ")
    alice.sendline("Alice")
    alice.expect("Choose a password: ")
    alice.sendline("sesame1")
    alice.expect("Type it again: ")
    alice.sendline("sesame1")
    alice.expect("Exits:")
    alice.sendline("say hello over telnet")
    alice.expect('You say, "hello over telnet"')
    bob.expect('Alice says, "hello over telnet"')
    alice.sendline("tell bob a secret")
    alice.expect("You tell Bob: a secret")
    bob.expect("Alice tells you: a secret")
    alice.sendline("who")
    alice.expect("2 players connected")
    alice.sendline("quit")
    alice.expect("Goodbye")
    alice.expect(pexpect.EOF)
    bob.expect("Alice has left")

    again = _spawn(f"{telnet} 127.0.0.1 {port}")
    again.expect("Name: ")
    again.sendline("Alice")
    again.expect("Password: ")
    again.sendline("wrong")
    again.expect("Wrong password")
    again.expect("Name: ")
    again.sendline("Alice")
    again.expect("Password: ")
    again.sendline("sesame1")
    again.expect("Exits:")
    again.sendline("quit")
    again.expect(pexpect.EOF)
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


def test_tintin_client_logs_in_and_chats(server_process):
    tintin = require_program("tt++")
    port = server_process
    tt = _spawn(f"{tintin} -e '#session esterport 127.0.0.1 {port}'")
    tt.expect("Name: ")
    tt.sendline("NEW")
    tt.expect("Choose a name: ")
    tt.sendline("Tinny")
    tt.expect("Choose a password: ")
    tt.sendline("tintin1")
    tt.expect("Type it again: ")
    tt.sendline("tintin1")
    tt.expect("Exits:")
    tt.sendline("chat hello from tintin")
    tt.expect(r"\[chat\] Tinny: hello from tintin")
    tt.sendline("finger")
    tt.expect("Cubits: 1000")
    tt.sendline("quit")
    tt.expect("Goodbye")
    tt.sendline("#end")
    tt.expect(pexpect.EOF)
