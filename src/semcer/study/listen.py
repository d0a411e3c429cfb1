"""Where ``semcer study serve`` listens: ``--host`` checked and resolved before anything is printed
or opened (one clear line for an empty host, ``999.1.1.1``, ``HOST:PORT`` or a name that does not
resolve), whether it is a loopback address (the default, ``127.0.0.1``, is), and the listening socket.

The address is resolved once, here, and the socket is bound to what it resolved to: the warning
about a non-loopback address and the address actually listened on cannot disagree.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from typing import Any

from semcer.errors import SemcerError, quoted

_EXAMPLE = "e.g. 127.0.0.1 (this machine only, the default), localhost, ::1, or 0.0.0.0 (every network)"


@dataclass(frozen=True)
class ListenAddress:
    """A checked ``--host``: as given (an IPv6 address without its brackets), the socket family and
    address it resolved to, and whether that address is a loopback one."""

    host: str
    family: int
    sockaddr: tuple[Any, ...]
    loopback: bool

    @property
    def shown(self) -> str:
        """The host as a URL writes it (an IPv6 address in brackets)."""
        return f"[{self.host}]" if ":" in self.host else self.host

    def allowed_hosts(self) -> list[str] | None:
        """The ``Host`` headers the app accepts on a loopback address (no DNS rebinding onto it); None
        (any) on another address, which other machines reach by names of their own."""
        if not self.loopback:
            return None
        return sorted({"127.0.0.1", "localhost", "::1", "[::1]", self.host, self.shown})


def resolve_host(host: str) -> ListenAddress:
    """``host`` checked and resolved (a numeric address without a lookup); a
    :class:`~semcer.errors.SemcerError` naming ``--host`` and the fix otherwise."""
    name = _checked_name(host)
    numeric = _numeric(name)
    flags = socket.AI_NUMERICHOST if numeric is not None else 0
    try:
        infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM, flags=flags)
    except (socket.gaierror, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, socket.gaierror) and exc.strerror else str(exc)
        raise SemcerError(f"--host {quoted(host)}: cannot resolve it ({why}); give an address of this machine, "
                          f"{_EXAMPLE}") from None
    family, _, _, _, sockaddr = infos[0]
    address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
    return ListenAddress(name, family, tuple(sockaddr), address.is_loopback)


def _checked_name(host: object) -> str:
    """The host to resolve: not empty, no whitespace, no scheme, path or port; brackets of an IPv6
    address removed."""
    if not isinstance(host, str) or not host:
        raise SemcerError(f"--host is empty: give the address to listen on, {_EXAMPLE}")
    if any(c.isspace() or not c.isprintable() for c in host) or "/" in host or "@" in host:
        raise SemcerError(f"--host {quoted(host)}: give an address or a host name only (no scheme, path or spaces), "
                          f"{_EXAMPLE}")
    name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not name:
        raise SemcerError(f"--host {quoted(host)}: no address between the brackets, {_EXAMPLE}")
    if name.count(":") == 1 or (host.startswith("[") and "]:" in host):  # 127.0.0.1:8000, [::1]:8000
        raise SemcerError(f"--host {quoted(host)}: give the port with --port, not in --host")
    if ":" in name and _numeric(name) is None:
        raise SemcerError(f"--host {quoted(host)}: not an IPv6 address, {_EXAMPLE}")
    if all(c.isdigit() or c == "." for c in name) and _numeric(name) is None:
        raise SemcerError(f"--host {quoted(host)}: not an IPv4 address (four numbers from 0 to 255, "
                          f"as 127.0.0.1), {_EXAMPLE}")
    return name


def _numeric(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def listen(address: ListenAddress, port: int) -> socket.socket:
    """A socket bound to ``address`` and ``port`` and listening (``socket.create_server``:
    SO_REUSEADDR, as uvicorn binds), inheritable (uvicorn serves it), or a one-line error (a port in
    use, an address this machine does not have)."""
    if type(port) is not int or not 1 <= port <= 65535:
        raise SemcerError(f"--port must be a whole number from 1 to 65535, got {port!r}")
    sockaddr = (address.sockaddr[0], port, *address.sockaddr[2:])
    try:
        sock = socket.create_server(sockaddr, family=address.family, backlog=2048)
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)  # create_server adds the address to strerror
        raise SemcerError(f"cannot listen on {address.shown}:{port}: {why}") from None
    sock.set_inheritable(True)
    return sock
