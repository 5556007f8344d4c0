"""Shoes: preparing (an RNG order, or a physical shoe), putting in play with the burn, finishing or
discarding, the cut card, and key rotation of RNG shoes' secrets. Replacing the cards voids a coup in
progress, so it is part of the lifecycle (``casino.lifecycle.shoe_replace``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from baccarat import rules as game_rules
from baccarat.cards import Card
from baccarat.fairness import new_salt, shoe_commitment
from baccarat.shoe import ShoeDealer, burn_count, cut_card_position, new_shoe_order
from kernel.encryption import encrypt, reencrypt
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.errors import TableError
from tables.holds import kept_card_discard
from tables.locks import shoe_locked, table_locked
from tables.models import Coup, Shoe, Table
from tables.selectors import table_live_coup, table_shoe_in_play
from tables.shuffles import ShuffleRecord, shuffle_record_problem

User = AbstractBaseUser


@transaction.atomic
def shoe_prepare(
    *,
    table: Table,
    actor: User | None = None,
    shuffle_method: str | None = None,
    seal_number: str = "",
    shuffle: ShuffleRecord | None = None,
    player: User | None = None,
) -> Shoe:
    """A new shoe for the table: an RNG order for automatic tables, a physical shoe for dealer tables, with
    the record of its shuffle by ``actor`` (seed 000 §2.1; required before it starts, see ``shoe_start``).
    At a table dealt on demand, ``player``'s private RNG shoe (the table's lock numbers it)."""
    table = table_locked(table.pk)
    automatic = table.dealing_mode != Table.DealingMode.DEALER
    if (player is not None) != table.dealt_on_demand:
        raise TableError(
            "a table dealt on demand deals only players' private shoes", code=ErrorCode.WRONG_SHUFFLE_METHOD
        )
    method = shuffle_method or (Shoe.ShuffleMethod.RNG if automatic else Shoe.ShuffleMethod.TABLE)
    if automatic != (method == Shoe.ShuffleMethod.RNG):
        raise TableError(
            "automatic tables use RNG shoes; dealer tables use physical shoes", code=ErrorCode.WRONG_SHUFFLE_METHOD
        )
    if method == Shoe.ShuffleMethod.PRELIMINARY and not seal_number:
        raise TableError("a preliminary (sealed) shuffle needs its seal number", code=ErrorCode.SEAL_NUMBER_REQUIRED)
    if shuffle is not None:
        problem = "an RNG shoe has no shuffle to record" if automatic else ""
        problem = problem or shuffle_record_problem(record=shuffle, shuffle_method=method)
        if problem:
            raise TableError(problem, code=ErrorCode.SHUFFLE_RECORD_INVALID)
    table.shoes.filter(state=Shoe.State.PREPARED, player=player).update(state=Shoe.State.DISCARDED)
    last = table.shoes.order_by("-number").values_list("number", flat=True).first() or 0
    order, salt = (new_shoe_order(table.decks), new_salt()) if automatic else ([], "")
    shoe = Shoe.objects.create(
        table=table,
        player=player,
        number=last + 1,
        decks=table.decks,
        shuffle_method=method,
        seal_number=seal_number,
        card_order_encrypted=encrypt(" ".join(card.code for card in order)),
        commitment=shoe_commitment(order, salt) if automatic else "",
        salt_encrypted=encrypt(salt),
        cut_card_position=cut_card_position(deck_count=table.decks, cards_behind=table.cut_card_from_bottom),
        cut_card_rule=table.cut_card_rule,
        prepared_by=actor if actor is not None and actor.is_authenticated else None,
        **(_shuffle_fields(shuffle) if shuffle is not None else {}),
    )
    audit_record(
        action="shoe_prepared",
        actor=actor,
        table=table,
        obj=shoe,
        after={
            "number": shoe.number,
            "decks": shoe.decks,
            "shuffle": method,
            "seal": seal_number,
            "commitment": shoe.commitment,
            **(_shuffle_fields(shuffle) if shuffle is not None else {}),
        },
    )
    return shoe


def _shuffle_fields(shuffle: ShuffleRecord) -> dict:
    return {
        "decks_complete": shuffle.decks_complete,
        "no_marks": shuffle.no_marks,
        "no_damage": shuffle.no_damage,
        "seal_intact": shuffle.seal_intact,
        "cctv_reference": shuffle.cctv_reference.strip(),
        "shuffled_by": shuffle.shuffled_by.strip(),
    }


@transaction.atomic
def shoe_start(*, shoe: Shoe, actor: User | None = None, burn_card: str | None = None) -> Shoe:
    """Put a prepared shoe in play with the table's burn procedure.

    Burn by card (seed 000 §3.1.1): an RNG shoe burns from its order; at a dealer table
    the dealer enters the card shown and burns that many. Or three no-bet coups (§3.1.2).
    A physical shoe starts only with its shuffle's checks confirmed and its cut recorded (§2.1).
    """
    table = table_locked(shoe.table_id)  # the lock order: table, then shoe
    shoe = shoe_locked(shoe.pk)
    if shoe.state != Shoe.State.PREPARED:
        raise TableError(f"shoe {shoe.number} is {shoe.state}, not prepared", code=ErrorCode.NOT_PREPARED)
    if table_shoe_in_play(table=table) is not None:
        raise TableError(f"table {table.code} already has a shoe in play", code=ErrorCode.SHOE_IN_PLAY)
    if not shoe.has_card_order:
        _physical_shoe_ready_check(shoe)
    if table.burn_procedure == game_rules.BURN_NO_BET_COUPS and shoe.player_id is None:
        table.no_bet_coups_ordered += game_rules.NO_BET_COUPS_AT_START
        table.save(update_fields=["no_bet_coups_ordered"])
    elif shoe.has_card_order:
        dealer = ShoeDealer(shoe.cards, cut_card_position=shoe.cut_card_position, cut_card_rule=shoe.cut_card_rule)
        burn = dealer.burn()
        shoe.burn_shown, shoe.burned_cards_encrypted = burn.shown.code, encrypt(" ".join(c.code for c in burn.burned))
        shoe.position, shoe.last_coup = dealer.state.position, dealer.state.last_coup
    else:
        if burn_card is None:
            raise TableError("enter the card shown for the burn", code=ErrorCode.BURN_CARD_REQUIRED)
        shown = Card.parse(burn_card)
        shoe.burn_shown, shoe.position = shown.code, 1 + burn_count(shown)
    shoe.state, shoe.started_at = Shoe.State.IN_PLAY, timezone.now()
    shoe.save()
    audit_record(
        action="shoe_started",
        actor=actor,
        table=table,
        obj=shoe,
        after={
            "number": shoe.number,
            "burn_shown": shoe.burn_shown,
            "burned": shoe.position,
            "burn": table.burn_procedure,
        },
    )
    if shoe.player_id is not None:  # a private shoe: its player's page shows it, not the table's events
        return shoe
    table_event_send(
        table_code=table.code,
        event_type="shoe_change",
        data={"shoe": shoe.number, "burn_shown": shoe.burn_shown, "commitment": shoe.commitment},
    )
    return shoe


def _physical_shoe_ready_check(shoe: Shoe) -> None:
    """The shuffle's checks all confirmed (§2.1.1-§2.1.2) and the cut recorded (§2.1.3), or ``TableError``."""
    if None in (shoe.decks_complete, shoe.no_marks, shoe.no_damage):
        raise TableError(
            f"record the shuffle of shoe {shoe.number} first (seed 000 §2.1)", code=ErrorCode.SHUFFLE_NOT_RECORDED
        )
    record = ShuffleRecord(
        decks_complete=shoe.decks_complete,
        no_marks=shoe.no_marks,
        no_damage=shoe.no_damage,
        cctv_reference=shoe.cctv_reference,
        seal_intact=shoe.seal_intact,
        shuffled_by=shoe.shuffled_by,
    )
    problem = shuffle_record_problem(record=record, shuffle_method=shoe.shuffle_method)
    if problem:
        raise TableError(problem, code=ErrorCode.SHUFFLE_RECORD_INVALID)
    if shoe.cut_cards is None:
        raise TableError(f"record the cut of shoe {shoe.number} first (seed 000 §2.1.3)", code=ErrorCode.NOT_CUT)


@transaction.atomic
def shoe_finish(*, shoe: Shoe, actor: User | None = None, discard: bool = False, reason: str = "") -> Shoe:
    shoe = shoe_locked(shoe.pk)
    if shoe.state in (Shoe.State.FINISHED, Shoe.State.DISCARDED):
        raise TableError(f"shoe {shoe.number} is already {shoe.state}", code=ErrorCode.SHOE_OVER)
    if shoe.coups.filter(state__in=Coup.LIVE_STATES).exists():
        raise TableError(f"shoe {shoe.number} has a coup in progress", code=ErrorCode.COUP_IN_PROGRESS)
    kept_card_discard(shoe=shoe, actor=actor)
    shoe.state = Shoe.State.DISCARDED if discard else Shoe.State.FINISHED
    shoe.finished_at = timezone.now()
    shoe.save(update_fields=["state", "finished_at"])
    audit_record(
        action="shoe_discarded" if discard else "shoe_finished",
        actor=actor,
        table=shoe.table,
        obj=shoe,
        after={"number": shoe.number, "coups": shoe.coups_started, "cards_used": shoe.position},
        reason=reason,
    )
    return shoe


@transaction.atomic
def shoe_secrets_reencrypt(*, actor: User | None = None) -> int:
    """Key rotation: every RNG shoe's order, salt and burned cards encrypted again with the first key."""
    shoes = list(Shoe.objects.select_for_update(of=("self",)).exclude(card_order_encrypted="").order_by("pk"))
    for shoe in shoes:
        shoe.card_order_encrypted = reencrypt(shoe.card_order_encrypted)
        shoe.salt_encrypted = reencrypt(shoe.salt_encrypted)
        shoe.burned_cards_encrypted = reencrypt(shoe.burned_cards_encrypted)
    Shoe.objects.bulk_update(shoes, ["card_order_encrypted", "salt_encrypted", "burned_cards_encrypted"])
    audit_record(action="shoe_secrets_reencrypted", actor=actor, actor_label="system", after={"shoes": len(shoes)})
    return len(shoes)


@transaction.atomic
def shoe_cut_card_out(*, shoe: Shoe, actor: User | None) -> Shoe:
    """The dealer reports the cut card of a physical shoe (an RNG shoe knows where its cut card is).

    Out before a coup's first card: that coup is the last; during a coup: by the table's rule.
    """
    shoe = shoe_locked(shoe.pk)
    if shoe.state != Shoe.State.IN_PLAY or shoe.has_card_order:
        raise TableError("only a physical shoe in play reports its cut card", code=ErrorCode.NOT_A_PHYSICAL_SHOE)
    if shoe.last_coup is not None:
        raise TableError(f"the cut card of shoe {shoe.number} is already out", code=ErrorCode.CUT_CARD_ALREADY_OUT)
    live = table_live_coup(table=shoe.table)
    if live is None or not live.cards.exists():
        shoe.last_coup = shoe.coups_started + (0 if live is not None else 1)
    elif shoe.cut_card_rule == game_rules.CUT_END_OF_COUP:
        shoe.last_coup = live.number
    else:
        shoe.last_coup = live.number + 1
    shoe.save(update_fields=["last_coup"])
    audit_record(action="cut_card_out", actor=actor, table=shoe.table, obj=shoe, after={"last_coup": shoe.last_coup})
    cut_card_out_send(shoe=shoe)
    return shoe


def cut_card_out_send(*, shoe: Shoe) -> None:
    """The table is told, on commit, that the cut card is out and which coup is the shoe's last."""
    table_event_send(
        table_code=shoe.table.code, event_type="cut_card_out", data={"shoe": shoe.number, "last_coup": shoe.last_coup}
    )
