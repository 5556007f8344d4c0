"""The admin site's registrations that compose the apps: the floor's admins (``casino.admin.floor``,
``casino.admin.coups``, whose actions call the coup lifecycle, ``casino.admin.pits``), and the two-factor devices
kept off the admin."""

from django.contrib import admin
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.admin import coups, floor, pits  # noqa: F401  (importing them registers the floor's admins)

# A device's secret is shown once, by manage.py staff_otp_device; the admin never lists or edits them.
admin.site.unregister(TOTPDevice)
