"""consolidate(..., until=...): the sequence of commands, the CLI's bytes, typed fields."""

from __future__ import annotations

import datetime as _dt

import pytest

import nodecast
from helpers import NOW, UNDERUTILIZED, cli_json, cli_path

UNTIL = "2025-03-06T12:00:00Z"


def test_until_adds_the_sequence_with_the_cli_bytes() -> None:
    d = nodecast.consolidate(*UNDERUTILIZED, now=NOW, until=UNTIL)
    assert d.to_json() == cli_json(cli_path(), "consolidate", *UNDERUTILIZED, "--now", NOW, "--until", UNTIL)
    assert d.sequence is not None and d.sequence.until == UNTIL
    first = d.sequence.steps[0]
    # Decided by this pass, carried out once Karpenter has validated it again 15 s later.
    assert first.command == d.command and first.decided_after_seconds == 0 and first.after_seconds == 15
    assert isinstance(d.sequence.price_per_hour_at_until, float)
    # Without until, no sequence.
    assert nodecast.consolidate(*UNDERUTILIZED, now=NOW).sequence is None


def test_until_takes_an_aware_datetime_and_refuses_a_naive_one() -> None:
    aware = _dt.datetime(2025, 3, 6, 12, tzinfo=_dt.timezone.utc)
    assert nodecast.consolidate(*UNDERUTILIZED, now=NOW, until=aware).sequence == nodecast.consolidate(*UNDERUTILIZED, now=NOW, until=UNTIL).sequence
    with pytest.raises(nodecast.InputError, match="until="):
        nodecast.consolidate(*UNDERUTILIZED, now=NOW, until=_dt.datetime(2025, 3, 6, 12))
    with pytest.raises(nodecast.InputError, match="not after now"):
        nodecast.consolidate(*UNDERUTILIZED, now=NOW, until=NOW)
