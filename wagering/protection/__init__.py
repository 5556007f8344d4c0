"""Player protection: the limits players set on themselves (deposits, losses, session time), reality checks,
time-outs and self-exclusion, and their operator's (a partner's launch limits, its exclusion register).
``standing`` reads them, ``checks`` says what they refuse, ``services`` changes them; every bet path
(``wagering.placement``, ``wagering.placement_together``) and the one deposit path (``wagering.wallets``)
refuse through ``checks`` inside the transaction that would write the bet or the deposit."""
