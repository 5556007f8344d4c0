"""Pages of the partner API's lists: ``?page=2&page_size=100``, both positive integers (else 400)."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class PartnerPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        return self._positive_integer(request, self.page_size_query_param, self.page_size, self.max_page_size)

    def get_page_number(self, request: Request, paginator) -> int:
        return self._positive_integer(request, self.page_query_param, 1)

    @staticmethod
    def _positive_integer(request: Request, name: str, default: int, maximum: int | None = None) -> int:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        if not raw.isascii() or not raw.isdigit() or int(raw) < 1 or (maximum is not None and int(raw) > maximum):
            limit = f"1 to {maximum}" if maximum is not None else "from 1"
            raise ValidationError({name: [f"a whole number {limit}, not {raw!r}"]})
        return int(raw)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters
