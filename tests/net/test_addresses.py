"""Where to connect: strict ``lcnet join`` addresses, and the addresses a host lists."""

from __future__ import annotations

import ipaddress
import socket

import pytest
import zmq.asyncio
from hypothesis import given
from hypothesis import strategies as st

from lcnet.errors import UsageError
from lcnet.net.addresses import (
    DEFAULT_PORT,
    EVERY_ADDRESS,
    AddressError,
    format_address,
    interface_addresses,
    join_addresses,
    parse_address,
)
from lcnet.net.sockets import bind_host, bound_host


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.168.1.20", ("192.168.1.20", DEFAULT_PORT)),
        ("192.168.1.20:50000", ("192.168.1.20", 50000)),
        (" 127.0.0.1:1 ", ("127.0.0.1", 1)),
        ("127.0.0.1:65535", ("127.0.0.1", 65535)),
        ("localhost", ("localhost", DEFAULT_PORT)),
        ("my-pc.local:48151", ("my-pc.local", 48151)),
        ("[::1]:48150", ("::1", 48150)),
        ("[::1]", ("::1", DEFAULT_PORT)),
        ("[fd00::2]:7", ("fd00::2", 7)),
        ("[fe80::1%eth0]:50000", ("fe80::1%eth0", 50000)),
    ],
)
def test_good_addresses_parse(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (":48151", "no host before the ':'"),
        ("127.0.0.1:48151:1", "more than one ':'"),
        ("[::1", "never closes it"),
        ("::1]:5", "never opens"),
        ("127.0.0.1:", "ends with ':' but no port"),
        ("http://127.0.0.1:48151", "is a URL"),
        ("tcp://127.0.0.1:48151", "is a URL"),
        ("::1:48151", "an IPv6 address goes in brackets"),
        ("fd00::2", "an IPv6 address goes in brackets"),
        ("[::1]48150", "after the bracket"),
        ("[192.168.1.20]:5", "is not an IPv6 address"),
        ("127.0.0.1:0", "not a number from 1 to 65535"),
        ("127.0.0.1:65536", "not a number from 1 to 65535"),
        ("127.0.0.1:http", "not a number from 1 to 65535"),
        ("127.0.0.1:+5", "not a number from 1 to 65535"),
        ("127.0.0.1:٣", "not a number from 1 to 65535"),
        ("192.168.1", "is not an IPv4 address"),
        ("300.1.1.1", "is not an IPv4 address"),
        ("-pc-", "neither an IPv4 address nor a host name"),
        ("my pc", "is not an address"),
        ("user@host", "is not an address"),
        ("", "no address given"),
        ("*", "neither an IPv4 address nor a host name"),
    ],
)
def test_each_malformed_address_gets_one_clear_error(text: str, says: str) -> None:
    with pytest.raises(AddressError) as caught:
        parse_address(text)
    message = str(caught.value)
    assert says in message
    assert "\n" not in message and "tcp://" + text not in message
    assert isinstance(caught.value, UsageError)  # exit status 2, like any bad command line


@pytest.mark.slow
@given(st.integers(min_value=1, max_value=65535), st.ip_addresses())
def test_a_formatted_address_parses_back(
    port: int, address: ipaddress.IPv4Address | ipaddress.IPv6Address
) -> None:
    text = format_address(str(address), port)
    assert parse_address(text) == (str(address), port)


@pytest.mark.slow
def test_a_host_lists_its_usable_addresses_never_the_unspecified_one() -> None:
    every = interface_addresses()
    assert ipaddress.ip_address("127.0.0.1") in every  # loopback is up on any machine
    listed = join_addresses(EVERY_ADDRESS, 48151)
    assert listed, "a host always has something to tell"
    for text in listed:
        host, port = parse_address(text)
        assert port == 48151
        address = ipaddress.ip_address(host)
        assert address in every and not address.is_unspecified
        assert not (address.version == 6 and address.is_link_local)
    usable = [a for a in every if not a.is_loopback and not (a.version == 6 and a.is_link_local)]
    if usable:
        assert [parse_address(t)[0] for t in listed] == [str(a) for a in usable]
    assert all(not t.startswith("0.0.0.0") for t in join_addresses("0.0.0.0", 1))
    assert all(parse_address(t)[0].count(".") == 3 for t in join_addresses("0.0.0.0", 1))


def test_a_host_bound_to_one_address_lists_only_that_one() -> None:
    assert join_addresses("127.0.0.1", 5000) == ["127.0.0.1:5000"]
    assert join_addresses("::1", 5000) == ["[::1]:5000"]


@pytest.mark.net
@pytest.mark.parametrize(
    ("bind", "expected"),
    [("127.0.0.1", {"127.0.0.1"}), ("::1", {"::1"}), ("lo", {"127.0.0.1", "::1"})],
)
def test_the_address_listed_is_the_one_the_socket_is_bound_to(
    bind: str, expected: set[str]
) -> None:
    """An interface's name binds one of its addresses: the one listed."""
    if bind == "lo" and "lo" not in [name for _, name in socket.if_nameindex()]:
        pytest.skip("no interface named lo")
    context = zmq.asyncio.Context()
    try:
        sock, port = bind_host(context, bind, 0)
        try:
            (listed,) = join_addresses(bound_host(sock), port)
        finally:
            sock.close(linger=0)
    finally:
        context.term()
    assert parse_address(listed)[0] in expected
    assert parse_address(listed)[1] == port
