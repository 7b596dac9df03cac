"""The `network` setting: the network the driver listens on and the task runners connect over,
named as an interface (`ib0`) or an IPv4 subnet (`10.1.0.0/16`), as dask-jobqueue's `interface`.

The driver's side is here (which of this node's addresses it listens on); each runner checks its
own node in Java (common.protocol.NetworkChoice), with the same rules: an interface matches by
its name (or a labelled alias of it, `ib0:1`), a subnet by any address in it, and only
interfaces that are up count."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Iterable

# From <net/if.h>.
IFF_UP = 0x1


def parse(value: str) -> str:
    """The setting's value, checked: an interface name, an IPv4 subnet, or empty (off)."""
    value = value.strip()
    if "/" in value:
        try:
            ipaddress.IPv4Network(value, strict=False)
        except ValueError:
            raise ValueError("expected an interface name such as ib0 or an IPv4 subnet such "
                             "as 10.1.0.0/16") from None
    elif value and (len(value) > 15 or not all(c.isalnum() or c in "._-:" for c in value)):
        # Linux interface names are at most 15 characters (IFNAMSIZ - 1).
        raise ValueError("expected an interface name such as ib0 (at most 15 letters, digits, "
                         "'.', '_', '-', ':') or an IPv4 subnet such as 10.1.0.0/16")
    return value


def on_network(spec: str, interface: str, address: str) -> bool:
    """Whether address, of interface, is on the network spec (parse()'s value)."""
    if "/" in spec:
        return ipaddress.IPv4Address(address) in ipaddress.IPv4Network(spec, strict=False)
    return interface == spec or interface.split(":", 1)[0] == spec


def choose(spec: str, addresses: Iterable[tuple[str, str]]) -> str | None:
    """The first (interface, IPv4 address) pair's address on the network spec, or None."""
    return next((a for i, a in addresses if on_network(spec, i, a)), None)


def local_addresses() -> list[tuple[str, str]]:
    """(interface, IPv4 address) of this node's interfaces that are up, every address of each
    (getifaddrs(3), as Java's NetworkInterface reads them on the runners' side: an ioctl would
    see one address per interface, and `ip` may not be installed)."""
    import ctypes  # here: `ham`'s other commands start without it

    class Sockaddr(ctypes.Structure):
        _fields_ = [("family", ctypes.c_ushort), ("data", ctypes.c_ubyte * 14)]

    class Ifaddrs(ctypes.Structure):
        pass

    Ifaddrs._fields_ = [("next", ctypes.POINTER(Ifaddrs)), ("name", ctypes.c_char_p),
                        ("flags", ctypes.c_uint), ("addr", ctypes.POINTER(Sockaddr)),
                        ("netmask", ctypes.POINTER(Sockaddr)), ("ifu", ctypes.POINTER(Sockaddr)),
                        ("data", ctypes.c_void_p)]
    libc = ctypes.CDLL(None, use_errno=True)
    head = ctypes.POINTER(Ifaddrs)()
    if libc.getifaddrs(ctypes.byref(head)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"getifaddrs: {os.strerror(err)}")
    out = []
    try:
        entry = head
        while entry:
            ifa = entry.contents
            if ifa.addr and ifa.addr.contents.family == socket.AF_INET and ifa.flags & IFF_UP:
                # sockaddr_in: the port's 2 bytes, then the address's 4.
                out.append((ifa.name.decode(errors="replace"),
                            socket.inet_ntoa(bytes(ifa.addr.contents.data[2:6]))))
            entry = ifa.next
    finally:
        libc.freeifaddrs(head)
    return out


def describe(addresses: Iterable[tuple[str, str]]) -> str:
    """`eth0 10.0.0.5, ib0 10.1.0.5`: what a node has (by interface name, loopback left out),
    for an error message."""
    return ", ".join(sorted(f"{i} {a}" for i, a in addresses if not a.startswith("127."))) \
        or "none"
