"""The game of punto banco in pure Python: no Django, no app imports (an import-linter contract).

Every rule of the game lives in one module of this package:
``cards`` (cards and their values), ``shoe`` (shuffle, burn, cut card),
``tableau`` (the drawing rules), ``coup`` (dealing and resolving one coup),
``rules`` (the per-table rule settings), ``paytables`` (what each bet pays),
``odds`` (exact combinatorial analysis), ``replay`` (playing a recorded shoe),
``fairness`` (the shoe's commitment), ``certify`` (the shuffle's statistical tests)
and ``roads`` (the five roadmaps).
"""
