"""TLS for both doors: the certificate and key of ``[server] tls_certificate`` and
``tls_key`` made into a server context, or refused in one line that says which file is
wrong and how.

The TLS telnet port (``[server] tls_port``, ``Parlor._listen_tls``) and the web door's
HTTPS port (``[web] tls_port``, ``server/web``) use the same files. ``ssl`` alone says
"PEM lib" for a missing key, a key that is not one, a key with a passphrase and a
certificate that is not one alike, so each file is looked at first; only what passes
is handed to OpenSSL, whose word is then about the pair (a key of another certificate).
"""

from __future__ import annotations

import ssl
from pathlib import Path

# Connections have this long to finish their TLS handshake: until it ends a connection
# is in none of the parlor's counts (asyncio's default is a minute).
HANDSHAKE_TIMEOUT = 10.0

_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
_KEY_END = b"PRIVATE KEY-----"
_ENCRYPTED = (b"-----BEGIN ENCRYPTED PRIVATE KEY-----", b"Proc-Type: 4,ENCRYPTED")


class TLSError(ValueError):
    """The certificate or key cannot serve TLS: the message says which file and why."""


def _read(setting: str, path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise TLSError(f"config: [server] {setting} {path}: "
                       f"{err.strerror or err}") from None


def _no_passphrase() -> bytes:
    """OpenSSL would ask on the terminal for a key's passphrase: never ask."""
    raise TLSError("a key with a passphrase")


def server_context(certificate: str, key: str = "") -> ssl.SSLContext:
    """A server context (TLS 1.2 at least) for the PEM ``certificate`` (the server's
    certificate first, then its chain, as certbot's ``fullchain.pem``) and its
    unencrypted PEM private ``key`` (``""``: the key is in the certificate's file).

    :raises TLSError: a file is missing or unreadable, is not what it should be, the key
        has a passphrase, or the key is not the certificate's."""
    if not certificate:
        raise TLSError("config: a TLS port needs [server] tls_certificate (a PEM file)")
    key_setting = "tls_key" if key else "tls_certificate"
    key = key or certificate
    cert_text = _read("tls_certificate", certificate)
    key_text = cert_text if key == certificate else _read("tls_key", key)
    if _CERTIFICATE not in cert_text:
        raise TLSError(f"config: [server] tls_certificate {certificate} is not a PEM "
                       f"certificate (no BEGIN CERTIFICATE line)")
    if any(mark in key_text for mark in _ENCRYPTED):
        raise TLSError(f"config: [server] {key_setting} {key}: the key has a passphrase; "
                       f"give it without one (openssl pkey -in KEY -out KEY.plain)")
    if _KEY_END not in key_text:
        hint = "" if key_setting == "tls_key" else "; name the key's file in [server] tls_key"
        raise TLSError(f"config: [server] {key_setting} {key} holds no PEM private key "
                       f"(no BEGIN PRIVATE KEY line){hint}")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certificate, key, password=_no_passphrase)
    except TLSError:
        raise TLSError(f"config: [server] {key_setting} {key}: the key has a passphrase; "
                       f"give it without one") from None
    except ssl.SSLError as err:
        if err.reason == "KEY_VALUES_MISMATCH":
            raise TLSError(f"config: [server] {key_setting} {key} is not the key of the "
                           f"certificate in {certificate}") from None
        raise TLSError(f"config: [server] tls_certificate {certificate} and {key_setting} "
                       f"{key} do not load as a certificate and its key "
                       f"({err.reason or err.strerror or err})") from None
    except OSError as err:  # gone or unreadable between the reading and the loading
        raise TLSError(f"config: [server] tls_certificate {certificate}: "
                       f"{err.strerror or err}") from None
    return context
