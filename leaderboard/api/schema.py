"""OpenAPI: our token authentication, the token scope each operation needs, and the error
responses of every operation."""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import serializers

from leaderboard.api.models import Scope
from leaderboard.api.scopes import TokenScope, needed_scope


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "leaderboard.api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal access token from your profile page. Its scope (read, "
            "submit, team or organise, each including the ones before) limits what it may do; "
            "an operation that needs more than read says so.",
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

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        """The operation, its description saying which scope a token needs when it is more
        than read (added here: an ``extend_schema`` description replaces ``get_description``)."""
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        if not any(isinstance(p, TokenScope) for p in self.view.get_permissions()):
            return operation
        scope = needed_scope(self.method, self.view)
        if scope != Scope.READ:
            needs = f"A token needs the `{scope}` scope (else `403 token_scope`)."
            description = operation.get("description")
            operation["description"] = f"{description}\n\n{needs}" if description else needs
        return operation

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code in ERROR_CODES:
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    ErrorSerializer, code, direction=direction
                )
        return responses
