"""Finding a game on the LAN: DNS-SD over multicast DNS (the ``zeroconf`` package).

``lcnet host`` announces its game as a service of type :data:`SERVICE_TYPE`
whose TXT record says who hosts (name and key fingerprint), the options
(suits, rounds), the protocol version and the state (``waiting`` for an
opponent, or ``busy``). The announcement goes away (DNS-SD "goodbye") when
the match starts and when the host stops. ``lcnet games`` and ``lcnet join``
without an address look for such services and list them.

Where packets go. mDNS multicasts on network interfaces, so the choice of
interfaces is a rule here, not left to the library:

* a host announces only on the interfaces whose address it is bound to: an
  address bound on one interface announces there, the wildcard (``0.0.0.0``)
  on every IPv4 interface but loopback, and a host bound to a loopback
  address (``127.0.0.1``, ``::1``) does not announce at all, since nobody on
  a LAN could join it (:func:`announce_interfaces`);
* a search looks on the IPv4 interfaces other than loopback
  (:func:`browse_interfaces`), and only when the user asks (``lcnet games``,
  ``lcnet join`` with no address);
* ``lcnet play`` never announces (its bot hosts on 127.0.0.1 and is also told
  ``--no-announce``).

An announcement is only a hint about where to connect: the fingerprint it
gives is checked against the key the host then signs its welcome with
(:func:`lcnet.net.choosing.announced_key_check`), and a mismatch refuses the host as an impostor.

Forgeries. An lcnet host's service instance name is its player's name and the
start of its key's fingerprint (:func:`names.instance_label`, ``Alice (3F2A-9C1B)``).
Multicast DNS is not authenticated, so anyone can answer under that very name
with another key in the TXT record, which hides the real game from tools that
keep one answer per name. An answer whose instance name is not the one its
own TXT record's name and key give is a **forgery** (:func:`names.forgery`): it is
listed as such, never picked by name, and never joined without a warning.
The instance name carries only 32 bits of the fingerprint, so a match there
proves nothing; only a mismatch is proof.

``zeroconf`` is imported only when something is announced or looked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from lcnet import __version__
from lcnet.errors import ExitCode, NetError, UserError
from lcnet.protocol import wire
from lcnet.store import identity, names

if TYPE_CHECKING:
    from zeroconf import ServiceInfo
    from zeroconf.asyncio import AsyncZeroconf

SERVICE_TYPE: Final = "_lcnet._tcp.local."
"""The DNS-SD service type of an lcnet game."""

DEFAULT_LOOK_SECONDS: Final = 1.5
"""How long ``lcnet games`` and ``lcnet join`` listen for answers by default."""


WAITING: Final = "waiting"
BUSY: Final = "busy"
PLAYING: Final = "playing"
"""A match is being played: not joinable, but spectators may watch it (``lcnet watch``)."""
STATES: Final = (WAITING, BUSY, PLAYING)

RECORD_TTL: Final = 120
"""Seconds other machines may keep the announcement's records (a host that
vanished without a goodbye drops out of their caches after this)."""

CLOSE_TIMEOUT: Final = 3.0
"""Seconds a host waits for its goodbye to go out before it stops anyway."""

MAX_NUMBER_DIGITS: Final = 4
"""Digits of a number in a TXT record (suits, rounds, a version): a longer one is
no lcnet game's, and would only fill the listing."""


class NoGamesFound(UserError):
    """Nothing answered the search (exit status :data:`ExitCode.NO_GAMES`)."""

    exit_code = ExitCode.NO_GAMES


class AnnouncedKeyMismatch(NetError):
    """The host signed with another key than the one its announcement gave."""

    exit_code = ExitCode.KEY_CHANGED
    title = "Not the host that was announced"


# ------------------------------------------------------------------ games


@dataclass(frozen=True)
class Game:
    """One announced game, as a search found it."""

    instance: str
    """The service instance name (unique on the network, e.g. ``Alice (3F2A-9C1B)``)."""
    name: str
    fingerprint: str
    addresses: tuple[str, ...]
    """The host's addresses, the most likely to work from here first."""
    port: int
    suits: int
    rounds: int
    protocol: tuple[int, int]
    state: str
    known: bool = False
    """This player has played this name with this key before (known peers)."""
    warnings: tuple[str, ...] = ()
    """Why this game may not be who its name says (:func:`assess`), for every screen."""
    opponent: tuple[str, str] | None = None
    """For a match being played: the host's opponent (name, key fingerprint)."""
    watchers: int = 0
    """For a match being played: how many spectators watch it."""
    forged: str | None = None
    """Why its instance name is not the one its TXT record's name and key give
    (:func:`names.forgery`): someone answered under another game's name."""

    @property
    def address(self) -> str:
        return self.addresses[0]

    @property
    def where(self) -> str:
        """``ADDRESS:PORT`` as ``lcnet join`` takes it."""
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{host}:{self.port}"

    @property
    def compatible(self) -> bool:
        return self.protocol[0] == wire.PROTOCOL_VERSION[0]

    @property
    def joinable(self) -> bool:
        return self.compatible and self.state == WAITING

    @property
    def watchable(self) -> bool:
        return self.compatible and self.state == PLAYING

    @property
    def status(self) -> str:
        """``waiting``, ``busy``, ``playing NAME``, or why this lcnet cannot play it."""
        if not self.compatible:
            return f"needs lcnet protocol {self.protocol[0]}.{self.protocol[1]}"
        if self.state == PLAYING and self.opponent is not None:
            watching = f", {self.watchers} watching" if self.watchers else ""
            return f"playing {self.opponent[0]} ({self.opponent[1]}){watching}"
        return self.state

    def options(self) -> str:
        rounds = "round" if self.rounds == 1 else "rounds"
        return f"{self.suits} suits, {self.rounds} {rounds}"

    def note(self) -> str:
        """``FORGED``, ``known`` and the warnings (after a ``!``), as one short text."""
        parts = ["FORGED"] if self.forged else []
        if self.known:
            parts.append("known")
        if self.warnings:
            parts.append("! " + "; ".join(self.warnings))
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fingerprint": self.fingerprint,
            "address": self.address,
            "port": self.port,
            "addresses": list(self.addresses),
            "suits": self.suits,
            "rounds": self.rounds,
            "protocol": f"{self.protocol[0]}.{self.protocol[1]}",
            "state": self.state,
            "joinable": self.joinable,
            "watchable": self.watchable,
            "watchers": self.watchers,
            "opponent": (
                None
                if self.opponent is None
                else {"name": self.opponent[0], "fingerprint": self.opponent[1]}
            ),
            "known": self.known,
            "warnings": list(self.warnings),
            "forged": self.forged,
            "instance": self.instance,
        }


def txt_record(
    name: str,
    fingerprint: str,
    suits: int,
    rounds: int,
    state: str,
    opponent: tuple[str, str] | None = None,
    watchers: int = 0,
) -> dict[str, str]:
    """The TXT record of an announced game (``opponent`` and how many watch:
    while it is played)."""
    major, minor = wire.PROTOCOL_VERSION
    record = {
        "name": name,
        "fp": fingerprint,
        "suits": str(suits),
        "rounds": str(rounds),
        "v": f"{major}.{minor}",
        "state": state,
        "lcnet": __version__,
    }
    if opponent is not None:
        record["oname"], record["ofp"] = opponent
        record["watch"] = str(watchers)
    return record


def game_from_record(
    instance: str,
    properties: Mapping[bytes, bytes | None],
    addresses: Sequence[str],
    port: int | None,
) -> Game | None:
    """The game a resolved service describes, or ``None`` if it is not a usable lcnet game."""
    text: dict[str, str] = {}
    for key, value in properties.items():
        if value is None:
            continue
        try:
            text[key.decode("ascii")] = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        name = identity.validate_name(text["name"])
        suits, rounds = _number(text["suits"]), _number(text["rounds"])
        major, _, minor = text["v"].partition(".")
        protocol = (_number(major), _number(minor))
        fingerprint, state = text["fp"], text["state"]
    except (KeyError, ValueError, UserError):
        return None
    if not addresses or port is None or not 0 < port <= 65535 or state not in STATES:
        return None
    if suits not in (5, 6) or not 1 <= rounds <= wire.MAX_ROUNDS:
        return None
    if not _is_fingerprint(fingerprint):
        return None
    opponent = None
    if state == PLAYING and "oname" in text and _is_fingerprint(text.get("ofp", "")):
        with contextlib.suppress(UserError):
            opponent = (identity.validate_name(text["oname"]), text["ofp"])
    forged = names.forgery(instance, name, fingerprint)
    return Game(
        instance,
        name,
        fingerprint,
        tuple(addresses),
        port,
        suits,
        rounds,
        protocol,
        state,
        warnings=() if forged is None else (names.forged_warning(forged),),
        opponent=opponent,
        watchers=_count(text.get("watch")),
        forged=forged,
    )


_DIGITS: Final = re.compile(rf"[0-9]{{1,{MAX_NUMBER_DIGITS}}}")


def _number(text: str) -> int:
    """A small number written in ASCII digits (``ValueError`` for anything else:
    signs, blanks, other scripts' digits, or more than a few digits)."""
    if _DIGITS.fullmatch(text) is None:
        raise ValueError(f"not a small number: {text!r}")
    return int(text)


def _count(text: str | None) -> int:
    """A small count from a TXT value; 0 for anything else."""
    if text is None or not text.isdigit() or len(text) > 4:
        return 0
    return int(text)


def _is_fingerprint(text: str) -> bool:
    groups = text.split("-")
    return len(groups) == 4 and all(
        len(g) == 4 and all(c in "0123456789ABCDEF" for c in g) for g in groups
    )


def sort_games(games: Iterable[Game]) -> list[Game]:
    """Joinable games first, then by name (a known key first) and address: the
    order lists are numbered in."""
    return sorted(
        games,
        key=lambda g: (
            not g.joinable,
            g.name.casefold(),
            g.forged is not None,
            not g.known,
            g.where,
            g.fingerprint,
            g.instance,
        ),
    )


# ------------------------------------------------------------ interfaces


@dataclass(frozen=True)
class Interface:
    """An address of this machine and the length of its network prefix."""

    address: str
    prefix: int

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_interface(f"{self.address}/{self.prefix}").network


def machine_interfaces() -> list[Interface]:
    """Every address of this machine's interfaces (IPv6 ones with their scope)."""
    import ifaddr

    found: list[Interface] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip[0] if isinstance(ip.ip, tuple) else str(ip.ip)
            found.append(Interface(address, ip.network_prefix))
    return found


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def browse_interfaces(interfaces: Iterable[Interface] | None = None) -> list[str]:
    """Where a search looks: this machine's IPv4 addresses other than loopback."""
    if interfaces is None:
        interfaces = machine_interfaces()
    found: list[str] = []
    for interface in interfaces:
        address = interface.address
        if ":" in address or _is_loopback(address) or address in found:
            continue
        found.append(address)
    return found


WILDCARDS: Final = ("", "*", "0.0.0.0", "::")


def announce_interfaces(bound: str, interfaces: Iterable[Interface] | None = None) -> list[str]:
    """Where a host bound to ``bound`` (an IP address, or a wildcard) announces.

    Only on the interfaces whose address it is bound to: the wildcard means
    every IPv4 interface but loopback; a loopback address means nowhere (no
    other machine could join it); an address of this machine, its own
    interface; anything else (a name, an address not of this machine) nowhere.
    """
    bound = bound.strip().strip("[]")
    if bound in WILDCARDS:
        return browse_interfaces(interfaces)
    try:
        address = ipaddress.ip_address(bound.split("%")[0])
    except ValueError:
        return []
    if address.is_loopback or address.is_unspecified:
        return []
    if interfaces is None:
        interfaces = machine_interfaces()
    mine = {i.address.split("%")[0] for i in interfaces}
    return [str(address)] if str(address) in mine else []


_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(interfaces: Iterable[Interface]) -> list[_Network]:
    """The networks of this machine's interfaces other than loopback."""
    return [i.network for i in interfaces if not _is_loopback(i.address)]


def _in_networks(address: str, networks: Sequence[_Network]) -> bool:
    """Whether ``address`` (not loopback) is in one of ``networks``."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return not ip.is_loopback and any(ip.version == n.version and ip in n for n in networks)


def prefer_reachable(addresses: Iterable[str], interfaces: Iterable[Interface]) -> list[str]:
    """``addresses`` ordered for connecting: those in a network of this
    machine's first, then the others (IPv4 before IPv6 in each), loopback last."""
    networks = _networks(interfaces)

    def rank(address: str) -> tuple[int, int]:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return (4, 0)
        if ip.is_loopback:
            return (3, 0)
        return (0 if _in_networks(address, networks) else 1, 0 if ip.version == 4 else 1)

    unique = list(dict.fromkeys(addresses))
    return sorted(unique, key=rank)


# ------------------------------------------------------------ announcing


class Announcer:
    """A host's announcement of its game, from :meth:`start` until :meth:`withdraw`.

    Everything runs in the host's event loop; a failure to announce is told
    to the user and never stops the host (the opponent can still type the
    address). Nothing is printed while the match runs: a full-screen UI owns
    the terminal then.
    """

    def __init__(
        self,
        interfaces: list[str],
        *,
        name: str,
        fingerprint: str,
        port: int,
        suits: int,
        rounds: int,
        say: Callable[[str], None],
    ) -> None:
        self.interfaces = interfaces
        self.name = name
        self.fingerprint = fingerprint
        self.port = port
        self.suits = suits
        self.rounds = rounds
        self._say = say
        self._zc: AsyncZeroconf | None = None
        self._registering: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self.registered_as: str | None = None
        """The instance name, once announced (a clash on the network may change it)."""
        self._info: ServiceInfo | None = None
        self._update: asyncio.Task[None] | None = None
        self._opponent: tuple[str, str] | None = None
        self._watchers = 0
        self.failure: str | None = None
        """Why announcing failed after :meth:`start` returned (said by :meth:`aclose`)."""

    def start(self) -> None:
        """Begin announcing; the name is probed and announced in the background.

        Says now (before a full-screen UI owns the terminal) what it announces,
        or why it cannot; a failure later is said by :meth:`aclose`.
        """
        from zeroconf.asyncio import AsyncZeroconf

        label = names.instance_label(self.name, self.fingerprint)
        where = ", ".join(self.interfaces)
        try:
            self._zc = AsyncZeroconf(interfaces=list(self.interfaces))
        except Exception as exc:
            self._say(self._failed(exc))
            return
        self._say(
            f"announcing the game on the local network ({where}) as {label!r}: "
            "`lcnet join` with no address finds it"
        )
        self._registering = asyncio.get_running_loop().create_task(self._register(label))

    def _failed(self, exc: BaseException) -> str:
        return (
            f"could not announce the game on the local network ({type(exc).__name__}: "
            f"{exc}); the opponent can still join with the address"
        )

    async def _register(self, label: str) -> None:
        from zeroconf import ServiceInfo

        assert self._zc is not None
        server = f"{server_prefix(self.fingerprint)}{self.port}.local."
        info = ServiceInfo(
            SERVICE_TYPE,
            f"{label}.{SERVICE_TYPE}",
            port=self.port,
            properties=txt_record(self.name, self.fingerprint, self.suits, self.rounds, WAITING),
            server=server,
            parsed_addresses=self.interfaces,
            host_ttl=RECORD_TTL,
            other_ttl=RECORD_TTL,
        )
        try:
            done = await self._zc.async_register_service(info, allow_name_change=True)
            await done
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failure = self._failed(exc)
            return
        self.registered_as = info.name.removesuffix("." + SERVICE_TYPE)
        self._info = info

    def playing(self, opponent_name: str, opponent_fingerprint: str) -> None:
        """Announce the game as being played with this opponent (spectators can
        find it; nobody can join it), instead of waiting."""
        self._opponent = (opponent_name, opponent_fingerprint)
        self._publish()

    def watching(self, count: int) -> None:
        """Say how many spectators watch the match being played."""
        self._watchers = count
        if self._opponent is not None:
            self._publish()

    def _publish(self) -> None:
        """Update the announcement to what it should say now, after any update
        still going out (so that they arrive in order)."""
        self._update = asyncio.get_running_loop().create_task(self._mark_playing(self._update))

    async def _mark_playing(self, earlier: asyncio.Task[None] | None) -> None:
        from zeroconf import ServiceInfo

        for waiting in (self._registering, earlier):
            if waiting is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await waiting
        info, opponent = self._info, self._opponent
        if self._zc is None or info is None or opponent is None or self._closing is not None:
            return
        updated = ServiceInfo(
            SERVICE_TYPE,
            info.name,
            port=self.port,
            properties=txt_record(
                self.name,
                self.fingerprint,
                self.suits,
                self.rounds,
                PLAYING,
                opponent,
                self._watchers,
            ),
            server=info.server,
            parsed_addresses=self.interfaces,
            host_ttl=RECORD_TTL,
            other_ttl=RECORD_TTL,
        )
        with contextlib.suppress(Exception):
            await self._zc.async_update_service(updated)
            self._info = updated

    def withdraw(self) -> asyncio.Task[None]:
        """Stop announcing (a goodbye to the network); safe to call more than once."""
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close())
        return self._closing

    async def aclose(self) -> None:
        """Withdraw (if not done yet) and say whether announcing had failed."""
        with contextlib.suppress(Exception):
            await self.withdraw()
        if self.failure is not None:
            self._say(self.failure)
            self.failure = None

    async def _close(self) -> None:
        if self._update is not None and not self._update.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._update
        registering = self._registering
        if registering is not None and not registering.done():
            registering.cancel()
        if registering is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await registering
        if self._zc is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._zc.async_close()  # sends the goodbye, then closes
            self._zc = None


# ------------------------------------------------------------ searching


TYPE_A: Final = 1
TYPE_TXT: Final = 16
TYPE_AAAA: Final = 28
TYPE_SRV: Final = 33
CLASS_IN: Final = 1
"""DNS record types and class (RFC 1035, 2782, 3596), to read the answers kept."""


def decode_txt(data: bytes) -> dict[bytes, bytes | None]:
    """A TXT record's ``key=value`` strings (RFC 6763 §6: the first of a key counts)."""
    properties: dict[bytes, bytes | None] = {}
    at = 0
    while at < len(data):
        size = data[at]
        item = data[at + 1 : at + 1 + size]
        at += 1 + size
        key, sep, value = item.partition(b"=")
        if key and key.lower() not in {k.lower() for k in properties}:
            properties[key] = value if sep else None
    return properties


@dataclass(frozen=True)
class Answer:
    """What the network answered for one service instance name, every answer kept.

    A name should have one answer, but anyone on the LAN can answer for any
    name (multicast DNS is not authenticated): two hosts that both claim a
    name each leave a TXT record (whose ``fp`` says whose game it is) and a
    service record (where to connect).
    """

    instance: str
    texts: tuple[bytes, ...]
    services: tuple[tuple[str, int], ...]
    """(target host name, port) of each service record."""
    addresses: Mapping[str, tuple[str, ...]]
    """Each target host name's addresses."""


def games_from_answer(answer: Answer, machine: Sequence[Interface] = ()) -> list[Game]:
    """Every game ``answer`` describes: one per announced key and place to connect.

    A TXT record is paired with the service records whose target is the
    host name an lcnet host of that key gives itself (``lcnet-FINGERPRINT…``),
    or, when none is, with every service record: a listing then shows every
    pair, each with its fingerprint, and a wrong pair is refused when joined
    (the host must sign with the announced key). A target given several
    addresses in this machine's networks is a game at each (:func:`places`):
    anyone can answer with an address for any host name, so a copycat's
    address cannot stand in front of the real one.
    """
    if not answer.instance.isprintable():
        return []  # no lcnet host gives such a name (control characters, …)
    games: dict[tuple[str, str], Game] = {}
    for text in answer.texts:
        records = answer.services
        properties = decode_txt(text)
        fingerprint = properties.get(b"fp") or b""
        prefix = server_prefix(fingerprint.decode("ascii", errors="replace"))
        own = [(server, port) for server, port in records if server.lower().startswith(prefix)]
        for server, port in own or records:
            addresses = prefer_reachable(answer.addresses.get(server.lower(), ()), machine)
            for where in places(addresses, machine):
                game = game_from_record(answer.instance, properties, where, port)
                if game is not None:
                    games.setdefault((game.fingerprint, game.where), game)
    return list(games.values())


MAX_PLACES: Final = 16
"""The most games one service record gives (one per address in a network of
this machine): a host has a few interfaces; a flood of addresses gives no more."""


def places(addresses: Sequence[str], machine: Sequence[Interface]) -> list[list[str]]:
    """Where to connect for one service record, as the addresses of one game each.

    ``addresses`` are ordered by :func:`prefer_reachable`. Each address in a
    network of this machine is a place of its own (with the others after it,
    to try next); if at most one is, the record is one place.
    """
    networks = _networks(machine)
    near = [a for a in addresses if _in_networks(a, networks)]
    if len(near) <= 1:
        return [list(addresses)] if addresses else []
    far = [a for a in addresses if a not in near]
    return [[a, *far] for a in near[:MAX_PLACES]]


def server_prefix(fingerprint: str) -> str:
    """The start of the host name an lcnet host with this key announces (``lcnet-…``)."""
    return f"lcnet-{fingerprint.replace('-', '').lower()[:12]}-"


MAX_RECORDS: Final = 10_000
"""The most answers one search keeps (a flood of records costs no more memory)."""


class _Answers:
    """Every answer the network gave during a search, kept as it arrived.

    Kept here rather than read from zeroconf's cache at the end: a record
    sent with the cache-flush bit evicts the other answers for its name, so
    a copycat flushing the host's records could otherwise hide them.
    """

    def __init__(self) -> None:
        self.texts: dict[str, dict[bytes, None]] = {}
        self.services: dict[str, dict[tuple[str, int], None]] = {}
        self.addresses: dict[str, dict[str, None]] = {}
        self.count = 0

    def add(self, record: Any) -> None:
        if self.count >= MAX_RECORDS or record.ttl == 0:  # a goodbye adds nothing
            return
        key = record.name.lower()
        if record.type == TYPE_TXT and key.endswith(SERVICE_TYPE.lower()):
            self.texts.setdefault(key, {})[record.text] = None
        elif record.type == TYPE_SRV and key.endswith(SERVICE_TYPE.lower()):
            self.services.setdefault(key, {})[(record.server, record.port)] = None
        elif record.type in (TYPE_A, TYPE_AAAA):
            try:
                ip = ipaddress.ip_address(record.address)
            except ValueError:
                return
            scope = getattr(record, "scope_id", None)
            text = f"{ip}%{scope}" if ip.version == 6 and scope else str(ip)
            self.addresses.setdefault(key, {})[text] = None
        else:
            return
        self.count += 1

    def answer(self, name: str) -> Answer:
        key = name.lower()
        services = tuple(self.services.get(key, {}))
        addresses = {
            server.lower(): tuple(self.addresses.get(server.lower(), {})) for server, _ in services
        }
        texts = tuple(self.texts.get(key, {}))
        return Answer(name.removesuffix("." + SERVICE_TYPE), texts, services, addresses)


async def find_games(
    seconds: float = DEFAULT_LOOK_SECONDS,
    *,
    interfaces: list[str] | None = None,
    on_found: Callable[[Game], None] | None = None,
) -> list[Game]:
    """The games announced on the local network, after listening ``seconds``.

    Looks on :func:`browse_interfaces` (or ``interfaces``). Every answer for a
    name is kept (:func:`games_from_answer`); an answer that is not a usable
    lcnet game (bad names, control characters, missing fields) is left out.
    ``on_found`` is told of each game as soon as it is resolved.
    """
    from zeroconf import (
        BadTypeInNameException,
        RecordUpdate,
        RecordUpdateListener,
        ServiceStateChange,
        Zeroconf,
    )
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

    machine = machine_interfaces()
    where = browse_interfaces(machine) if interfaces is None else interfaces
    if not where:
        raise NoGamesFound(
            "this machine has no network interface other than loopback, so there is "
            "nowhere to look for games: connect to the network, or join with "
            "`lcnet join ADDRESS`"
        )
    aiozc = AsyncZeroconf(interfaces=list(where))
    answers = _Answers()

    class Collector(RecordUpdateListener):
        def async_update_records(
            self, zc: Zeroconf, now: float, records: list[RecordUpdate]
        ) -> None:
            for update in records:
                answers.add(update.new)

    aiozc.zeroconf.async_add_listener(Collector(), None)
    names_seen: dict[str, None] = {}
    told: set[tuple[str, str]] = set()
    pending: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()

    def games_of(name: str) -> list[Game]:
        return games_from_answer(answers.answer(name), machine)

    async def resolve(name: str) -> None:
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
        except BadTypeInNameException:
            return  # a name no lcnet host gives (control characters, …)
        await info.async_request(aiozc.zeroconf, 3000)
        if on_found is not None:
            for game in games_of(name):
                if (game.fingerprint, game.where) not in told:
                    told.add((game.fingerprint, game.where))
                    on_found(game)

    def finished(task: asyncio.Task[None]) -> None:
        pending.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved, so never reported as unretrieved; the game is left out

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            names_seen.pop(name, None)
            return
        names_seen[name] = None
        task = loop.create_task(resolve(name))
        pending.add(task)
        task.add_done_callback(finished)

    browser = AsyncServiceBrowser(aiozc.zeroconf, [SERVICE_TYPE], handlers=[changed])
    try:
        await asyncio.sleep(seconds)  # the search's listening time, as asked
        games = [game for name in names_seen for game in games_of(name)]
    finally:
        await browser.async_cancel()
        for task in list(pending):
            task.cancel()
        for task in list(pending):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await aiozc.async_close()
    return sort_games(games)


def look(seconds: float = DEFAULT_LOOK_SECONDS) -> tuple[list[Game], float]:
    """:func:`find_games` from synchronous code; also the seconds it took."""
    start = time.monotonic()
    games = asyncio.run(find_games(seconds))
    return games, time.monotonic() - start
