from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class CasinoConfig(AppConfig):
    name = "casino"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import post_delete, post_save

        from casino.sign_in.play_sessions import play_session_on_sign_in
        from casino.sign_in.session_users import user_changed
        from casino.sign_in.two_factor import sign_in_failures_reset

        user_logged_in.connect(sign_in_failures_reset, dispatch_uid="casino.sign_in_failures_reset")
        user_logged_in.connect(play_session_on_sign_in, dispatch_uid="casino.play_session_on_sign_in")
        for signal in (post_save, post_delete):
            signal.connect(user_changed, sender=get_user_model(), dispatch_uid=f"casino.user_changed.{signal}")


class StaffAdminConfig(AdminConfig):
    """The admin with its two-factor sign-in; ``admin.site`` (and ``@admin.register``) is that site."""

    default_site = "casino.sign_in.two_factor.StaffAdminSite"
