from django.contrib import admin
from django_otp.plugins.otp_totp.models import TOTPDevice

# A device's secret is shown once, by manage.py staff_otp_device; the admin never lists or edits them.
admin.site.unregister(TOTPDevice)
