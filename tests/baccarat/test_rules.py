"""The coup's rules snapshot: one dataclass, read back exactly as stored, by every release's format."""

from decimal import Decimal

import pytest

from baccarat.rules import BetLimits, CoupRules, TableRules

LIMITS = {
    "player": {"min": "1.00", "max": "1000.00", "table_max": None},
    "tie": {"min": "1.00", "max": "100.00", "table_max": "500.00"},
    "small": {"min": "1.00", "max": "50.00", "table_max": "250.00"},
}
# A coup's rules as this release stores them: limits per currency.
STORED = {
    "decks": 8,
    "burn": "card",
    "cut_card_from_bottom": 52,
    "cut_card_rule": "one_more_coup",
    "commission": True,
    "tie_pays": 8,
    "side_bets": ["player_pair", "banker_pair"],
    "forbid_player_and_banker": True,
    "patrons_hold_shoe": True,
    "tie_shoe_stays": False,
    "betting_seconds": 15,
    "currencies": {
        "EUR": {"max_differential": "5000.00", "limits": LIMITS},
        "USD": {
            "max_differential": "6000.00",
            "limits": {"player": {"min": "2.00", "max": "1200.00", "table_max": None}},
        },
    },
}
# As the releases before stored them: one set of limits (in the house currency, the only one there was).
STORED_BEFORE_CURRENCIES = {
    **{name: value for name, value in STORED.items() if name != "currencies"},
    "max_differential": "5000.00",
    "limits": LIMITS,
}


def test_a_stored_snapshot_reads_back_and_writes_back_identically():
    rules = CoupRules.from_json(STORED, legacy_currency="EUR")
    assert rules.to_json() == STORED
    assert rules.table == TableRules(
        side_bets=("player_pair", "banker_pair"), patrons_hold_shoe=True, tie_shoe_stays=False
    )
    assert rules.betting_seconds == 15
    assert rules.currencies["EUR"].max_differential == Decimal("5000.00")
    assert rules.currencies["USD"].max_differential == Decimal("6000.00")
    assert rules.currencies["EUR"].limits["tie"] == BetLimits(Decimal("1.00"), Decimal("100.00"), Decimal("500.00"))


def test_only_the_bets_the_coup_offers_have_limits_in_play_in_the_tables_order():
    rules = CoupRules.from_json(STORED, legacy_currency="EUR")
    assert list(rules.offered_limits("EUR")) == ["player", "tie"]  # small is not offered
    assert list(rules.offered_limits("USD")) == ["player"]
    assert rules.offered_limits("GBP") == {}  # no limits in GBP: no bets in it


def test_a_snapshot_from_before_currencies_has_its_limits_in_the_currency_named():
    rules = CoupRules.from_json(STORED_BEFORE_CURRENCIES, legacy_currency="GBP")
    assert list(rules.currencies) == ["GBP"]
    assert rules.currencies["GBP"].max_differential == Decimal("5000.00")
    assert list(rules.offered_limits("GBP")) == ["player", "tie"]


def test_a_snapshot_from_before_the_player_and_banker_rule_had_it_on():
    older = {name: value for name, value in STORED.items() if name != "forbid_player_and_banker"}
    assert CoupRules.from_json(older, legacy_currency="EUR").table.forbid_player_and_banker is True


def test_a_snapshot_from_before_the_patrons_shoe_had_the_croupier_hold_it_and_a_tie_leave_it():
    older = {name: value for name, value in STORED.items() if name not in ("patrons_hold_shoe", "tie_shoe_stays")}
    table = CoupRules.from_json(older, legacy_currency="EUR").table
    assert (table.patrons_hold_shoe, table.tie_shoe_stays) == (False, True)


def test_a_snapshot_with_impossible_rules_is_refused():
    with pytest.raises(ValueError, match="tie pays"):
        CoupRules.from_json({**STORED, "tie_pays": 7}, legacy_currency="EUR")
