"""The engine's dice: seeded dice and the opening roll (secure dice: tests/test_dice_source.py)."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from games.engine import SeededDice, commitment
from games.engine.dice import opening_starter

SEED = bytes.fromhex("6d6573612d74657374")  # b"mesa-test"
ROOT = Path(__file__).resolve().parents[2]


def test_seeded_dice_are_reproducible_and_indexable():
    first = [SeededDice(SEED).roll() for _ in range(1)]
    dice = SeededDice(SEED)
    rolls = [dice.roll() for _ in range(50)]
    assert rolls[:1] == first
    assert [SeededDice(SEED).roll_at(n) for n in range(50)] == rolls
    resumed = SeededDice(SEED, start=20)
    assert [resumed.roll() for _ in range(30)] == rolls[20:]
    assert [SeededDice(b"another seed").roll() for _ in range(50)] != rolls


def test_seeded_dice_are_uniform_on_a_fixed_seed():
    dice = SeededDice(SEED)
    faces = Counter(face for _ in range(30_000) for face in dice.roll())
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    expected = sum(faces.values()) / 6
    chi_square = sum((n - expected) ** 2 / expected for n in faces.values())
    # 5 degrees of freedom: p = 0.001 at 20.52.
    assert chi_square < 20.52, faces
    pairs = Counter(SeededDice(SEED).roll_at(n) for n in range(36_00))
    assert len(pairs) == 36


def test_a_pair_is_derived_from_hmac_sha256_with_rejection_sampling():
    import hashlib
    import hmac

    digest = hmac.new(SEED, b"mesa-dice:7", hashlib.sha256).digest()
    faces = [byte % 6 + 1 for byte in digest if byte < 252][:2]
    assert SeededDice(SEED).roll_at(7) == tuple(faces)


def test_commitment_is_the_sha256_of_the_seed():
    assert commitment(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_the_verify_command_prints_the_commitment_and_the_rolls():
    result = subprocess.run(
        [sys.executable, "-m", "games.engine.dice", SEED.hex(), "3"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    dice = SeededDice(SEED)
    expected = [f"commitment {commitment(SEED)}"]
    expected += [f"{n} {a}-{b}" for n, (a, b) in enumerate(dice.roll() for _ in range(3))]
    assert result.stdout.splitlines() == expected


def test_the_verify_command_rejects_a_bad_seed():
    result = subprocess.run(
        [sys.executable, "-m", "games.engine.dice", "not-hex"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 2 and "hexadecimal" in result.stderr


def test_a_tied_opening_roll_is_rolled_again_and_the_higher_die_starts():
    assert opening_starter((3, 3)) is None
    assert opening_starter((6, 2)) == 0
    assert opening_starter((1, 4)) == 1


def test_seeded_dice_reject_bad_arguments():
    with pytest.raises(ValueError):
        SeededDice(b"")
    with pytest.raises(ValueError):
        SeededDice(SEED).roll_at(-1)


def test_the_browsers_dice_vector_is_what_the_engine_derives():
    # static/js/dice.js is tested against this file (tests/js/dice.test.mjs).
    path = Path(__file__).resolve().parents[1] / "js" / "dice_vector.json"
    vector = json.loads(path.read_text())
    seed = bytes.fromhex(vector["seed"])
    assert vector["commitment"] == commitment(seed)
    dice = SeededDice(seed)
    assert vector["rolls"] == [list(dice.roll_at(n)) for n in range(len(vector["rolls"]))]
    assert len(vector["rolls"]) >= 34  # pairs 15 and 33 skip a byte of 252 or more
