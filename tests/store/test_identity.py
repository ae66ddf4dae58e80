"""Specification tests for lcnet.store.identity and ``lcnet id``.

Every test runs with its own ``$LCNET_HOME`` (see conftest.py), so the real
home directory is never touched.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from lcnet.cli import main
from lcnet.errors import UserError
from lcnet.store import identity
from lcnet.store.identity import PeerStatus

ZERO_SEED_PUBLIC_KEY = bytes.fromhex(
    "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
)
FINGERPRINT = re.compile(r"^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home that does not exist yet, as on a first run."""
    return tmp_path / "fresh" / ".lcnet"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def other_key() -> bytes:
    return bytes(SigningKey.generate().verify_key)


# --- the user's own identity -------------------------------------------------


def test_lcnet_home_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCNET_HOME", "/somewhere/else")
    assert identity.home_dir() == Path("/somewhere/else")


def test_lcnet_home_defaults_to_dot_lcnet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LCNET_HOME")
    assert identity.home_dir() == Path("~/.lcnet").expanduser()


def test_first_use_creates_a_private_key_in_a_private_directory(home: Path) -> None:
    assert not identity.identity_exists(home)
    outside = mode(home.parent.parent)
    me = identity.load_identity(home)
    assert mode(home) == 0o700
    assert mode(home.parent) == 0o700  # a parent lcnet had to create is private too
    assert mode(home.parent.parent) == outside  # one that existed is left alone
    assert mode(home / identity.KEY_FILE) == 0o600
    assert len(me.public_key) == 32
    assert identity.identity_exists(home)


def test_files_written_are_private_and_no_temporary_file_is_left(home: Path) -> None:
    identity.set_name("Ada", home)
    identity.check_peer("bob", other_key(), home)
    assert sorted(p.name for p in home.iterdir()) == sorted(
        [
            identity.KEY_FILE,
            identity.PROFILE_FILE,
            identity.KNOWN_PEERS_FILE,
            identity.PEERS_LOCK_FILE,
        ]
    )
    assert all(mode(p) == 0o600 for p in home.iterdir())


def test_a_file_where_the_home_should_be_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / ".lcnet"
    blocker.write_text("not a directory")
    with pytest.raises(UserError, match="in the way"):
        identity.load_identity(blocker)
    assert blocker.read_text() == "not a directory"


def test_the_identity_is_the_same_on_every_load(home: Path) -> None:
    first = identity.load_identity(home)
    again = identity.load_identity(home)
    assert first.public_key == again.public_key
    assert first.name == again.name


def test_loading_without_creating_needs_an_identity(home: Path) -> None:
    with pytest.raises(UserError, match="lcnet id"):
        identity.load_identity(home, create=False)


def test_the_default_name_is_usable(home: Path) -> None:
    assert identity.validate_name(identity.load_identity(home).name)


def test_a_name_can_be_set_and_is_kept(home: Path) -> None:
    key = identity.load_identity(home).public_key
    assert identity.set_name("  Ada Lovelace ", home).name == "Ada Lovelace"
    again = identity.load_identity(home)
    assert again.name == "Ada Lovelace"
    assert again.public_key == key


@pytest.mark.parametrize("name", ["", "   ", "x" * 33, "bad\nname", "tab\there"])
def test_unusable_names_are_refused(name: str, home: Path) -> None:
    with pytest.raises(UserError):
        identity.set_name(name, home)


def test_a_name_may_be_any_printable_text() -> None:
    assert identity.validate_name("Zoë 李") == "Zoë 李"


def test_a_signature_verifies_with_the_public_key(home: Path) -> None:
    me = identity.load_identity(home)
    signature = me.sign(b"move")
    assert identity.verify_signature(me.public_key, b"move", signature)
    assert not identity.verify_signature(me.public_key, b"other move", signature)
    assert not identity.verify_signature(b"bad key", b"move", signature)


def test_the_secret_key_never_shows_in_a_repr(home: Path) -> None:
    me = identity.load_identity(home)
    text = repr(me)
    assert me.fingerprint in text
    assert bytes(me.signing_key).hex() not in text


# --- the fingerprint ---------------------------------------------------------


def test_the_fingerprint_is_four_groups_of_four_hex_digits() -> None:
    assert FINGERPRINT.match(identity.fingerprint(other_key()))


def test_fingerprint_vector() -> None:
    assert identity.fingerprint(ZERO_SEED_PUBLIC_KEY) == "0A41-9405-3E94-4A30"


def test_different_keys_have_different_fingerprints() -> None:
    assert identity.fingerprint(other_key()) != identity.fingerprint(other_key())


# --- an unsafe or damaged key file is an error, never replaced ---------------


@pytest.mark.parametrize("file_mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_file_others_can_read_is_refused(file_mode: int, home: Path) -> None:
    identity.load_identity(home)
    key_file = home / identity.KEY_FILE
    before = key_file.read_bytes()
    os.chmod(key_file, file_mode)
    with pytest.raises(UserError, match="chmod 600"):
        identity.load_identity(home)
    assert key_file.read_bytes() == before


CORRUPT_KEY_FILES = {
    "empty": b"",
    "garbage": b"\x00\xff\x13 not a key",
    "no header": b"00" * 32 + b"\n",
    "short key": f"{identity.KEY_FILE_HEADER}\n{'ab' * 31}\n".encode(),
    "not hex": f"{identity.KEY_FILE_HEADER}\n{'zz' * 32}\n".encode(),
    "extra line": f"{identity.KEY_FILE_HEADER}\n{'ab' * 32}\nmore\n".encode(),
    "huge": b"x" * (identity.MAX_KEY_FILE_SIZE + 10),
}


@pytest.mark.parametrize("case", list(CORRUPT_KEY_FILES))
def test_a_corrupt_key_file_is_an_error_and_is_left_alone(case: str, home: Path) -> None:
    home.mkdir(parents=True)
    key_file = home / identity.KEY_FILE
    key_file.write_bytes(CORRUPT_KEY_FILES[case])
    os.chmod(key_file, 0o600)
    with pytest.raises(UserError, match="corrupt"):
        identity.load_identity(home)
    with pytest.raises(UserError):
        identity.set_name("Ada", home)
    assert key_file.read_bytes() == CORRUPT_KEY_FILES[case]


def test_a_key_file_written_by_hand_is_accepted(home: Path) -> None:
    home.mkdir(parents=True)
    key_file = home / identity.KEY_FILE
    key_file.write_text(f"{identity.KEY_FILE_HEADER}\n{'00' * 32}\n")
    os.chmod(key_file, 0o600)
    assert identity.load_identity(home).public_key == ZERO_SEED_PUBLIC_KEY


def test_a_key_path_that_is_a_directory_is_an_error(home: Path) -> None:
    (home / identity.KEY_FILE).mkdir(parents=True)
    with pytest.raises(UserError):
        identity.load_identity(home)


def test_a_corrupt_name_file_is_an_error_that_set_name_repairs(home: Path) -> None:
    identity.load_identity(home)
    (home / identity.PROFILE_FILE).write_text("{not json")
    with pytest.raises(UserError, match="corrupt"):
        identity.load_identity(home)
    assert identity.set_name("Ada", home).name == "Ada"
    assert identity.load_identity(home).name == "Ada"


# --- known peers, trust on first use -----------------------------------------


def test_a_peer_seen_for_the_first_time_is_new_and_remembered(home: Path) -> None:
    key = other_key()
    first = identity.check_peer("bob", key, home)
    assert first.status is PeerStatus.NEW
    assert first.warning is None
    assert identity.known_peers(home) == {"bob": key}
    assert identity.check_peer("bob", key, home).status is PeerStatus.KNOWN


def test_a_known_name_with_another_key_is_a_loud_warning(home: Path) -> None:
    old, new = other_key(), other_key()
    identity.check_peer("bob", old, home)
    changed = identity.check_peer("bob", new, home)
    assert changed.status is PeerStatus.CHANGED
    assert changed.fingerprint == identity.fingerprint(new)
    assert changed.previous_fingerprint == identity.fingerprint(old)
    assert changed.warning is not None
    assert "WARNING" in changed.warning
    assert identity.fingerprint(old) in changed.warning
    assert identity.fingerprint(new) in changed.warning


def test_a_changed_key_does_not_replace_the_known_one(home: Path) -> None:
    old = other_key()
    identity.check_peer("bob", old, home)
    identity.check_peer("bob", other_key(), home)
    assert identity.known_peers(home)["bob"] == old


def test_a_forgotten_peer_is_new_again(home: Path) -> None:
    identity.check_peer("bob", other_key(), home)
    assert identity.forget_peer("bob", home)
    assert not identity.forget_peer("bob", home)
    assert identity.check_peer("bob", other_key(), home).status is PeerStatus.NEW


def test_checking_without_remembering_writes_nothing(home: Path) -> None:
    assert identity.check_peer("bob", other_key(), home, remember=False).status is PeerStatus.NEW
    assert identity.known_peers(home) == {}


def test_peers_are_told_apart_by_name(home: Path) -> None:
    identity.check_peer("bob", other_key(), home)
    identity.check_peer("carol", other_key(), home)
    assert sorted(identity.known_peers(home)) == ["bob", "carol"]


def _remember_many(home: str, prefix: str, count: int) -> None:
    for i in range(count):
        identity.check_peer(f"{prefix}{i}", bytes([i + 1]) * 32, Path(home))


@pytest.mark.slow
def test_processes_meeting_peers_at_once_keep_every_peer(home: Path) -> None:
    # Each check is a read-change-write of one file; without the lock, two
    # processes writing at once would each drop the other's new peer.
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_remember_many, args=(str(home), prefix, 30))
        for prefix in ("a", "b", "c", "d")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    peers = identity.known_peers(home)
    assert sorted(peers) == sorted(f"{p}{i}" for p in "abcd" for i in range(30))


@pytest.mark.parametrize(
    "content",
    ["[]", "{not json", '{"version": 1, "peers": {"bob": "abcd"}}', '{"version": 9}'],
    ids=["not an object", "not json", "short key", "other version"],
)
def test_a_corrupt_known_peers_file_is_an_error_and_left_alone(content: str, home: Path) -> None:
    home.mkdir(parents=True)
    peers_file = home / identity.KNOWN_PEERS_FILE
    peers_file.write_text(content)
    with pytest.raises(UserError):
        identity.check_peer("bob", other_key(), home)
    assert peers_file.read_text() == content


# --- the command -------------------------------------------------------------


def test_lcnet_id_prints_name_key_and_fingerprint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["id"]) == 0
    out, err = capsys.readouterr()
    me = identity.load_identity()
    assert f"name:        {me.name}" in out
    assert me.public_key.hex() in out
    assert me.fingerprint in out
    assert "created a new identity" in err
    assert main(["id"]) == 0
    assert "created" not in capsys.readouterr().err


def test_lcnet_id_name_sets_the_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["id", "--name", "Ada"]) == 0
    assert "name:        Ada" in capsys.readouterr().out
    assert identity.load_identity().name == "Ada"


def test_lcnet_id_reports_an_unsafe_key_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    identity.load_identity()
    os.chmod(identity.home_dir() / identity.KEY_FILE, 0o644)
    assert main(["id"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("lcnet id: the key file")
    assert "Traceback" not in err
    assert out == ""


def test_lcnet_id_refuses_a_bad_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["id", "--name", ""]) == 2  # a usage error (issue 57, point 3)
    assert "name" in capsys.readouterr().err


def test_lcnet_id_lists_and_forgets_peers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["id", "--peers"]) == 0
    assert "no known peers" in capsys.readouterr().out
    key = other_key()
    identity.check_peer("bob", key)
    assert main(["id", "--peers"]) == 0
    assert f"bob  {identity.fingerprint(key)}" in capsys.readouterr().out
    assert main(["id", "--forget", "bob"]) == 0
    assert main(["id", "--forget", "bob"]) == 2  # a usage error (issue 57, point 3)
    assert "--forget: no known peer" in capsys.readouterr().err


def test_lcnet_id_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["id", "--help"])
    assert done.value.code == 0
    assert "fingerprint" in capsys.readouterr().out


def test_two_new_identities_of_one_login_get_two_names(tmp_path: Path) -> None:
    # Issue 44, point 6: two people both logged in as `pi` must not share a name.
    first = identity.load_identity(tmp_path / "a")
    second = identity.load_identity(tmp_path / "b")
    assert first.name != second.name
    for me in (first, second):
        assert me.name.endswith("-" + me.fingerprint[:4])
        assert identity.validate_name(me.name) == me.name
        assert me.name == identity.load_identity(tmp_path / ("a" if me is first else "b")).name


def test_a_long_login_name_still_leaves_room_for_the_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identity.getpass, "getuser", lambda: "x" * 40)
    me = identity.load_identity(tmp_path)
    assert len(me.name) == identity.MAX_NAME_LENGTH and me.name.endswith(me.fingerprint[:4])
    monkeypatch.setattr(identity.getpass, "getuser", lambda: "bad\tlogin")
    other = identity.load_identity(tmp_path / "2")
    assert other.name == f"{identity.DEFAULT_NAME}-{other.fingerprint[:4]}"


def test_a_person_names_themself_on_first_use_and_is_not_asked_again(tmp_path: Path) -> None:
    from lcnet.cli._netargs import name_on_first_use

    asked: list[str] = []

    def answering(*answers: str) -> Callable[[str], str]:
        queue = list(answers)

        def ask(prompt: str) -> str:
            asked.append(prompt)
            return queue.pop(0)

        return ask

    home = tmp_path / "ada"
    name_on_first_use(answering(), interactive=False, home=home)
    assert asked == [] and not identity.identity_exists(home)  # no terminal: no question
    name_on_first_use(answering(""), interactive=True, home=home)
    suggested = identity.load_identity(home).name  # Enter keeps the suggestion
    assert asked == [f"Your name, as opponents will see it (Enter: {suggested}): "]
    name_on_first_use(answering(), interactive=True, home=home)
    assert len(asked) == 1, "an identity that exists is not asked again"

    other = tmp_path / "bob"
    name_on_first_use(answering("bad\tname", "  Bob  "), interactive=True, home=other)
    assert identity.load_identity(other).name == "Bob" and len(asked) == 3
