"""URLs of the site, grouped per resource: pages, then the JSON API.

Room slugs are random and public (the invitation link); seat tokens only ever
appear in the private seat link, which redirects to the clean room URL.
"""

from django.urls import path, register_converter

from games.models import ROOM_SLUG_PATTERN
from games.web import api, archive, lobby, players, push, review, tournaments, views


class RoomSlugConverter:
    """A path segment that can be a room's slug; any other segment matches no URL (404)."""

    regex = ROOM_SLUG_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(RoomSlugConverter, "room")

app_name = "games"

pages = [
    path("", views.home, name="home"),
    path("manifest.webmanifest", push.manifest, name="manifest"),
    path("sw.js", push.service_worker, name="service_worker"),
    path("sin-conexion/", push.offline, name="offline"),
    path("reglas/", views.rules, name="rules"),
    path("mis-partidas/", views.my_rooms, name="my_rooms"),
]

rooms = [
    path("mesa/<room:slug>/", views.room, name="room"),
    path("mesa/<room:slug>/sentarse/", views.join, name="join"),
    path("mesa/<room:slug>/mirar/", views.watch, name="watch"),
    path("mesa/<room:slug>/asiento/<str:token>/", views.seat_link, name="seat_link"),
    path("mesa/<room:slug>/mi-asiento/", views.my_seat, name="my_seat"),
    path("mesa/<room:slug>/jugar/<str:action>/", views.act, name="act"),
    path("mesa/<room:slug>/encuentro.mat", archive.match_file, name="match_file"),
    path(
        "mesa/<room:slug>/analisis/<int:match_number>/<int:game_number>/",
        review.review_page,
        name="review",
    ),
    path(
        "mesa/<room:slug>/analisis/<int:match_number>/<int:game_number>/pedir/",
        review.review_request,
        name="review_request",
    ),
    # The archive: every match the room played, kept after each rematch.
    path("mesa/<room:slug>/encuentros/", archive.room_archive, name="room_archive"),
    path("mesa/<room:slug>/encuentros/<int:number>/", archive.past_match, name="past_match"),
    path(
        "mesa/<room:slug>/encuentro-<int:number>.mat",
        archive.match_file,
        name="match_file_number",
    ),
]

# Players: public profiles by username, the leaderboard, one's vacation.
people = [
    path("jugador/<str:username>/", players.profile_page, name="player"),
    path("clasificacion/", players.leaderboard_page, name="leaderboard"),
    path("vacaciones/", players.vacation_page, name="vacation"),
]

# Finding an opponent (the lobby, invitations by name) and the words between players.
lobby_pages = [
    path("torneos/", tournaments.tournaments_page, name="tournaments"),
    path("torneos/nuevo/", tournaments.tournament_new, name="tournament_new"),
    path("torneos/<room:slug>/", tournaments.tournament_page, name="tournament"),
    path("torneos/<room:slug>/apuntarse/", tournaments.tournament_join, name="tournament_join"),
    path("torneos/<room:slug>/borrarse/", tournaments.tournament_leave, name="tournament_leave"),
    path(
        "torneos/<room:slug>/retirarse/",
        tournaments.tournament_withdraw,
        name="tournament_withdraw",
    ),
    path("desafios/", lobby.lobby_page, name="lobby"),
    path("desafios/<str:slug>/aceptar/", lobby.challenge_accept, name="challenge_accept"),
    path("desafios/<str:slug>/retirar/", lobby.challenge_withdraw, name="challenge_withdraw"),
    path("desafios/<str:slug>/rechazar/", lobby.invitation_decline, name="invitation_decline"),
    path("jugadores/<str:username>/desafiar/", lobby.invite, name="invite"),
    path("mesa/<room:slug>/mensaje/", lobby.message_post, name="message"),
    path("mesa/<room:slug>/silenciar/", lobby.mute, name="mute"),
]

lobby_api = [
    path("api/challenges", lobby.api_challenges, name="api_challenges"),
    path("api/challenges/<str:slug>", lobby.api_challenge, name="api_challenge"),
    path(
        "api/challenges/<str:slug>/accept",
        lobby.api_challenge_accept,
        name="api_challenge_accept",
    ),
    path(
        "api/challenges/<str:slug>/withdraw",
        lobby.api_challenge_withdraw,
        name="api_challenge_withdraw",
    ),
    path(
        "api/challenges/<str:slug>/decline",
        lobby.api_invitation_decline,
        name="api_invitation_decline",
    ),
    path("api/invitations", lobby.api_invitations, name="api_invitations"),
    path("api/rooms/<room:slug>/messages", lobby.api_message, name="api_message"),
    path("api/rooms/<room:slug>/mute", lobby.api_mute, name="api_mute"),
]

json_api = [
    path("api/rooms", api.room_create, name="api_create"),
    path("api/push/subscribe", push.subscribe, name="api_push_subscribe"),
    path("api/push/unsubscribe", push.unsubscribe, name="api_push_unsubscribe"),
    path("api/rooms/<room:slug>/", api.room_state, name="api_state"),
    path("api/rooms/<room:slug>/join", api.room_join, name="api_join"),
    path("api/rooms/<room:slug>/steps", api.room_steps, name="api_steps"),
    path("api/rooms/<room:slug>/actions/<str:action>", api.room_action, name="api_action"),
    path("api/players/<str:username>", players.profile_json, name="api_player"),
    path("api/leaderboard", players.leaderboard_json, name="api_leaderboard"),
    path("api/vacation", players.vacation_json, name="api_vacation"),
    path("api/<path:rest>", api.not_found, name="api_not_found"),
]

urlpatterns = pages + rooms + people + lobby_pages + lobby_api + json_api
