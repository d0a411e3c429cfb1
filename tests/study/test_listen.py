"""Where the rating app listens: --host checked and resolved before anything is printed (one line
naming --host for an empty host, 999.1.1.1, HOST:PORT...), loopback told from the resolved address,
and a real listening socket on loopback."""

from __future__ import annotations

import contextlib
import socket

import pytest

from semcer.errors import SemcerError
from semcer.study.listen import ListenAddress, listen, resolve_host

EXAMPLE = "e.g. 127.0.0.1 (this machine only, the default), localhost, ::1, or 0.0.0.0 (every network)"

BAD = [
    ("", f"--host is empty: give the address to listen on, {EXAMPLE}"),
    ("999.1.1.1", f"--host '999.1.1.1': not an IPv4 address (four numbers from 0 to 255, as 127.0.0.1), {EXAMPLE}"),
    ("127.1", f"--host '127.1': not an IPv4 address (four numbers from 0 to 255, as 127.0.0.1), {EXAMPLE}"),
    ("1.2.3.4.5", f"--host '1.2.3.4.5': not an IPv4 address (four numbers from 0 to 255, as 127.0.0.1), {EXAMPLE}"),
    ("127.0.0.1:8000", "--host '127.0.0.1:8000': give the port with --port, not in --host"),
    ("[::1]:8000", "--host '[::1]:8000': give the port with --port, not in --host"),
    ("localhost:80", "--host 'localhost:80': give the port with --port, not in --host"),
    ("1::2::3", f"--host '1::2::3': not an IPv6 address, {EXAMPLE}"),
    ("[::1", f"--host '[::1': not an IPv6 address, {EXAMPLE}"),
    ("[]", f"--host '[]': no address between the brackets, {EXAMPLE}"),
    ("http://127.0.0.1", f"--host 'http://127.0.0.1': give an address or a host name only (no scheme, path or "
                         f"spaces), {EXAMPLE}"),
    (" 127.0.0.1", f"--host ' 127.0.0.1': give an address or a host name only (no scheme, path or spaces), {EXAMPLE}"),
    ("a\nb", f"--host 'a\\nb': give an address or a host name only (no scheme, path or spaces), {EXAMPLE}"),
]


@pytest.mark.parametrize("host, message", BAD)
def test_a_bad_host_is_one_line_and_looked_up_nowhere(monkeypatch, host, message):
    def no_lookup(*args, **kwargs):
        raise AssertionError(f"looked up {args[0]!r}")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    with pytest.raises(SemcerError) as info:
        resolve_host(host)
    assert str(info.value) == message


def test_a_name_that_does_not_resolve_says_why(monkeypatch):
    def nowhere(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", nowhere)
    with pytest.raises(SemcerError) as info:
        resolve_host("rating-box.example")
    assert str(info.value) == ("--host 'rating-box.example': cannot resolve it (Name or service not known); give an "
                               f"address of this machine, {EXAMPLE}")
    assert "Unknown error" not in str(info.value)


@pytest.mark.parametrize("host, loopback, shown", [
    ("127.0.0.1", True, "127.0.0.1"), ("127.5.0.1", True, "127.5.0.1"), ("::1", True, "[::1]"),
    ("[::1]", True, "[::1]"), ("localhost", True, "localhost"), ("0.0.0.0", False, "0.0.0.0"), ("::", False, "[::]"),
    ("192.0.2.7", False, "192.0.2.7"),
])
def test_loopback_is_told_from_the_address(host, loopback, shown):
    address = resolve_host(host)
    assert (address.loopback, address.shown) == (loopback, shown)
    if loopback:
        assert {"127.0.0.1", "localhost", "[::1]", shown} <= set(address.allowed_hosts() or ())
    else:
        assert address.allowed_hosts() is None


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(address: ListenAddress, port: int) -> bool:
    with contextlib.closing(listen(address, port)) as server, \
            socket.create_connection((address.sockaddr[0], port), timeout=5) as client:
        peer, _ = server.accept()
        with peer:
            client.sendall(b"ping")
            return peer.recv(4) == b"ping"


def test_listen_binds_where_the_host_resolved():
    assert _answers(resolve_host("127.0.0.1"), _free_port())
    assert _answers(resolve_host("localhost"), _free_port())


def test_listen_on_ipv6_loopback():
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with contextlib.closing(socket.socket(socket.AF_INET6)) as s:
        s.bind(("::1", 0))
        port = s.getsockname()[1]
    assert _answers(resolve_host("[::1]"), port)


def test_listen_errors_are_one_line():
    address = resolve_host("127.0.0.1")
    with contextlib.closing(listen(address, _free_port())) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(SemcerError, match=rf"^cannot listen on 127\.0\.0\.1:{port}: Address already in use$"):
            listen(address, port)
    with pytest.raises(SemcerError, match=r"^cannot listen on 192\.0\.2\.7:\d+: Cannot assign requested address$"):
        listen(resolve_host("192.0.2.7"), _free_port())
    for port in (0, 65536, -1, 80.0, True):
        with pytest.raises(SemcerError, match=r"^--port must be a whole number from 1 to 65535"):
            listen(address, port)  # type: ignore[arg-type]
