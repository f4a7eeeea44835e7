from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "accounts"
urlpatterns = [
    path("registro/", views.signup, name="signup"),
    path("registro/enviado/", views.signup_sent, name="signup_sent"),
    path("entrar/", views.LoginView.as_view(), name="login"),
    path("salir/", auth_views.LogoutView.as_view(), name="logout"),
    path("perfil/", views.profile, name="profile"),
    path("correo/", views.change_email, name="change_email"),
    path("correo/confirmar/", views.resend_confirmation, name="resend_confirmation"),
    path("correo/confirmar/<str:token>/", views.confirm_email, name="confirm_email"),
    path("correo/baja/<str:token>/", views.unsubscribe, name="unsubscribe"),
    # Password reset by email, and change while logged in.
    path("clave/olvidada/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "clave/olvidada/enviada/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "clave/nueva/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "clave/nueva/lista/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("clave/cambiar/", views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "clave/cambiada/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]
