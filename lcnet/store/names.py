"""Names that came from the network: look-alikes and mixed scripts.

A name in an announcement or a hello is whatever its sender typed; someone
on the LAN can call their game "Alicе" with a Cyrillic "е" and be taken for
Alice. Two checks from Unicode's security mechanisms (UTS #39) flag such a
name; the data are Unicode's own confusables and scripts tables, as the
``confusable_homoglyphs`` package ships them:

* :func:`skeleton` maps every character to the prototype it can be confused
  with (UTS #39 §4), so two names that look alike have the same skeleton;
  :func:`lookalikes` compares a name with the names this player knows;
* :func:`mixes_scripts` says whether a name mixes writing systems outside
  the combinations people really write (UTS #39 §5.2, "highly restrictive":
  Latin with Han and Japanese kana, with Han and Bopomofo, or with Han and
  Hangul).

Neither check refuses anything: a flagged name is shown as such, and is
never picked by name without the player confirming it.

A third concerns the name a game is announced under on the LAN (DNS-SD's
service instance name): :func:`instance_label` is the one an lcnet host
gives itself, its player's name and the start of its key's fingerprint, and
:func:`forgery` says why an announcement's instance name is not the one its
own TXT record gives, if it is not (PROTOCOL.md §6.8).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from lcnet.textsafe import shown

_NEUTRAL: Final = frozenset({"COMMON", "INHERITED", "UNKNOWN"})
"""Script aliases that belong to every script (digits, punctuation, marks)."""

_ALLOWED_MIXES: Final = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
"""Scripts that may be written together (UTS #39 §5.2, highly restrictive)."""


@functools.cache
def _data() -> tuple[Mapping[str, Sequence[Mapping[str, str]]], Any]:
    """The confusables table (character → its homoglyphs) and the script lookup."""
    from confusable_homoglyphs import categories, confusables

    return confusables.confusables_data, categories


@functools.cache
def _prototype(char: str) -> str:
    """What ``char`` is mapped to in a skeleton (itself if it is a prototype).

    The table lists every pair of UTS #39's confusables both ways: a
    character that is a source maps to its one prototype, and a prototype
    lists all its sources. A prototype is never a source, so a character with
    more than one entry, or whose one entry is a sequence or lists others
    too, is the prototype; a pair of two single characters that only list
    each other is mapped to the smaller, so both get one skeleton.
    """
    table, _ = _data()
    entries = table.get(char)
    if not entries or len(entries) != 1:
        return char
    other = entries[0]["c"]
    if len(other) != 1:
        return other  # a source whose prototype is a sequence ("m" → "rn")
    back = table.get(other, ())
    if len(back) > 1:
        return other  # ``other`` is a prototype with several sources
    return min(char, other)


def skeleton(name: str) -> str:
    """The UTS #39 skeleton of ``name``: equal for names that look alike.

    The name is first brought to NFKC, as identifiers are (UTS #31), so that
    compatibility forms the confusables table leaves out (fullwidth "ｂ")
    meet their plain letters.
    """
    plain = unicodedata.normalize("NFKC", name)
    mapped = "".join(_prototype(c) for c in unicodedata.normalize("NFD", plain))
    return unicodedata.normalize("NFD", mapped)


def look_alike(first: str, second: str) -> bool:
    """Whether two names look alike, as written or in one case ("AIice", "alice")."""
    return skeleton(first) == skeleton(second) or skeleton(first.casefold()) == skeleton(
        second.casefold()
    )


def lookalikes(name: str, known: Iterable[str]) -> list[str]:
    """The names in ``known`` that ``name`` looks like without being one of them."""
    folded = name.casefold()
    return sorted({o for o in known if o.casefold() != folded and look_alike(name, o)})


def scripts(name: str) -> frozenset[str]:
    """The writing systems ``name`` uses (digits, punctuation and marks not counted)."""
    _, categories = _data()
    return frozenset(categories.unique_aliases(name)) - _NEUTRAL


def mixes_scripts(name: str) -> bool:
    """Whether ``name`` mixes scripts that are not written together."""
    used = scripts(name)
    return len(used) > 1 and not any(used <= allowed for allowed in _ALLOWED_MIXES)


# ------------------------------------------------------------ instance names

MAX_LABEL_BYTES: Final = 63
"""A DNS label, and so a service instance name, is at most 63 bytes."""

SHOWN_INSTANCE_CHARS: Final = 70
"""How much of a stranger's instance name a warning quotes (a label is 63 bytes)."""


def instance_label(name: str, fingerprint: str) -> str:
    """A readable service instance name, at most one DNS label long."""
    return _instance_head(name, fingerprint) + _instance_tail(fingerprint)


def _instance_tail(fingerprint: str) -> str:
    return f" ({fingerprint[:9]})"


def _instance_head(name: str, fingerprint: str) -> str:
    room = MAX_LABEL_BYTES - len(_instance_tail(fingerprint).encode())
    return name.encode()[:room].decode("utf-8", errors="ignore").replace(".", " ")


_LABEL_TAIL: Final = re.compile(r" \(([0-9A-Fa-f]{4}-[0-9A-Fa-f]{4})\)(?:-[1-9][0-9]{0,5})?\Z")
"""The end of an lcnet instance name: the fingerprint's first two groups, and
the ``-2``, ``-3``… that a name clash on the network makes a host add."""


def forgery(instance: str, name: str, fingerprint: str) -> str | None:
    """Why ``instance`` is not the instance name an lcnet host whose TXT record
    gives ``name`` and ``fingerprint`` announces (:func:`instance_label`, perhaps
    renamed after a clash), or ``None`` if it is."""
    quoted = f"'{shown(instance, limit=SHOWN_INSTANCE_CHARS)}'"
    found = _LABEL_TAIL.search(instance)
    if found is None:
        return f"its service name {quoted} carries no key fingerprint, as every lcnet host's does"
    carried = found.group(1).upper()
    if carried != fingerprint[:9]:
        return (
            f"its service name {quoted} carries the fingerprint {carried}, but its key is "
            f"{fingerprint}: it copies another game's name"
        )
    # DNS names are compared without case (a search groups answers so too): a
    # name in other capitals is the same name, whoever sent it.
    if instance[: found.start()].lower() != _instance_head(name, fingerprint).lower():
        return f"its service name {quoted} is not that of {name!r}, the player it gives"
    return None


def forged_warning(reason: str) -> str:
    """The warning a forged announcement carries on every screen."""
    return f"forged announcement: {reason}"
