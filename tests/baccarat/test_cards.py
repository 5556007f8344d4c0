import pytest

from baccarat.cards import Card, InvalidCardError, decks, hand_total, parse_cards


@pytest.mark.parametrize(
    ("code", "value"),
    [("AS", 1), ("2H", 2), ("5D", 5), ("9C", 9), ("TD", 0), ("JS", 0), ("QH", 0), ("KH", 0)],
)
def test_baccarat_values(code, value):
    assert Card.parse(code).value == value


@pytest.mark.parametrize("code", ["", "A", "1S", "10S", "AX", "ZZ", "ASS", " AS", None, 12])
def test_bad_codes_raise_an_error_naming_them(code):
    with pytest.raises(InvalidCardError) as raised:
        Card.parse(code)
    assert repr(code) in str(raised.value)


def test_parse_cards_reads_whitespace_separated_codes_case_insensitively():
    assert [c.code for c in parse_cards("AS td\n\tKH  9c")] == ["AS", "TD", "KH", "9C"]


def test_parse_cards_names_the_bad_one():
    with pytest.raises(InvalidCardError, match="'XS'"):
        parse_cards("AS XS KH")


def test_totals_drop_the_tens_digit():
    assert hand_total(parse_cards("JS 4H 9D")) == 3  # seed 003's example
    assert hand_total(parse_cards("8S 7H")) == 5


@pytest.mark.parametrize("count", range(1, 9))
def test_decks_hold_52_distinct_cards_each(count):
    cards = decks(count)
    assert len(cards) == 52 * count
    assert len(set(cards)) == 52
    assert all(cards.count(card) == count for card in set(cards))
