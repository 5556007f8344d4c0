from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class CasinoConfig(AppConfig):
    name = "casino"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from casino.sign_in.play_sessions import play_session_on_sign_in
        from casino.sign_in.two_factor import sign_in_failures_reset

        user_logged_in.connect(sign_in_failures_reset, dispatch_uid="casino.sign_in_failures_reset")
        user_logged_in.connect(play_session_on_sign_in, dispatch_uid="casino.play_session_on_sign_in")


class StaffAdminConfig(AdminConfig):
    """The admin with its two-factor sign-in; ``admin.site`` (and ``@admin.register``) is that site."""

    default_site = "casino.sign_in.two_factor.StaffAdminSite"
