"""Currencies: ISO 4217 codes with two decimal places, the only ones our amounts (to the cent) carry."""

from __future__ import annotations

from django.core.exceptions import ValidationError

# Active ISO 4217 currencies whose minor unit is 2 (the list of 2025, XCG and ZWG included).
TWO_DECIMAL_CURRENCIES = frozenset(
    """
    AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF
    CNY COP CRC CUP CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF
    IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR
    MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG
    SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST
    XCD XCG YER ZAR ZMW ZWG
    """.split()  # noqa: SIM905 (a table of codes, as ISO 4217 lists them)
)
# The others, by their decimal places: named in the refusal, so that nobody takes JPY for a typo.
OTHER_DECIMALS = {
    **dict.fromkeys("BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".split(), 0),  # noqa: SIM905
    **dict.fromkeys("BHD IQD JOD KWD LYD OMR TND".split(), 3),  # noqa: SIM905
    **dict.fromkeys("CLF UYW".split(), 4),  # noqa: SIM905
}


class CurrencyInvalid(ValueError):
    """Not a currency our amounts can carry; the message says why."""


def currency_checked(code: object) -> str:
    """The ISO 4217 code, if it has two decimal places (``CurrencyInvalid`` otherwise)."""
    if not isinstance(code, str) or code not in TWO_DECIMAL_CURRENCIES:
        text = str(code)[:20]
        if isinstance(code, str) and code in OTHER_DECIMALS:
            raise CurrencyInvalid(
                f"{code} has {OTHER_DECIMALS[code]} decimal places: only currencies with 2 (EUR, USD, GBP, ...) "
                "are supported"
            )
        raise CurrencyInvalid(f"{text!r} is not an ISO 4217 currency code (three capital letters, e.g. EUR)")
    return code


def currency_validator(code: object) -> None:
    """For model and form fields: a ``ValidationError`` with the reason."""
    try:
        currency_checked(code)
    except CurrencyInvalid as error:
        raise ValidationError(str(error)) from None
