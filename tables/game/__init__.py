"""The game of punto banco in pure Python (no Django import).

Every rule of the game lives in one module of this package:
``cards`` (cards and their values), ``shoe`` (shuffle, burn, cut card),
``tableau`` (the drawing rules), ``coup`` (dealing and resolving one coup),
``rules`` (the per-table rule settings), ``paytables`` (what each bet pays),
``odds`` (exact combinatorial analysis) and ``replay`` (playing a recorded shoe).
"""
