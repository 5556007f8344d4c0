"""A floor refusal carries a stable code, as a money refusal does: callers branch on it, not on words."""

import ast
from pathlib import Path

import pytest

from tables.coups import coup_open
from tables.errors import TableError
from tables.services import table_close

ROOT = Path(__file__).resolve().parents[2]


def table_error_raises() -> list[tuple[str, int, ast.Call]]:
    raises = []
    for path in [*ROOT.glob("tables/**/*.py"), *ROOT.glob("casino/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            call = node.exc if isinstance(node, ast.Raise) else None
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "TableError":
                raises.append((str(path.relative_to(ROOT)), node.lineno, call))
    return raises


def test_every_refusal_of_the_floor_names_its_code():
    raises = table_error_raises()
    assert len(raises) > 50  # the walk found them
    uncoded = [(path, line) for path, line, call in raises if not any(k.arg == "code" for k in call.keywords)]
    assert uncoded == []


def test_a_refusal_says_why_in_words_and_in_its_code(auto_table, pit_boss):
    table_close(table=auto_table, actor=pit_boss, reason="end of the night")
    with pytest.raises(TableError) as refused:
        coup_open(table=auto_table)
    assert refused.value.code == "table_closed" and "is closed" in str(refused.value)
