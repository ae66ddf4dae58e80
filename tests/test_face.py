"""``import lcnet``: the package's face (docs/DESIGN.md, "The face").

Each public name is the very object its wing defines, imported only when
first used: importing the package loads no wing at all.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import lcnet

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"


@pytest.mark.slow
def test_importing_the_package_loads_no_wing() -> None:
    script = "import json, sys, lcnet; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    loaded = [name for name in json.loads(done.stdout) if name.startswith("lcnet.")]
    assert loaded == []


@pytest.mark.parametrize("name", sorted(set(lcnet.__all__) - {"__version__"}))
def test_each_public_name_is_its_wing_s_own_object(name: str) -> None:
    module, attribute = lcnet._FACE[name]
    assert module.split(".")[1] in {"game", "store", "audit", "review", "protocol", "errors"}
    assert getattr(lcnet, name) is getattr(importlib.import_module(module), attribute)
    assert name in dir(lcnet)


def test_all_lists_the_face() -> None:
    assert sorted(lcnet.__all__) == sorted(["__version__", *lcnet._FACE])


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NetPeer'"):
        _ = lcnet.NetPeer


@pytest.mark.slow
def test_the_face_audits_and_steps_through_a_sample_as_its_docstring_says() -> None:
    verdict = lcnet.audit_file(SAMPLE)
    assert verdict.kind is lcnet.VerdictKind.VALID
    record = lcnet.load_record(lcnet.read_replay(SAMPLE))
    assert isinstance(record, lcnet.MatchRecord) and record.verdict.kind is verdict.kind
    # The last position holds the match's last round, scored as the verdict says.
    last = record.positions[-1]
    assert isinstance(last, lcnet.Position) and isinstance(last.table, lcnet.Round)
    assert last.round == record.rounds == len(verdict.round_scores)
    assert list(record.round_scores[-1]) == verdict.round_scores[-1]
