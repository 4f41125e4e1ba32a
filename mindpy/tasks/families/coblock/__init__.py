"""The coblock family (CoBlock, seed 000): two partners build one structure, each knowing only its own part of it
(its private goal) and holding blocks the other may need. `FAMILY` is its Family object (mindpy.tasks.family)."""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from ...family import Family
from . import fields as coblock_fields

# The blueprint commands: the structure is in each agent's own goal, there is no blueprint to read
BLUEPRINT_COMMANDS = ("getBlueprint", "getBlueprintLevel", "checkBlueprint", "checkBlueprintLevel")
COBLOCK_ROUND_LIMIT = 60  # rounds an episode plays at most by default (`--rounds N` changes it)


class CoblockFamily(Family):
    """CoBlock: two partners, one structure, private goals."""

    name = "coblock"
    summary = "two partners build one structure, each from its private goal (CoBlock)"
    required_fields = ("blueprint",)
    fields = coblock_fields.FIELDS
    builds = True
    base_profile = "coblock"  # the prompt follows the paper's
    ablations = ("communication", "tools", "init_message", "temperature")  # not --prompt: its prompt is the paper's
    blocked_commands = BLUEPRINT_COMMANDS
    command_sets = ("coblock",)  # !placeBlock, !breakBlock, !checkGoal, !endTask (mindpy.commands.coblock)
    split_sizes: ClassVar[dict[str, int]] = {"train": 300, "test": 24}  # 100 and 8 structures, each split 3 ways
    oracle_entry = "mindpy.tasks.families.coblock.oracle:CoblockPlan"
    # the paper's section 2.1: "either agent takes one action in each round"; its agents act one after the other
    # (its round-2 example answers a message of the same round). It gives no round limit: ours, 60, leaves room to
    # talk, since a balanced team places the test split's largest structure (31 blocks) in 16 rounds
    round_limit = COBLOCK_ROUND_LIMIT
    sequential_turns = True
    convert_entry = "mindpy.tasks.families.coblock.paper_tasks:convert_file"
    convert_source = "the CoBlock paper's own tasks (its web portal's task instances or sessions, JSON)"

    def parse_fields(self, parser: Any) -> Any:
        return coblock_fields.parse_fields(parser)  # CoblockFields: coblock_type, private_goals, complexity

    def unplayable_reason(self, task: Any) -> str | None:
        if task.blueprint is None and not coblock_fields.private_goals_of(task):
            return "a coblock task needs its structure (a blueprint or private goals): there is nothing to build"
        return None

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        from ...splits import fingerprints_of_test_split
        from .generator import generate

        # no structure of the test split
        exclude = fingerprints_of_test_split(self.name) if split == "train" else ()
        return generate(split, seed, self.count(split, count), agents=agents, exclude=exclude)

    def unsolvable_reason(self, task: Any, version: str) -> str | None:
        from ...solvable import coblock_reason

        return coblock_reason(task)

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        from ...world import plan_agent
        from .world import FACING_NORTH, plan_coblock_site

        spots = plan_coblock_site(setup, len(setup.agent_names))  # `origin` is not used: the site is the task's
        for i, (name, spot) in enumerate(zip(setup.agent_names, spots, strict=True)):
            plan_agent(setup, i, name, spot, yaw=FACING_NORTH)

    def checker(self, task: Any, human_inventories: Any = None) -> Any:
        from .checker import CoblockChecker

        return CoblockChecker(task)

    def result_fields(self, recorder: Any, agents: dict[str, dict]) -> dict[str, Any]:
        from .results import coblock_metrics

        return coblock_metrics(recorder, agents)

    summary_key = "coblock"

    def breakdown(self, task: Any) -> dict[str, str]:
        fields = task.fields
        return {"coblock_type": fields.coblock_type} if fields is not None and fields.coblock_type else {}

    def summarize(self, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        from .results import coblock_summary

        return coblock_summary(rows)

    def configure_agent(self, task: Any, agent: Any) -> None:
        from .record import team_record
        from .site import structure_cells

        # walking must not dig through the structure: its blocks are lost then
        agent.skills.runner.protect_blocks(sorted(set(structure_cells(task).values())))
        # the team's public record of messages and actions (the paper's state), and the agent's prompt settings
        record = team_record(task, agent)
        agent.public_record = record
        record.join(agent.name, coblock_settings(getattr(agent, "prompter", None)))

    def reviewer(self, task: Any, names: list[str], agents: Any) -> Any:
        from .reflection import Reviewer

        return Reviewer(task, names, agents)

    # ----- text -----
    def summary_line(self, task: Any) -> str:
        """One line on a coblock task: its type, complexity and the size of each player's private goal."""
        from ...schema import counted

        fields = task.fields or coblock_fields.CoblockFields()
        sizes = [len(fields.private_goals.get(str(i), [])) for i in range(task.agent_count + task.human_count)]
        complexity = "?" if fields.complexity is None else f"{fields.complexity:g}"
        return (f"{fields.coblock_type}; complexity {complexity}; private goals of "
                f"{' + '.join(map(str, sizes))} = {counted(sum(sizes), 'block')}")

    def describe(self, task: Any) -> list[str]:
        return ["  coblock: " + self.summary_line(task)]

    def describe_player(self, task: Any, index: int) -> list[str]:
        from ...describe import items_text
        from ...schema import counted

        own = coblock_fields.private_goals_of(task).get(str(index), [])
        colours = Counter(block for *_, block in own)
        return [f"    private goal: {counted(len(own), 'block')} ({items_text(dict(sorted(colours.items())))})"]

    def what(self, task: Any) -> str:
        return self.summary_line(task)


def coblock_settings(prompter: Any) -> dict[str, bool] | None:
    """How an agent's prompt departs from the paper's or follows it: the method switches (partner_modelling,
    reflection) and our options (record.OPTIONS), as the result's `coblock_settings` records them; None when the
    agent has no prompter that says."""
    from .record import SETTINGS

    options = getattr(prompter, "options", None)
    if not isinstance(options, dict):
        return None
    return {name: bool(options.get(name, False)) for name in SETTINGS}


FAMILY = CoblockFamily()
