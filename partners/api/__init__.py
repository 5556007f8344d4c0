"""The partner REST API (``/api/v1/``): Django REST framework, described by drf-spectacular."""
