"""Cards: codes such as ``AS``, ``TD``, ``KH`` and their baccarat values."""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"


class InvalidCardError(ValueError):
    """A card code that is not a rank (A 2-9 T J Q K) followed by a suit (S H D C)."""

    def __init__(self, code: object) -> None:
        super().__init__(f"invalid card code {code!r}: expected a rank (A 2-9 T J Q K) and a suit (S H D C), e.g. 'AS'")
        self.code = code


def rank_value(rank: str) -> int:
    """Baccarat value of a rank: A=1, 2-9 face value, T/J/Q/K=0."""
    index = RANKS.index(rank)
    return index + 1 if index < 9 else 0


@dataclass(frozen=True, slots=True, order=True)
class Card:
    rank: str
    suit: str

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, str) and isinstance(self.suit, str)) or (
            len(self.rank) != 1 or len(self.suit) != 1 or self.rank not in RANKS or self.suit not in SUITS
        ):
            raise InvalidCardError(f"{self.rank}{self.suit}")

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card of a code, any case; one instance per card (a card is immutable): a shoe's order of 416
        codes is parsed at each deal from it."""
        card = _BY_CODE.get(code.upper()) if isinstance(code, str) and len(code) == 2 else None
        if card is None:
            raise InvalidCardError(code)
        return card

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @property
    def value(self) -> int:
        return rank_value(self.rank)

    def __str__(self) -> str:
        return self.code


_BY_CODE = {rank + suit: Card(rank, suit) for rank in RANKS for suit in SUITS}


def parse_cards(text: str) -> list[Card]:
    """Whitespace-separated card codes, as a card reader records them."""
    return [Card.parse(code) for code in text.split()]


def hand_total(cards: list[Card] | tuple[Card, ...]) -> int:
    return sum(card.value for card in cards) % 10


def deck() -> list[Card]:
    return [Card(rank, suit) for suit in SUITS for rank in RANKS]


def decks(count: int) -> list[Card]:
    return [card for _ in range(count) for card in deck()]
