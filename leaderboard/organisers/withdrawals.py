"""The organisers' page of a phase's withdrawals: withdraw a run or disqualify a team, with a
reason shown publicly or not, and undo either (``submissions.services.withdrawal``). Only the
challenge's organisers reach it; anyone else gets a 404."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from leaderboard.challenges.factors import second_factor_required
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.organisers import wording
from leaderboard.submissions.models import Submission
from leaderboard.submissions.services.withdrawal import (
    REASON_LENGTH,
    WithdrawalError,
    reinstate,
    withdraw,
)
from leaderboard.teams.models import Team


class WithdrawalForm(forms.Form):
    """What to take off the boards: a team's every run, or one run of it (by its number)."""

    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None)
    submission = forms.IntegerField(
        required=False,
        min_value=1,
        label="Submission number",
        help_text="one run of the team; empty: disqualify the team from the phase (every run, "
        "and no new upload)",
    )
    reason = forms.CharField(
        max_length=REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="kept in the audit log and shown to the team",
    )
    public = forms.BooleanField(
        required=False, label="Show the reason on the leaderboard, under the team's name"
    )

    def __init__(self, phase: Phase, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = phase
        team = self.fields["team"]
        assert isinstance(team, forms.ModelChoiceField)
        team.queryset = Team.objects.filter(submissions__phase=phase).distinct()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        number, team = cleaned.get("submission"), cleaned.get("team")
        cleaned["run"] = None
        if number is not None and team is not None:
            run = Submission.objects.filter(pk=number, phase=self.phase, team=team).first()
            if run is None:
                self.add_error(
                    "submission", f"{team.name} has no submission {number} in {self.phase.name}."
                )
            cleaned["run"] = run
        return cleaned


def _phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    challenge = get_object_or_404(Challenge, slug=slug)
    if not challenge.is_organised_by(request.user):
        raise Http404
    return get_object_or_404(challenge.phases.select_related("challenge"), slug=phase)


@second_factor_required
def withdrawals(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The phase's withdrawals (GET; ``?team=&submission=`` fill the form); withdraw (POST) or
    undo one (POST ``reinstate``)."""
    selected = _phase(request, slug, phase)
    form = WithdrawalForm(selected, initial=request.GET.dict() or None)
    if request.method == "POST":
        if "reinstate" in request.POST:
            found = selected.withdrawals.filter(pk=request.POST.get("reinstate") or 0).first()
            if found is None:
                raise Http404
            try:
                reinstate(found, actor=request.user)
            except WithdrawalError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(
                    request, f"{found.team.name} is back on the boards of {selected.name}."
                )
            return redirect("challenges:withdrawals", slug, phase)
        form = WithdrawalForm(selected, request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                withdraw(
                    selected, data["team"], submission=data["run"], reason=data["reason"],
                    public=data["public"], actor=request.user,
                )  # fmt: skip
            except WithdrawalError as exc:
                form.add_error(None, str(exc))
            else:
                what = f"Submission {data['run'].pk}" if data["run"] else data["team"].name
                messages.success(
                    request,
                    f"{what} left the boards of {selected.name}; the boards are being built again.",
                )
                return redirect("challenges:withdrawals", slug, phase)
    context = {
        "challenge": selected.challenge,
        "phase": selected,
        "form": form,
        "withdrawals": [
            {"withdrawal": w, **wording.withdrawal_row(w)}
            for w in selected.withdrawals.select_related("team", "submission", "by")
        ],
    }
    status = 400 if form.errors else 200
    return render(request, "organisers/withdrawals.html", context, status=status)
