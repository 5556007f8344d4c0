"""Reads for the partner API, by what they read: ``accounts`` (keys, webhook endpoints, the float, players and
their money), ``tables`` (rules, limits, odds, roads, shoes) and ``rounds`` (bets and history)."""
