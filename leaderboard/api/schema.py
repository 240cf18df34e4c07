"""OpenAPI: our token authentication, and the error responses of every operation."""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import serializers


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "leaderboard.api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal access token from your profile page.",
        }


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="stable, for programs: not_found, invalid, ...")
    message = serializers.CharField(help_text="for people")
    details = serializers.DictField(help_text="per field or per condition key, when useful")


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


#: Every operation may answer these (a bad token is refused even on a public endpoint).
ERROR_CODES = ("400", "401", "403", "404", "405", "406", "415", "429")


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, plus the error responses every endpoint can give, in the
    one shape the exception handler produces."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code in ERROR_CODES:
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    ErrorSerializer, code, direction=direction
                )
        return responses
