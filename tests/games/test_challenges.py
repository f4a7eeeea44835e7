"""Open challenges and invitations by name: the services.

Runs on SQLite and on PostgreSQL (DATABASE_URL); the accept race, which needs
real row locks, is in test_challenges_concurrency.py.
"""

from datetime import timedelta

import pytest
from django.core.cache import cache

from games import mail, services
from games.engine import Format, MatchRules
from games.lib.errors import BadInput, Conflict, Forbidden, NotFound
from games.models import Challenge, FollowUp, Match, Room, Seat
from games.selectors import lobby
from games.services.challenges import MAX_OPEN_CHALLENGES
from tests.helpers import make_player, sent

MATCH_5 = MatchRules(format=Format.MATCH, length=5)


@pytest.fixture
def ana(db, clock, dice):
    return make_player("ana")


@pytest.fixture
def cris(db):
    return make_player("cris")


def test_a_posted_challenge_is_open_for_seven_days_in_the_lobby(ana, clock):
    challenge = services.challenge_post(author=ana, rules=MATCH_5)
    assert challenge.status == Challenge.Status.OPEN
    assert challenge.expires_at - challenge.created_at == timedelta(days=7)
    [line] = lobby.open_challenges()
    assert line["slug"] == challenge.slug
    assert (line["author"], line["format"], line["length"]) == ("ana", "match", 5)


def test_accepting_starts_the_match_at_once_with_the_author_at_seat_one(ana, beto, dice):
    challenge = services.challenge_post(author=ana, rules=MATCH_5)
    dice.push((3, 1))
    seat = services.challenge_accept(challenge=challenge, user=beto, language="en")
    room = seat.room
    assert room.status == Room.Status.PLAYING
    assert MatchRules.from_json(room.rules) == MATCH_5
    seats = {s.number: s for s in Seat.objects.filter(room=room)}
    assert (seats[1].user, seats[1].nickname, seats[1].language) == (ana, "ana", "es")
    assert (seats[2].user, seats[2].nickname, seats[2].language) == (beto, "beto", "en")
    match = Match.objects.get(room=room)
    assert match.turn_seat_id == seats[1].pk  # ana rolled 3 against 1: her turn
    challenge.refresh_from_db()
    assert (challenge.status, challenge.room, challenge.accepted_by) == ("accepted", room, beto)
    assert lobby.open_challenges() == []


def test_accepting_sends_the_usual_emails(ana, beto, dice, mailoutbox, clock):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    dice.push((1, 3))  # beto starts
    seat = services.challenge_accept(challenge=challenge, user=beto)
    owed = set(FollowUp.objects.values_list("task", flat=True))
    assert {"games.tasks.opponent_joined_email", "games.tasks.turn_email"} <= owed
    clock.tick(timedelta(minutes=5))  # off the board: mail is due
    assert mail.send_opponent_joined(room_id=seat.room_id) == 1
    match = Match.objects.get(room=seat.room)
    assert mail.send_your_turn(match_id=match.pk, version=match.version) == 1
    assert sent(mailoutbox) == {
        ("ana@example.com", "beto se sentó a tu mesa"): 1,
        ("beto@example.com", "Game 1 against ana begins: the single game"): 1,
    }


def test_you_cannot_accept_your_own_challenge(ana):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=challenge, user=ana)
    assert (refused.value.code, refused.value.status) == ("own_challenge", 409)
    assert Room.objects.count() == 0


def test_a_withdrawn_challenge_cannot_be_accepted(ana, beto):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    services.challenge_withdraw(challenge=challenge, user=ana)
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=challenge, user=beto)
    assert refused.value.code == "challenge_withdrawn"
    assert Room.objects.count() == 0


def test_only_the_author_withdraws(ana, beto):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    with pytest.raises(Forbidden) as refused:
        services.challenge_withdraw(challenge=challenge, user=beto)
    assert (refused.value.code, refused.value.status) == ("not_author", 403)
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.OPEN


def test_an_accepted_challenge_cannot_be_accepted_again(ana, beto, cris):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    services.challenge_accept(challenge=challenge, user=beto)
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=challenge, user=cris)
    assert refused.value.code == "challenge_taken"
    assert Room.objects.count() == 1


def test_a_challenge_past_seven_days_cannot_be_accepted_even_before_the_sweep(ana, beto, clock):
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    clock.tick(timedelta(days=7))
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=challenge, user=beto)
    assert refused.value.code == "challenge_expired"
    assert lobby.open_challenges() == []


def test_the_sweep_expires_old_challenges_once(ana, beto, clock):
    old = services.challenge_post(author=ana, rules=MatchRules())
    clock.tick(timedelta(days=3))
    young = services.challenge_post(author=ana, rules=MatchRules())
    clock.tick(timedelta(days=4))
    assert services.challenges_expire() == 1
    assert services.challenges_expire() == 0  # a second beat finds nothing
    old.refresh_from_db()
    young.refresh_from_db()
    assert (old.status, young.status) == ("expired", "open")
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=old, user=beto)
    assert refused.value.code == "challenge_expired"


def test_a_player_has_at_most_three_open_at_once(ana):
    assert MAX_OPEN_CHALLENGES == 3
    posted = [services.challenge_post(author=ana, rules=MatchRules()) for _ in range(3)]
    with pytest.raises(Conflict) as refused:
        services.challenge_post(author=ana, rules=MatchRules())
    assert refused.value.code == "too_many_challenges"
    assert Challenge.objects.count() == 3
    services.challenge_withdraw(challenge=posted[0], user=ana)
    services.challenge_post(author=ana, rules=MatchRules())  # room again


def test_an_expired_challenge_no_longer_counts_against_the_cap(ana, clock):
    for _ in range(3):
        services.challenge_post(author=ana, rules=MatchRules())
    clock.tick(timedelta(days=7))
    services.challenge_post(author=ana, rules=MatchRules())
    assert lobby.open_count(ana) == 1


def test_a_guest_cannot_post_or_accept(ana):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(Forbidden) as refused:
        services.challenge_post(author=AnonymousUser(), rules=MatchRules())
    assert refused.value.code == "login_required"
    challenge = services.challenge_post(author=ana, rules=MatchRules())
    with pytest.raises(Forbidden):
        services.challenge_accept(challenge=challenge, user=AnonymousUser())


def test_bad_rules_or_a_bad_range_write_nothing(ana):
    with pytest.raises(BadInput) as refused:
        services.challenge_post(author=ana, rules={"format": "chess"})
    assert refused.value.code == "bad_rules"
    for low, high in ((1700, 1500), (-1, 1600), (1500, 9000), ("mil", None), (True, None)):
        with pytest.raises(BadInput) as refused:
            services.challenge_post(author=ana, rules=MatchRules(), rating_min=low, rating_max=high)
        assert refused.value.code == "bad_rating_range"
    assert Challenge.objects.count() == 0


def test_the_rating_range_admits_a_newcomer_at_1500_only_when_it_covers_1500(ana, beto):
    assert lobby.rating_for(beto) == lobby.DEFAULT_RATING == 1500
    above = services.challenge_post(author=ana, rules=MatchRules(), rating_min=1600)
    around = services.challenge_post(
        author=ana, rules=MatchRules(), rating_min=1400, rating_max=1600
    )
    with pytest.raises(Forbidden) as refused:
        services.challenge_accept(challenge=above, user=beto)
    assert refused.value.code == "rating_out_of_range"
    lines = {line["slug"]: line for line in lobby.open_challenges(beto)}
    assert (lines[above.slug]["can_accept"], lines[around.slug]["can_accept"]) == (False, True)
    services.challenge_accept(challenge=around, user=beto)


def test_the_range_filter_reads_the_rating_through_one_function(ana, beto, monkeypatch):
    challenge = services.challenge_post(author=ana, rules=MatchRules(), rating_min=1600)
    monkeypatch.setattr(lobby, "rating_for", lambda user: 1650)
    assert lobby.open_challenges(beto)[0]["can_accept"] is True
    services.challenge_accept(challenge=challenge, user=beto)


# --- invitations by name --------------------------------------------------------------


def test_an_invitation_mails_the_invitee_once_in_their_language(ana, beto, mailoutbox):
    invitation = services.invitation_send(author=ana, invitee=beto, rules=MATCH_5)
    assert FollowUp.objects.filter(
        task="games.tasks.invitation_email", args=[invitation.pk]
    ).exists()
    assert mail.send_invitation(challenge_id=invitation.pk) == 1
    assert mail.send_invitation(challenge_id=invitation.pk) == 0  # a second run
    [email] = mailoutbox
    assert email.to == ["beto@example.com"]
    assert email.subject == "ana challenges you to a game"
    assert "5 points" in email.body and "/mis-partidas/" in email.body


def test_one_player_is_mailed_three_invitations_a_day_whoever_sends_them(
    ana, beto, cris, mailoutbox, caplog
):
    cache.clear()
    caplog.set_level("WARNING", logger="accounts.ratelimit")
    invitations = [
        services.invitation_send(author=author, invitee=beto, rules=MATCH_5)
        for author in (ana, cris, ana, cris, ana)
    ]
    first = mail.send_invitation(challenge_id=invitations[0].pk)
    # Runs again of a sent one (a re-drive, a second delivery) send and count nothing.
    again = [mail.send_invitation(challenge_id=invitations[0].pk) for _ in range(2)]
    sent = [mail.send_invitation(challenge_id=invitation.pk) for invitation in invitations[1:]]
    assert (first, again, sent) == (1, [0, 0], [1, 1, 0, 0])
    assert [email.to for email in mailoutbox] == [["beto@example.com"]] * 3
    assert sum("invitation to b***@example.com held back" in m for m in caplog.messages) == 2
    # The others still wait for beto in "Mis partidas".
    assert len(lobby.invitations_for(beto)["received"]) == 5


def test_an_invitation_is_not_in_the_lobby_but_in_both_players_lists(ana, beto):
    invitation = services.invitation_send_by_name(author=ana, username="beto", rules=MATCH_5)
    assert lobby.open_challenges(beto) == []
    assert [line["slug"] for line in lobby.invitations_for(beto)["received"]] == [invitation.slug]
    assert [line["slug"] for line in lobby.invitations_for(ana)["sent"]] == [invitation.slug]


def test_only_the_invitee_accepts_an_invitation(ana, beto, cris):
    invitation = services.invitation_send(author=ana, invitee=beto, rules=MatchRules())
    with pytest.raises(Forbidden) as refused:
        services.challenge_accept(challenge=invitation, user=cris)
    assert refused.value.code == "not_invitee"
    seat = services.challenge_accept(challenge=invitation, user=beto)
    assert seat.user == beto and seat.room.seats.get(number=1).user == ana


def test_a_declined_invitation_cannot_be_accepted(ana, beto):
    invitation = services.invitation_send(author=ana, invitee=beto, rules=MatchRules())
    with pytest.raises(Forbidden):
        services.invitation_decline(challenge=invitation, user=ana)  # only the invitee
    services.invitation_decline(challenge=invitation, user=beto)
    with pytest.raises(Conflict) as refused:
        services.challenge_accept(challenge=invitation, user=beto)
    assert refused.value.code == "challenge_declined"
    assert mail.send_invitation(challenge_id=invitation.pk) == 0


def test_nobody_invites_themselves_or_a_stranger(ana):
    with pytest.raises(BadInput) as refused:
        services.invitation_send(author=ana, invitee=ana, rules=MatchRules())
    assert refused.value.code == "invite_yourself"
    for name in ("nadie", "", None, "x" * 500):
        with pytest.raises(NotFound) as refused:
            services.invitation_send_by_name(author=ana, username=name, rules=MatchRules())
        assert refused.value.code == "no_such_player"
    assert Challenge.objects.count() == 0
