"""Fair coordination probes: the wrong options of ToM and JP are acts the actor can carry out, so the feasibility-only
answerer (`--model feasible`) scores what random guessing does on them, and above it on probes that are not fair."""

from __future__ import annotations

import random
import statistics

import pytest

from conftest import REPO_ROOT
from mindpy.cli import main
from mindpy.models import create_model
from mindpy.oracle.goals import parse_goal
from mindpy.oracle.prompt import PromptView
from mindpy.probes.build import command_text, feasible_commands, possible, questions_for
from mindpy.probes.feasible import feasible_options
from mindpy.probes.moments import MAX_OPTIONS, Moment
from mindpy.probes.record import CATEGORIES, Probe, read_probes
from mindpy.probes.refresh import refresh_probes
from mindpy.probes.run import build_prompt, run_probes

GOAL = "Collaborate with the other agents to craft a beehive. The other agents are: jill, bob."
GIVE = ("givePlayer", ["andy", "honeycomb", 3])


def moment(t: float, me: str, command: tuple[str, list] | None, team: dict[str, dict[str, int]]) -> Moment:
    view = PromptView(kind="conversing", name=me, goal=GOAL, inventory=team[me], inventory_known=True)
    return Moment("beehive", t, me, view, command_text(command) if command else "", command, team, parse_goal(GOAL))


def episode() -> list[Moment]:
    """A beehive team: jill holds the honeycomb and gives it to andy; bob turns his logs into planks and gives them."""
    team = {"andy": {"oak_log": 1}, "jill": {"honeycomb": 3, "oak_log": 1, "stick": 2}, "bob": {"oak_log": 4}}
    return [moment(1.0, "andy", None, team),
            moment(2.0, "jill", GIVE, team),
            moment(3.0, "bob", ("craftRecipe", ["oak_planks", 2]), team),
            moment(4.0, "bob", ("givePlayer", ["andy", "oak_planks", 6]), {**team, "bob": {"oak_planks": 8}})]


def expected_feasible(probes: list[Probe]) -> float:
    """What the feasibility-only answerer scores on average: per probe, 1 / (options it keeps) if the right one is
    among them, else 0."""
    scores = []
    for probe in probes:
        _, kept = feasible_options(build_prompt(probe))
        scores.append((probe.answer in kept) / len(kept))
    return statistics.fmean(scores)


def odd_one_out(probe: Probe) -> bool:
    """Whether the right command is the only one of its kind among options of two kinds (a craft among gives)."""
    kinds = [option.split("(")[0] for option in probe.options]
    return kinds.count(kinds[probe.answer]) == 1 and len(set(kinds)) == 2


def test_wrong_commands_can_be_carried_out_and_none_does_the_right_deed():
    moments = episode()
    jill = moments[1]
    for seed in range(20):
        wrong = feasible_commands(jill, "jill", GIVE, random.Random(seed))
        assert wrong and all(possible(c, "jill", jill.team) for c in wrong)
        # no give to andy (the right give's receiver), no give of honeycomb to andy whatever the count
        assert not [c for c in wrong if c[0] == "givePlayer" and c[1][0] == "andy"], wrong
        assert {c[0] for c in wrong} == {"givePlayer", "craftRecipe"}  # jill's logs make planks
    # what the actor did later in the episode is no wrong option either
    later = [("craftRecipe", ["oak_planks", 1])]
    assert all(c[0] != "craftRecipe" for c in feasible_commands(jill, "jill", GIVE, random.Random(0), later))


def built(seeds: range) -> list[Probe]:
    moments = episode()
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        for m in moments:
            out += [p for p in questions_for(m).questions(m, moments, rng) if p is not None]
    return out


def test_command_questions_keep_the_oracle_s_command_and_offer_up_to_five_options():
    probes = [p for p in built(range(30)) if p.meta["kind"] in ("my_next", "partner_next")]
    assert {p.category for p in probes} == {"ToM", "JP"}
    for probe in probes:
        assert 3 <= len(probe.options) <= MAX_OPTIONS == 5 and len(set(probe.options)) == len(probe.options)
        sent = {command_text(m.command) for m in episode() if m.me == probe.meta["actor"] and m.command}
        assert probe.options[probe.answer] in sent, probe
        if probe.meta["kind"] == "my_next" and probe.meta["actor"] == "jill":
            assert probe.options[probe.answer] == command_text(GIVE)
    assert max(len(p.options) for p in probes) == 5


def test_the_feasibility_only_answerer_scores_chance_on_built_tom_and_jp():
    probes = [p for p in built(range(60)) if p.category in ("ToM", "JP")]
    for category in ("ToM", "JP"):
        members = [p for p in probes if p.category == category]
        chance = statistics.fmean(1 / len(p.options) for p in members)
        assert expected_feasible(members) == pytest.approx(chance)
        report = run_probes(members, create_model("feasible:3"), trials=5)
        assert abs(report.score(category).mean - chance) <= 0.05, (category, report.score(category), chance)


def test_the_feasibility_only_answerer_sees_through_options_the_actor_cannot_carry_out():
    state = "Task of andy: " + GOAL + "\n\nINVENTORY of andy\n- oak_log: 1\n\nINVENTORY of jill\n- honeycomb: 3"
    probe = Probe(id="p", category="ToM", state=state, question="jill acts next. Which command will jill most likely "
                  "send?", options=[command_text(GIVE), '!givePlayer("andy", "honeycomb", 9)',
                                    '!givePlayer("andy", "stick", 1)', '!craftRecipe("beehive", 1)'], answer=0)
    assert feasible_options(build_prompt(probe))[1] == [0]
    assert run_probes([probe], create_model("feasible"), trials=4).score("ToM").mean == 1.0
    # a question that names no actor: every option stays
    other = Probe(id="q", category="EC", state=state, question="Who holds the honeycomb?",
                  options=["jill", "andy", "nobody on the team"], answer=0)
    assert feasible_options(build_prompt(other))[1] == [0, 1, 2]


def test_the_committed_set_is_fair_on_tom_and_jp():
    probes = read_probes(REPO_ROOT / "tasks" / "probes_coordqa.jsonl").probes
    for category in CATEGORIES:
        members = [p for p in probes if p.category == category]
        assert expected_feasible(members) == pytest.approx(statistics.fmean(1 / len(p.options) for p in members))
    for kind in ("my_next", "partner_next"):
        assert max(len(p.options) for p in probes if p.meta["kind"] == kind) == 5, kind
    commands = [p for p in probes if p.meta["kind"] in ("my_next", "partner_next")]
    # nor is the right command mostly the odd one out (the one craft among gives): 76 of 132 were before
    assert sum(odd_one_out(p) for p in commands) < 0.1 * len(commands)
    for category in ("ToM", "JP"):  # random guessing lower than on the 2-4 options of before (0.298, 0.308)
        assert statistics.fmean(1 / len(p.options) for p in probes if p.category == category) < 0.27, category


def test_refreshing_keeps_the_right_answers_and_makes_unfair_probes_fair():
    state = ("Task of andy: " + GOAL + "\n\nINVENTORY of andy\n- oak_log: 1\n\nINVENTORY of bob\n- oak_log: 4\n\n"
             "INVENTORY of jill\n- honeycomb: 3\n- oak_log: 1\n- stick: 2")
    unfair = Probe(id="p", category="ToM", state=state, question="jill acts next. Which command will jill most "
                   "likely send?", options=['!givePlayer("bob", "honeycomb", 9)', command_text(GIVE),
                                            '!craftRecipe("beehive", 1)'], answer=1,
                   meta={"kind": "partner_next", "agent": "andy", "actor": "jill"})
    assert expected_feasible([unfair]) == 1.0
    (fair,), dropped = refresh_probes([unfair])
    assert not dropped and fair.options[fair.answer] == command_text(GIVE) and fair.state == state
    assert len(fair.options) >= 3 and expected_feasible([fair]) == pytest.approx(1 / len(fair.options))


def test_probe_run_takes_the_feasible_answerer(tmp_path, capsys):
    path = tmp_path / "probes.jsonl"
    path.write_text((REPO_ROOT / "tasks" / "probes_example.jsonl").read_text())
    assert main(["probe", "run", str(path), "--model", "feasible:1", "--out", str(tmp_path / "out")]) == 0
    assert "model feasible" in capsys.readouterr().out
