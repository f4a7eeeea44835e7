"""URLs of the site, grouped per resource: pages, then the JSON API.

Room slugs are random and public (the invitation link); seat tokens only ever
appear in the private seat link, which redirects to the clean room URL.
"""

from django.urls import path

from games import api, views

app_name = "games"

pages = [
    path("", views.home, name="home"),
    path("reglas/", views.rules, name="rules"),
    path("mis-partidas/", views.my_rooms, name="my_rooms"),
]

rooms = [
    path("mesa/<str:slug>/", views.room, name="room"),
    path("mesa/<str:slug>/sentarse/", views.join, name="join"),
    path("mesa/<str:slug>/asiento/<str:token>/", views.seat_link, name="seat_link"),
    path("mesa/<str:slug>/jugar/<str:action>/", views.act, name="act"),
    path("mesa/<str:slug>/encuentro.mat", views.match_file, name="match_file"),
    # The archive: every match the room played, kept after each rematch.
    path("mesa/<str:slug>/encuentros/", views.room_archive, name="room_archive"),
    path("mesa/<str:slug>/encuentros/<int:number>/", views.past_match, name="past_match"),
    path("mesa/<str:slug>/encuentro-<int:number>.mat", views.match_file, name="match_file_number"),
]

json_api = [
    path("api/rooms", api.room_create, name="api_create"),
    path("api/rooms/<str:slug>/", api.room_state, name="api_state"),
    path("api/rooms/<str:slug>/join", api.room_join, name="api_join"),
    path("api/rooms/<str:slug>/steps", api.room_steps, name="api_steps"),
    path("api/rooms/<str:slug>/actions/<str:action>", api.room_action, name="api_action"),
    path("api/<path:rest>", api.not_found, name="api_not_found"),
]

urlpatterns = pages + rooms + json_api
