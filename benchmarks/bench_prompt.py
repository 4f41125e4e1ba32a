"""Prompt size per call for a typical turn, and how much of it is a prefix that stays the same between calls.

A ten-call loop is simulated: each call the bot's stats and inventory change and one or two turns are added.
Reported: tokens per call (cl100k), the laid-out stable prefix (system + turns before the state message), the
prefix measured as identical to the previous call (what a provider's cache can reuse), and the same measure
for MINDcraft's order (state before the command docs). Goal: stable share >= 80%.
    .venv/bin/python benchmarks/bench_prompt.py
"""

from __future__ import annotations

import statistics
from pathlib import Path
from types import SimpleNamespace

from mindpy.memory import History
from mindpy.models.tokens import common_prefix_tokens, count_tokens, encode
from mindpy.profiles import load_profile
from mindpy.prompts import Prompter
from mindpy.prompts.prompter import fill
from mindpy.rag import ExampleSelector

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "stats": [], "inventory": [], "nearbyBlocks": [], "craftable": [], "entities": [], "modes": [],
    "savedPlaces": [], "getCraftingPlan": ["targetItem", "quantity"], "help": [], "newAction": ["prompt"],
    "stop": [], "stfu": [], "restart": [], "clearChat": [], "goToPlayer": ["player_name", "closeness"],
    "followPlayer": ["player_name", "follow_dist"], "goToCoordinates": ["x", "y", "z", "closeness"],
    "searchForBlock": ["type", "search_range"], "searchForEntity": ["type", "search_range"],
    "moveAway": ["distance"], "rememberHere": ["name"], "goToRememberedPlace": ["name"],
    "givePlayer": ["player_name", "item_name", "num"], "consume": ["item_name"], "equip": ["item_name"],
    "putInChest": ["item_name", "num"], "takeFromChest": ["item_name", "num"], "viewChest": [],
    "discard": ["item_name", "num"], "collectBlocks": ["type", "num"], "craftRecipe": ["recipe_name", "num"],
    "smeltItem": ["item_name", "num"], "clearFurnace": [], "placeHere": ["type"], "attack": ["type"],
    "attackPlayer": ["player_name"], "goToBed": [], "activate": ["type"], "stay": ["seconds"],
    "setMode": ["mode_name", "on"], "goal": ["selfPrompt"], "endGoal": [],
    "startConversation": ["player_name", "message"], "endConversation": ["player_name"],
    "lookAtPlayer": ["player_name", "direction"], "lookAtPosition": ["x", "y", "z"], "digDown": ["distance"],
}


def command_docs() -> str:
    """Docs shaped like the tool layer's (one block per command), about MINDcraft's size."""
    lines = ["*COMMAND DOCS*", "Use one command per reply with the syntax !commandName or !commandName(arg, ...).",
             "Strings are double-quoted. Only the first command in a reply runs."]
    for name, params in COMMANDS.items():
        lines.append(f"!{name}: Does what '{name}' says in the game world and reports the result when done.")
        if params:
            lines.append("Params:")
            lines += [f"{p}: (string) The {p.replace('_', ' ')} to use for this command." for p in params]
    lines.append("*")
    return "\n".join(lines)


def world(step: int) -> tuple[str, str]:
    stats = (f"STATS\n- Position: x: {100 + step * 3.1:.2f}, y: -60.00, z: {40 - step * 1.7:.2f}\n"
             f"- Gamemode: survival\n- Health: {20 - step % 5} / 20\n- Hunger: {18 - step % 3} / 20\n"
             f"- Biome: plains\n- Weather: Clear\n- Time: {'Morning' if step < 5 else 'Afternoon'}\n"
             f"- Current Action: action:collectBlocks\n- Nearby Human Players: steve\n- Nearby Bot Players: jill")
    inventory = (f"INVENTORY\n- oak_log: {4 + step}\n- oak_planks: {8 + 2 * step}\n- stick: 4\n"
                 f"- cobblestone: {step * 3}\n- wooden_pickaxe: 1\nWEARING: Nothing")
    return stats, inventory


def main() -> None:
    profile = load_profile(ROOT / "profiles" / "andy.yaml", base="survival")
    docs = command_docs()
    state = {"step": 0}
    prompter = Prompter.from_profile(
        profile, providers={"COMMAND_DOCS": docs, "STATS": lambda: world(state["step"])[0],
                            "INVENTORY": lambda: world(state["step"])[1]},
        examples=ExampleSelector(profile.conversation_examples))
    history = History("andy")
    history.memory = ("steve asked for a wooden house by the river at (120, -60, 30). Jill crafts planks, I get "
                      "logs. Forest 40 blocks east. Night soon: bring torches.")
    agent = SimpleNamespace(name="andy", history=history, actions=SimpleNamespace(current_label="action:collectBlocks"))
    script = [("steve", "hey andy, can you get more logs for the house?"),
              ("andy", "Sure, heading to the forest. !collectBlocks(\"oak_log\", 8)"),
              ("system", "Collected 8 oak_log."),
              ("andy", "Got 8 logs. Crafting planks. !craftRecipe(\"oak_planks\", 8)"),
              ("system", "Successfully crafted oak_planks, you now have 32 oak_planks."),
              ("steve", "nice, bring them over"), ("andy", "On my way! !goToPlayer(\"steve\", 3)"),
              ("system", "Arrived at player steve."),
              ("andy", "Here they are. !givePlayer(\"steve\", \"oak_planks\", 32)"),
              ("system", "Gave 32 oak_planks to steve."), ("steve", "thanks! now some cobblestone please")]
    mindcraft = ("You are a playful Minecraft bot named $NAME that can converse with players, see, move, mine, build, "
                 "and interact with the world by using commands.\n$SELF_PROMPT Act human-like. Summarized memory: "
                 "'$MEMORY'\n$STATS\n$INVENTORY\n$COMMAND_DOCS\n$EXAMPLES\nConversation Begin:")
    rows, mc_prev, mc_shares = [], [], []
    for step, (who, text) in enumerate(script):
        state["step"] = step
        history.add(who, text)
        p = prompter.build("conversing", agent)
        rows.append(p)
        # MINDcraft's order, same content: the state sits before the docs, so every change breaks the prefix
        stats, inv = world(step)
        mc_system = fill(mindcraft, {"NAME": "andy", "SELF_PROMPT": "", "MEMORY": history.memory, "STATS": stats,
                                     "INVENTORY": inv, "COMMAND_DOCS": docs,
                                     "EXAMPLES": prompter.examples.render(history.turns, 2, "andy")})
        stream = encode(mc_system + "".join(f"\x00{t['role']}\x00{t['content']}" for t in history.turns))
        if mc_prev:
            mc_shares.append(common_prefix_tokens(mc_prev, stream) / len(stream))
        mc_prev = stream

    last = rows[-1]
    print(f"command docs                                    {count_tokens(docs):6d} tokens")
    print(f"tokens per call (typical turn, {len(history.turns)} turns)        {last.prompt_tokens:6d} tokens "
          f"(median over the loop {statistics.median(r.prompt_tokens for r in rows):.0f})")
    print(f"stable prefix (system + turns before the state) {last.stable_prefix_tokens:6d} tokens = "
          f"{last.stable_prefix_tokens / last.prompt_tokens:6.1%}   goal >= 80%")
    shares = [r.shared_prefix_tokens / r.prompt_tokens for r in rows[1:]]
    print(f"measured prefix shared with the previous call   median {statistics.median(shares):6.1%}   "
          f"min {min(shares):6.1%}   (n={len(shares)})")
    print(f"same measure with MINDcraft's order             median {statistics.median(mc_shares):6.1%}")


if __name__ == "__main__":
    main()
