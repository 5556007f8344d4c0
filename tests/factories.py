"""factory_boy factories for the floor and the players, and ``coup_deal_and_resolve``, which deals a coup given
cards and records its result."""

from __future__ import annotations

import time
from decimal import Decimal

import factory
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.test import Client
from django.utils import timezone
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from baccarat.cards import parse_cards
from baccarat.coup import CoupDeal
from casino.sign_in.two_factor import staff_device
from tables.models import BetLimit, Coup, DealtCard, LimitSet, Shoe, Table
from tables.roles import roles_ensure
from tables.selectors import table_coup_rules
from tables.shoes import shoe_prepare, shoe_start
from tables.shuffles import ShuffleRecord, shoe_cut

# bet type: (minimum, maximum, table maximum)
TABLE_LIMITS = {
    "player": ("1.00", "1000.00", None),
    "banker": ("1.00", "1000.00", None),
    "tie": ("1.00", "100.00", "500.00"),
    "player_pair": ("1.00", "50.00", "250.00"),
    "banker_pair": ("1.00", "50.00", "250.00"),
}


# A physical shoe's shuffle checked and its cut, as the dealer console posts them (seed 000 §2.1); a sealed
# preliminary shuffle adds SEALED_SHUFFLE.
SHUFFLED_AND_CUT = {"decks_complete": "on", "no_marks": "on", "no_damage": "on", "cut_cards": "200"}
SEALED_SHUFFLE = {"seal_intact": "on", "cctv_reference": "CAM-2 preparation room", "shuffled_by": "J. Moreau"}


def physical_shoe_start(*, table: Table, actor, burn_card: str | None, seal_number: str = "") -> Shoe:
    """A physical shoe shuffled (at the table, or sealed elsewhere given a seal number), cut by the dealer at 200
    cards, and started with ``burn_card`` shown."""
    sealed = bool(seal_number)
    record = ShuffleRecord(
        decks_complete=True,
        no_marks=True,
        no_damage=True,
        cctv_reference="CAM-2 preparation room" if sealed else "",
        seal_intact=True if sealed else None,
        shuffled_by="J. Moreau" if sealed else "",
    )
    method = Shoe.ShuffleMethod.PRELIMINARY if sealed else Shoe.ShuffleMethod.TABLE
    shoe = shoe_prepare(table=table, actor=actor, shuffle_method=method, seal_number=seal_number, shuffle=record)
    shoe = shoe_cut(shoe=shoe, actor=actor, cards_from_top=200)
    return shoe_start(shoe=shoe, actor=actor, burn_card=burn_card)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    password = factory.LazyFunction(lambda: make_password(None))  # unusable, and no slow hashing


def staff_login(client, user):
    """Sign a staff user in as the staff sign-in leaves them: a session verified by their TOTP device
    (given one, unaudited, if they have none). Answers the client."""
    device = staff_device(user=user) or TOTPDevice.objects.create(user=user, name="tests", confirmed=True)
    client.force_login(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client


def staff_client(username: str, role: str | None) -> Client:
    """A client signed in as a new staff member in ``role`` (a superuser when None), the user on ``client.user``."""
    users = get_user_model().objects
    if role is None:
        user = users.create_superuser(username=username, password="x")
    else:
        user = users.create_user(username=username, password="x", is_staff=True)
        user.groups.add(roles_ensure()[role])
    client = staff_login(Client(), user)
    client.user = user
    return client


def totp_code(device: TOTPDevice, steps_ahead: int = 0) -> str:
    """The device's code now, or ``steps_ahead`` 30-second steps later (a code is accepted once, so a
    test signing in again uses a later one, as a person would a little later)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():0{device.digits}d}"


def totp_code_unused(device: TOTPDevice) -> str:
    """The device's code now or, when now's was accepted already, the next step's, which the device's tolerance
    accepts: a test may sign the same member of staff in twice within one 30-second step."""
    now = TOTP(device.bin_key, device.step, device.t0, device.digits).t()
    return totp_code(device, steps_ahead=max(0, device.last_t + 1 - now))


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table
        skip_postgeneration_save = True

    code = factory.Sequence(lambda n: f"t{n}")
    name = factory.LazyAttribute(lambda table: f"Table {table.code}")
    is_open = True
    side_bets = factory.LazyFunction(lambda: ["player_pair", "banker_pair"])

    @factory.post_generation
    def limits(table, create, extracted, **kwargs):
        """The limit set in the house currency: ``limits={"tie": ("1.00", "100.00", "500.00")}`` overrides (or
        adds to) TABLE_LIMITS."""
        if not create:
            return
        limit_set = LimitSet.objects.create(table=table, currency=settings.HOUSE_CURRENCY)
        for bet_type, (minimum, maximum, table_maximum) in {**TABLE_LIMITS, **(extracted or {})}.items():
            BetLimit.objects.create(
                limit_set=limit_set,
                bet_type=bet_type,
                minimum=Decimal(minimum),
                maximum=Decimal(maximum),
                table_maximum=None if table_maximum is None else Decimal(table_maximum),
            )

    @factory.post_generation
    def max_differential(table, create, extracted, **kwargs):
        """``max_differential=Decimal(...)``: the house currency's (5000.00 unless given)."""
        if create and extracted is not None:
            table.limit_sets.filter(currency=settings.HOUSE_CURRENCY).update(max_differential=Decimal(extracted))


class ShoeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Shoe

    table = factory.SubFactory(TableFactory)
    number = factory.LazyAttribute(lambda shoe: shoe.table.shoes.count() + 1)
    decks = 8
    shuffle_method = Shoe.ShuffleMethod.RNG
    cut_card_position = 416 - 52
    state = Shoe.State.IN_PLAY
    started_at = factory.LazyFunction(timezone.now)


def _shoe_in_play(table: Table) -> Shoe:
    return table.shoes.filter(state=Shoe.State.IN_PLAY).first() or ShoeFactory(table=table)


class CoupFactory(factory.django.DjangoModelFactory):
    """A coup taking bets on the table's shoe in play, its rules snapshotted as the table services do."""

    class Meta:
        model = Coup

    table = factory.SubFactory(TableFactory)
    shoe = factory.LazyAttribute(lambda coup: _shoe_in_play(coup.table))
    number = factory.LazyAttribute(lambda coup: coup.shoe.coups.count() + 1)
    round_id = factory.LazyAttribute(lambda coup: Coup.new_round_id(coup.table.code))
    state = Coup.State.BETTING
    rules = factory.LazyAttribute(lambda coup: table_coup_rules(table=coup.table).to_json())


def coup_deal_and_resolve(coup: Coup, cards: str) -> Coup:
    """Deal ``cards`` (codes in dealing order, e.g. "9S 2H KD 3C") to the coup and record the result, in its rows
    alone (not ``casino.lifecycle.coup_resolve``: no roads, no event, no settlement queued); ``bench.settlement``'s
    coups too."""
    deal = CoupDeal()
    for card in parse_cards(cards):
        deal.add(card)
    result = deal.result()
    first = DealtCard.objects.filter(shoe=coup.shoe).count()
    DealtCard.objects.bulk_create(
        DealtCard(coup=coup, shoe=coup.shoe, position=index, shoe_position=first + index, hand=hand, card=card.code)
        for index, (hand, card) in enumerate(deal.order)
    )
    coup.player_total, coup.banker_total, coup.winner = result.player_total, result.banker_total, result.winner
    coup.player_pair, coup.banker_pair, coup.natural = result.player_pair, result.banker_pair, result.natural
    coup.state, coup.closed_at, coup.resolved_at = Coup.State.RESOLVED, timezone.now(), timezone.now()
    coup.save()
    return coup
