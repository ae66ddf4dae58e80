"""Who a user is, and which peers they have met: the files under ``$LCNET_HOME``.

* A long-term Ed25519 key pair (PyNaCl) with a display name, created on first
  use. The secret key lives in ``identity.key`` (mode 0600, in a 0700
  directory); a key file that others may read, or that is corrupt, is an
  error the user must resolve — it is never silently replaced.
* The fingerprint: a short digest of a public key a person can read aloud
  and compare, ``3F2A-9C1B-0D4E-77A1`` (docs/PROTOCOL.md §2.5).
* Known peers, trust on first use like SSH: name → public key in
  ``known_peers.json``. A known name with another key is reported as
  :attr:`PeerStatus.CHANGED` with both fingerprints, for a loud warning.
  A process changes the file only while it holds ``known_peers.lock``.

``$LCNET_HOME`` defaults to ``~/.lcnet``; every directory lcnet creates
there is 0700 and every file 0600. Every write is atomic (a temporary
file in the same directory, fsync, rename), so a crash never leaves half a
file behind.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import getpass
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.signing import SigningKey, VerifyKey

from lcnet.deck.hashing import FINGERPRINT_GROUP, fingerprint
from lcnet.errors import ExitCode, UserError
from lcnet.game.seat import Seat
from lcnet.protocol.wire import MAX_NAME_BYTES

HOME_ENV: Final = "LCNET_HOME"
DEFAULT_HOME: Final = "~/.lcnet"
KEY_FILE: Final = "identity.key"
PROFILE_FILE: Final = "identity.json"
KNOWN_PEERS_FILE: Final = "known_peers.json"
PEERS_LOCK_FILE: Final = "known_peers.lock"
"""Held (flock) while a process reads, changes and rewrites the known peers,
so that two lcnet programs meeting new peers at once both keep theirs."""

HOME_MODE: Final = 0o700
"""The home directory holds a secret key: only its owner may list or enter it."""

PRIVATE_FILE_MODE: Final = 0o600
"""Mode of every file lcnet writes under its home."""

FORBIDDEN_KEY_BITS: Final = 0o077
"""Any permission for group or others makes a key file unusable (as with SSH keys)."""

KEY_FILE_HEADER: Final = "lcnet ed25519 secret key v1"
"""First line of a key file; the second is the 32-byte seed in hex."""

PUBLIC_KEY_SIZE: Final = 32
SECRET_SEED_SIZE: Final = 32

MAX_KEY_FILE_SIZE: Final = 4096
"""A key file is under 100 bytes; anything much larger is not one of ours."""

MAX_DATA_FILE_SIZE: Final = 1 << 20
"""Bound on a profile or known-peers file read: a mebibyte holds thousands of peers."""

MAX_NAME_LENGTH: Final = 32
"""Display names appear in the board's status line and in every log header."""

DEFAULT_NAME: Final = "player"
"""The display name when the login name is unusable."""


def home_dir() -> Path:
    """``$LCNET_HOME``, or ``~/.lcnet`` when it is not set."""
    return Path(os.environ.get(HOME_ENV) or DEFAULT_HOME).expanduser()


def validate_name(name: str) -> str:
    """``name`` without surrounding blanks, if it is a usable display name."""
    cleaned = name.strip()
    if not cleaned:
        raise UserError("a name cannot be empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise UserError(f"a name has at most {MAX_NAME_LENGTH} characters, not {len(cleaned)}")
    if not cleaned.isprintable():
        raise UserError(f"a name cannot contain control characters: {cleaned!r}")
    if len(cleaned.encode("utf-8")) > MAX_NAME_BYTES:
        # The wire's limit (a hello carries the name): 32 emoji are 128 bytes.
        raise UserError(
            f"a name has at most {MAX_NAME_BYTES} bytes in UTF-8, not {len(cleaned.encode())}"
        )
    return cleaned


@dataclass(frozen=True)
class Identity:
    """A user's display name and long-term Ed25519 key pair."""

    name: str
    signing_key: SigningKey = field(repr=False, compare=False)

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data`` (the caller adds its domain tag)."""
        return bytes(self.signing_key.sign(data).signature)

    def __repr__(self) -> str:
        return f"Identity(name={self.name!r}, fingerprint={self.fingerprint!r})"


def verify_signature(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``data``."""
    try:
        VerifyKey(public_key).verify(data, signature)
    except (BadSignatureError, CryptoError, ValueError, TypeError):
        return False
    return True


# --- the user's own identity -------------------------------------------------


def identity_exists(home: Path | None = None) -> bool:
    """Whether a key file exists (valid or not) under ``home``."""
    return (_home(home) / KEY_FILE).exists()


def load_identity(home: Path | None = None, *, create: bool = True) -> Identity:
    """The user's identity, created on first use unless ``create`` is false.

    Raises :class:`UserError` if the key file is unsafe or corrupt, or (with
    ``create=False``) missing.
    """
    base = _home(home)
    seed = _load_or_create_key(base, create=create)
    key = SigningKey(seed)
    return Identity(_read_name(base, bytes(key.verify_key)), key)


def set_name(name: str, home: Path | None = None) -> Identity:
    """Give the user's identity a new display name (creating the identity if needed).

    Only the name file is rewritten, so this also repairs a corrupt one.
    """
    cleaned = validate_name(name)
    base = _home(home)
    seed = _load_or_create_key(base, create=True)
    write_json(base / PROFILE_FILE, {"version": 1, "name": cleaned})
    return Identity(cleaned, SigningKey(seed))


def _load_or_create_key(base: Path, *, create: bool) -> bytes:
    key_path = base / KEY_FILE
    if not key_path.exists() and not key_path.is_symlink():
        if not create:
            raise UserError(f"no lcnet identity in {base}: run `lcnet id` to create one")
        ensure_home(base)
        _create_key_file(key_path)
        seed = _read_key_file(key_path)
        if not (base / PROFILE_FILE).exists():
            # Fix the default name now, so it does not follow later login changes.
            name = default_name(bytes(SigningKey(seed).verify_key))
            write_json(base / PROFILE_FILE, {"version": 1, "name": name})
        return seed
    return _read_key_file(key_path)


def _home(home: Path | None) -> Path:
    return home if home is not None else home_dir()


def ensure_home(base: Path) -> None:
    """Create ``base`` and any missing parent as private (0700) directories.

    Every directory lcnet creates is private, parents included: the first
    program to run may create ``~/.lcnet/bots/mcts`` before ``~/.lcnet``
    exists. Directories that already exist are left as they are.
    """
    missing: list[Path] = []
    directory = base
    while not directory.is_dir():
        missing.append(directory)
        if directory.parent == directory:
            break
        directory = directory.parent
    try:
        for directory in reversed(missing):
            with contextlib.suppress(FileExistsError):  # another lcnet made it just now
                directory.mkdir(mode=HOME_MODE)
                os.chmod(directory, HOME_MODE)  # mkdir's mode is filtered by the umask
    except OSError as exc:
        raise UserError(f"cannot create the lcnet home {base}: {exc.strerror}") from None
    if not base.is_dir():
        raise UserError(f"cannot create the lcnet home {base}: a file of that name is in the way")


def _create_key_file(path: Path) -> None:
    seed = bytes(SigningKey.generate())
    text = f"{KEY_FILE_HEADER}\n{seed.hex()}\n".encode("ascii")
    temp = _write_temp(path.parent, text)
    try:
        # A hard link never replaces an existing file: if another lcnet
        # created a key meanwhile, that one wins and is read below.
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        raise UserError(f"cannot create the key file {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def _read_key_file(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise UserError(f"cannot read the key file {path}: {exc.strerror}") from None
    try:
        # Checked on the open file, so the file checked is the file read.
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"the key file {path} is not a regular file")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise UserError(f"the key file {path} belongs to another user; it was not used")
        if info.st_mode & FORBIDDEN_KEY_BITS:
            raise UserError(
                f"the key file {path} is accessible to other users "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); it was not used. "
                f"If nobody else could have read it, run `chmod 600 {path}`; "
                "otherwise move it away and run `lcnet id` to create a new identity"
            )
        data = os.read(fd, MAX_KEY_FILE_SIZE + 1)
    finally:
        os.close(fd)
    return _parse_key_file(path, data)


def _parse_key_file(path: Path, data: bytes) -> bytes:
    """The secret seed in a key file's bytes: the header line, then 64 hex digits."""
    problem = "it is far too large"
    if len(data) <= MAX_KEY_FILE_SIZE:
        try:
            lines = data.decode("ascii").splitlines()
        except UnicodeDecodeError:
            lines = []
        if len(lines) != 2 or lines[0].strip() != KEY_FILE_HEADER:
            problem = "it is not two lines starting with the lcnet key header"
        else:
            try:
                seed = bytes.fromhex(lines[1].strip())
            except ValueError:
                seed = b""
            if len(seed) == SECRET_SEED_SIZE:
                return seed
            problem = f"its key is not {SECRET_SEED_SIZE} bytes in hex"
    raise UserError(
        f"the key file {path} is corrupt ({problem}); it was left untouched. "
        "Restore it from a backup, or move it away and run `lcnet id` to create a new "
        "identity (peers who know you will then see a changed key)"
    )


def _read_name(base: Path, public_key: bytes) -> str:
    data = _read_json(base / PROFILE_FILE)
    if data is None:
        return default_name(public_key)
    name = data.get("name")
    if not isinstance(name, str):
        raise UserError(f"{base / PROFILE_FILE} is corrupt (no name): use `lcnet id --name`")
    try:
        return validate_name(name)
    except UserError as exc:
        raise UserError(f"{base / PROFILE_FILE} holds an unusable name: {exc}") from None


def default_name(public_key: bytes) -> str:
    """A new identity's name: the login name and the start of the key's
    fingerprint ("pi-3F2A"), so that two people who both log in as ``pi``
    are two names to their opponents, not one name with two keys."""
    tail = "-" + fingerprint(public_key)[:4]
    try:
        login = validate_name(getpass.getuser().strip()[: MAX_NAME_LENGTH - len(tail)])
    except (UserError, OSError, KeyError):
        login = DEFAULT_NAME
    return login + tail


# --- known peers (trust on first use) ----------------------------------------


class PeerStatus(enum.Enum):
    """What the known-peers file says about a name and key."""

    NEW = "new"
    KNOWN = "known"
    CHANGED = "changed"


@dataclass(frozen=True)
class PeerCheck:
    """The outcome of checking a peer's name and key against the known peers."""

    status: PeerStatus
    name: str
    public_key: bytes = field(repr=False)
    previous_key: bytes | None = field(default=None, repr=False)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    @property
    def previous_fingerprint(self) -> str | None:
        return None if self.previous_key is None else fingerprint(self.previous_key)

    @property
    def warning(self) -> str | None:
        """The text to show loudly when the key changed; ``None`` otherwise."""
        if self.status is not PeerStatus.CHANGED:
            return None
        return (
            f"WARNING: {self.name!r} used to have the key {self.previous_fingerprint}, "
            f"but now presents {self.fingerprint}. {same_name_causes(self.name)} "
            f"Check the fingerprint with {self.name} in person; if they really have a "
            f"new key, run `lcnet id --forget {self.name}`."
        )


def same_name_causes(name: str) -> str:
    """What a known name with a new key may mean, the harmless and the dangerous."""
    return (
        f"Either {name} has a new key (another machine, a reinstall, another lcnet "
        "home), or someone else uses the name: by chance (two people who chose the "
        f"same name) or to pass as {name}."
    )


def known_peers(home: Path | None = None) -> dict[str, bytes]:
    """Every remembered peer: name → public key."""
    path = _home(home) / KNOWN_PEERS_FILE
    data = _read_json(path)
    if data is None:
        return {}
    peers = data.get("peers")
    if not isinstance(peers, dict):
        raise _corrupt_peers(path, "no peer table")
    result: dict[str, bytes] = {}
    for name, key_hex in peers.items():
        try:
            key = bytes.fromhex(key_hex) if isinstance(key_hex, str) else b""
        except ValueError:
            key = b""
        if len(key) != PUBLIC_KEY_SIZE:
            raise _corrupt_peers(path, f"the key of {name!r} is not {PUBLIC_KEY_SIZE} bytes")
        result[name] = key
    return result


def check_peer(
    name: str, public_key: bytes, home: Path | None = None, *, remember: bool = True
) -> PeerCheck:
    """Compare a peer's name and key with the known peers; remember a new one.

    A known name with another key is :attr:`PeerStatus.CHANGED`; the old
    key stays remembered until the user runs :func:`forget_peer`.
    """
    if len(public_key) != PUBLIC_KEY_SIZE:
        raise ValueError(f"a public key is {PUBLIC_KEY_SIZE} bytes, not {len(public_key)}")
    with _peers_locked(home) if remember else contextlib.nullcontext():
        peers = known_peers(home)
        previous = peers.get(name)
        if previous is None:
            if remember:
                peers[name] = public_key
                _write_peers(_home(home), peers)
            return PeerCheck(PeerStatus.NEW, name, public_key)
    if previous == public_key:
        return PeerCheck(PeerStatus.KNOWN, name, public_key)
    return PeerCheck(PeerStatus.CHANGED, name, public_key, previous)


def trust_peer(name: str, public_key: bytes, home: Path | None = None) -> None:
    """Remember ``public_key`` as ``name``'s key, replacing a known one (the
    player accepted a new key explicitly)."""
    if len(public_key) != PUBLIC_KEY_SIZE:
        raise ValueError(f"a public key is {PUBLIC_KEY_SIZE} bytes, not {len(public_key)}")
    with _peers_locked(home):
        peers = known_peers(home)
        peers[name] = public_key
        _write_peers(_home(home), peers)


def normalize_fingerprint(text: str) -> str:
    """A fingerprint as typed (any case, with or without dashes) in the form
    :func:`fingerprint` writes; :class:`UserError` if it cannot be one."""
    digits = "".join(ch for ch in text.strip().upper() if ch not in "-: ")
    size = len(fingerprint(bytes(PUBLIC_KEY_SIZE)).replace("-", ""))
    if len(digits) != size or any(ch not in "0123456789ABCDEF" for ch in digits):
        raise UserError(
            f"{text!r} is not a key fingerprint: write {size} hex digits, e.g. "
            f"{fingerprint(bytes(PUBLIC_KEY_SIZE))}"
        )
    return "-".join(digits[i : i + FINGERPRINT_GROUP] for i in range(0, size, FINGERPRINT_GROUP))


def forget_peer(name: str, home: Path | None = None) -> bool:
    """Forget a peer's key (so its next key is accepted as new); whether it was known."""
    with _peers_locked(home):
        peers = known_peers(home)
        if name not in peers:
            return False
        del peers[name]
        _write_peers(_home(home), peers)
        return True


@contextlib.contextmanager
def _peers_locked(home: Path | None) -> Iterator[None]:
    """Hold the known-peers lock: a read-change-write in here loses no other
    process's change (the file itself is replaced on write, so the lock is a
    separate file that stays)."""
    base = _home(home)
    ensure_home(base)
    path = base / PEERS_LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError as exc:
        raise UserError(f"cannot open {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _write_peers(base: Path, peers: Mapping[str, bytes]) -> None:
    table = {name: key.hex() for name, key in sorted(peers.items())}
    write_json(base / KNOWN_PEERS_FILE, {"version": 1, "peers": table})


def _corrupt_peers(path: Path, why: str) -> UserError:
    return UserError(
        f"the known-peers file {path} is corrupt ({why}); it was left untouched. "
        "Fix or remove it (lcnet then trusts every peer anew on first use)"
    )


# --- small file helpers ------------------------------------------------------


def _read_json(path: Path) -> dict[str, object] | None:
    """A JSON object file, ``None`` if it does not exist; corrupt → UserError."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_DATA_FILE_SIZE + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    try:
        if len(raw) > MAX_DATA_FILE_SIZE:
            raise ValueError("too large")
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict) or data.get("version") != 1:
        raise UserError(f"{path} is corrupt or from another lcnet version; it was left untouched")
    return data


def write_json(path: Path, data: Mapping[str, object]) -> None:
    ensure_home(path.parent)
    text = (json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    temp = _write_temp(path.parent, text)
    try:
        os.replace(temp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


def _write_temp(directory: Path, data: bytes) -> str:
    """A new 0600 file in ``directory`` holding ``data``, synced to disk; its path."""
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".lcnet")
    except OSError as exc:
        raise UserError(f"cannot write in {directory}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), PRIVATE_FILE_MODE)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise UserError(f"cannot write in {directory}: {exc.strerror}") from None
    return temp


def _fsync_dir(directory: Path) -> None:
    # Makes the rename or link itself durable; not possible on every platform.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ------------------------------------------------ what a networked match asks of this store


class KeyChanged(UserError):
    """A known name that presents another key: the match is refused (trust on first use)."""

    exit_code = ExitCode.KEY_CHANGED
    title = "A known name with a new key"

    def __init__(self, check: PeerCheck) -> None:
        self.check = check
        known = check.previous_fingerprint
        super().__init__(
            f"{check.name!r} is known here with the key {known}, but this opponent presents "
            f"{check.fingerprint}. {same_name_causes(check.name)} Nothing was played. "
            f"Check the fingerprint with {check.name} in person; if they really have a new key, "
            f"play again with --accept-new-key {check.fingerprint} "
            f"(or forget the old key: lcnet id --forget {check.name!r}); if it is someone "
            "else, one of you can take another name (lcnet id --name NAME)"
        )

    @property
    def refusal(self) -> str:
        """What the other side is told (in a ``busy`` frame): no warning addressed to it."""
        return (
            f"the key you present ({self.check.fingerprint}) is not the one known here for "
            f"{self.check.name!r} ({self.check.previous_fingerprint}); if you have a new key, "
            "your opponent must accept it (--accept-new-key)"
        )


GAMES_FILE: Final = "games-hosted"
"""Under LCNET_HOME: the ids of the games this user has hosted, one hex id a line."""


def game_ledger(home: Path | None = None) -> Callable[[bytes], bool]:
    """A host's memory of the games it has played, against replayed hellos.

    The game id is the hash of the joiner's hello, which the host cannot make
    fresh; a hello recorded in an old match and sent again would open a
    second match with the same id, and the host would sign a second welcome
    for it. The ledger answers whether a game id is new and records it.
    """
    path = (home or home_dir()) / GAMES_FILE

    def fresh(game_id: bytes) -> bool:
        key = game_id.hex()
        with contextlib.suppress(FileNotFoundError):
            if key in path.read_text(encoding="ascii").split():
                return False
        ensure_home(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
        try:
            os.write(fd, (key + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        return True

    return fresh


def name_caution(name: str, known: Iterable[str]) -> str | None:
    """Why a new peer's ``name`` may not be who it says, given the ``known`` names."""
    from lcnet.store import names

    reasons = []
    alike = names.lookalikes(name, known)
    if alike:
        reasons.append(f"it looks like {' / '.join(repr(n) for n in alike)}, known here")
    if names.mixes_scripts(name):
        reasons.append(f"it mixes scripts ({', '.join(sorted(names.scripts(name)))})")
    if not reasons:
        return None
    return f"the name {name!r} may not be who it says: {'; '.join(reasons)}"


def tofu_check(
    home: Path | None = None, *, accept_new_key: str | None = None
) -> Callable[[Seat, str, bytes], str | None]:
    """Trust on first use against the known-peers file; a changed key refuses the peer
    (:class:`KeyChanged`), unless it is ``accept_new_key`` (a fingerprint the player
    accepted explicitly), which then replaces the known key. A new name that looks
    like a known one, or mixes scripts, is played but returns a caution to show."""
    accepted = normalize_fingerprint(accept_new_key) if accept_new_key else None

    def check(seat: Seat, name: str, key: bytes) -> str | None:
        result = check_peer(name, key, home)
        if result.status is PeerStatus.NEW:
            # The file now holds this name too, which a look-alike is never of.
            return name_caution(name, known_peers(home))
        if result.status is not PeerStatus.CHANGED:
            return None
        if accepted is not None and accepted == result.fingerprint:
            trust_peer(name, key, home)
            return None
        raise KeyChanged(result)

    return check
