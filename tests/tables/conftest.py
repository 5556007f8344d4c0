"""What the admin's tests share: a pit boss signed in to the admin, and posting an action from a changelist."""

import pytest
from django.test import Client
from django.urls import reverse

from tables.models import AuditLog
from tables.roles import PIT_BOSS
from tests.factories import staff_client


@pytest.fixture
def boss(db) -> Client:
    """A new pit boss signed in to the admin (the user on ``boss.user``)."""
    return staff_client("floor-boss", PIT_BOSS)


def changelist(model) -> str:
    return reverse(f"admin:tables_{model._meta.model_name}_changelist")


def run_action(client: Client, model, action: str, objects, **form) -> object:
    """Post an action from the changelist; with ``form`` data, confirm it on the confirmation page."""
    data = {"action": action, "_selected_action": [obj.pk for obj in objects]}
    data.update({"confirmed": "yes", **form} if form else {"index": "0"})
    return client.post(changelist(model), data)


def audit_entry(action: str) -> AuditLog:
    return AuditLog.objects.get(action=action)
