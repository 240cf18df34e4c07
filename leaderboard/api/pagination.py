"""Page-number pagination for every list: ``?page=N&page_size=M`` (at most 200 a page)."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200
