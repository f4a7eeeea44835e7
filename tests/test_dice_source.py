"""The site's secure dice and seeds (games.services.dice): no database needed."""

from collections import Counter

from games.engine import DiceSource
from games.services.dice import SecretsDice, new_seed


def test_secrets_dice_show_every_face_and_only_faces():
    dice = SecretsDice()
    assert isinstance(dice, DiceSource)
    faces = Counter(face for _ in range(2000) for face in dice.roll())
    assert set(faces) == {1, 2, 3, 4, 5, 6}


def test_a_new_seed_is_32_fresh_secret_bytes():
    assert len(new_seed()) == 32 and new_seed() != new_seed()
