"""The partner API's JSON parser: every malformed body a 400, never a 500."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    """DRF's, which lets JSON nested too deep escape as a RecursionError (a 500)."""

    def parse(self, stream, media_type=None, parser_context=None) -> object:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deep") from None
