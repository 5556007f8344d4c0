"""The admin site's registrations that compose the apps: the floor's admins (``casino.floor_admin``,
``casino.coup_admin``, whose actions call the coup lifecycle, ``casino.pit_admin``), and the two-factor devices
kept off the admin."""

from django.contrib import admin
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino import coup_admin, floor_admin, pit_admin  # noqa: F401  (importing them registers the floor's admins)

# A device's secret is shown once, by manage.py staff_otp_device; the admin never lists or edits them.
admin.site.unregister(TOTPDevice)
