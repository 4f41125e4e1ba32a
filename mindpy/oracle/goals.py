"""What a task goal asks for: the kind of task, the target items and counts, and the task's special facts.

A MineCollab task states them in its fields (`goal_from_fields`: target, number_of_target, missing_items,
recipes, initial_inventory; Hell's Kitchen's target list, one dish per agent), which an episode hands the oracle
(ChatModel.set_task_context). The goal's words are read (`parse_goal`) only for what the fields leave out, and
for goals with no task behind them (`mindpy run` with a free goal); this reader does that:

A small reader driven by a vocabulary (minecraft-data's item names, with spaces or underscores, singular or
plural as mindpy.commands.names spells them), not one pattern per phrasing:
1. recipe blocks are cut out: "Recipe for X:" followed by "Step 1: ..." lines or by a Python list of steps;
2. the rest is split into sentences; after each action verb (make, cook, prepare, craft, bake, build...) a list
   of known items is read ("1 bread", "a golden apple", "bread x1", "cake, cookie and bread"); cooking a raw
   food names the cooked one ("cook 1 beef");
3. who must make them comes from the subject nearest before the verb: me ("you", "your job is to"), a partner
   ("your partner", "agent 2" unless "you are agent 2", "they") or the whole team ("we", "collaborate with ...",
   an imperative). A verb after "how to", "not", "help"... says who knows or may do something, not who must: it
   is skipped.
4. Hell's Kitchen when my dish and a partner's are named apart (or mine's recipe is someone else's); otherwise
   the targets are everything anyone must make, the goal being the whole team's.

Phrasings it reads (ours in mindpy/tasks/generators/, MINDcraft's, and rewordings of them):
    crafting:      "Collaborate with the other agents to craft a wooden_sword." / "Craft 2 sticks." /
                   "Collaborate with other agents to build a wooden pickaxe." / "... Nobody has the oak_log it
                   takes: gather it nearby."
    cooking:       "Collaborate with the other agents to make baked_potato, golden_carrot and rabbit_stew. ..." /
                   "Collaborate with agents around you to make 1 golden_apple, 1 bread. Recipe for golden_apple:\\n
                   ['Step 1: ...', ...]Recipe for bread:\\n[...]"
    Hell's Kitchen: "You must make cake, but you do not have its recipe: agent 0 has it. You hold the recipe for
                   bread, which agent 1 must make. ..." / "You need to make bread, but you don't have the recipe
                   for it, your partner has it!\\n\\nYour partner needs to make golden_apple. You have their
                   recipe:\\nRecipe for golden_apple:\\nStep 1: ..."
    construction:  "Build the house of the blueprint together with the other agent, ..." / "Make a structure with
                   the blueprint below"
    coblock:       "Build your part of a structure ... Place exactly these 2 blocks, bottom up: yellow_wool at
                   (100, -60, -98), orange_wool at (101, -60, -98). ... You hold 1 orange_wool." (any text that
                   names blocks at coordinates; read by coblock.py)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from ..commands.names import _forms
from ..tasks.family import canonical_name
from . import coblock, cooking
from .prompt import TEAM_SENTENCE

ME, PARTNER, TEAM = "me", "partner", "team"

# "Recipe for X:" then either a Python list of steps (MINDcraft) or "Step n: ..." lines.
_RECIPE = re.compile(r"Recipe for ([A-Za-z0-9_ ]+?):[ \t]*\n?[ \t]*(\[.*?\](?=\s*(?:Recipe for|\n|$))|"
                     r"(?:Step \d+:[^\n]*(?:\n|$))+)", re.S)
_STEP_PREFIX = re.compile(r"^\s*Step \d+:\s*")
_TOKEN = re.compile(r"[a-z0-9']+|\n|[^\sa-z0-9']")
_TIMES_BEFORE = re.compile(r"\d+x")  # "2x bread"
_TIMES_AFTER = re.compile(r"x\d+")   # "bread x2" ("×" is a token of its own: "bread × 2")
_SENTENCE_END = frozenset({".", "!", "?", "\n", ";", ":"})
_CLAUSE_BREAKS = frozenset({",", "but"})

_CRAFT_VERBS = frozenset({"craft", "crafts", "build", "builds"})
_COOK_VERBS = frozenset({"make", "makes", "cook", "cooks", "prepare", "prepares", "bake", "bakes", "create",
                         "creates", "produce", "produces", "deliver", "delivers", "assemble", "assembles"})
# Passive voice: "a cake must be baked by you", "bread and a cookie are to be made".
_PARTICIPLES = frozenset({"crafted", "built", "made", "cooked", "prepared", "baked", "created", "produced",
                          "delivered", "assembled"})
_BE = frozenset({"be", "is", "are", "been", "get", "gets"})
# Phrases said another way before reading: what they mean, in the reader's own verbs.
_PHRASES = [(re.compile(p, re.I), r) for p, r in (
    (r"\b(?:is|are|am)\s+(?:responsible\s+for|in\s+charge\s+of)\b", "must make"),
    (r"\b(?:responsible\s+for|in\s+charge\s+of|come\s+up\s+with|put\s+together)\b", "make"),
    (r"\b(?:end|ends|finish|finishes|wind)\s+up\s+(?:holding|with)\b|\bfinish(?:es)?\s+holding\b", "make"),
    (r"\b(?:targets?|objective|deliverables?|delivers?|needs?|to\s+make)\s*:", " make "),
    (r"\bneeds?\b(?!\s+to\b)", "make"),
    (r"\bas\s+well\s+as\b", "and"),
)]
_HEAT_VERBS = frozenset({"cook", "cooks", "bake", "bakes"})
_COOKED = {raw: cooked for cooked, raw in cooking.SMELTED.items()}  # beef -> cooked_beef
# Between who and the verb, these mean knowing, helping or not doing: no one is given the item to make.
_NOT_A_DUTY = frozenset({"not", "don't", "doesn't", "cannot", "can't", "never", "how", "recipe", "recipes", "know",
                         "knows", "help", "helps", "guide", "guides", "already", "without"})
_RELATIVE = frozenset({"which", "that", "what"})
_DISH_WORDS = frozenset({"dish", "dishes", "plate"})
_LINKS = frozenset({"is", "are"})
_NUMBERS = {"a": 1, "an": 1, "one": 1, "the": 1, "some": 1, "single": 1, "two": 2, "three": 3, "four": 4,
            "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_LIST_JOINERS = frozenset({",", "and", "&", "plus", "+", "then"})
# Subjects, as token sequences; the one nearest before a verb says who must do it.
_SUBJECTS: dict[tuple[str, ...], str] = {
    tuple(words.split()): role for words, role in (
        ("collaborate", TEAM), ("cooperate", TEAM), ("together", TEAM), ("we", TEAM), ("us", TEAM),
        ("our team", TEAM), ("the team", TEAM), ("everyone", TEAM), ("all of you", TEAM), ("both of you", TEAM),
        ("you and", TEAM), ("you two", TEAM), ("agents around you", TEAM), ("your team", TEAM),
        ("your teammates", TEAM), ("your partners", TEAM), ("the others", TEAM),
        ("with the other agents", TEAM), ("with other agents", TEAM), ("the other agents", TEAM),
        ("around you", TEAM), ("near you", TEAM), ("with your partner", TEAM), ("with your teammate", TEAM),
        ("with the other agent", TEAM), ("you all", TEAM), ("all of us", TEAM), ("the group", TEAM),
        ("the crew", TEAM), ("your crew", TEAM), ("our crew", TEAM), ("your group", TEAM), ("everyone's", TEAM),
        ("the team's", TEAM), ("the crew's", TEAM), ("the group's", TEAM), ("our team's", TEAM),
        ("by the team", TEAM), ("by all of you", TEAM), ("by you all", TEAM), ("by us", TEAM),
        ("your partner", PARTNER), ("your teammate", PARTNER), ("your friend", PARTNER),
        ("your partner's", PARTNER), ("the other agent", PARTNER), ("the other bot", PARTNER),
        ("the other player", PARTNER), ("partner", PARTNER), ("teammate", PARTNER), ("they", PARTNER),
        ("he", PARTNER), ("she", PARTNER),
        ("you", ME), ("you're", ME), ("your job", ME), ("your task", ME), ("your goal", ME), ("your part", ME),
        ("your role", ME), ("your own dish", ME), ("your dish", ME), ("your own plate", ME), ("your plate", ME),
        ("yourself", ME),
    )}
_SUBJECT_MAX = max(len(words) for words in _SUBJECTS)
# "... your partner has it", "you do not have its recipe": my dish's recipe is someone else's.
_RECIPE_ELSEWHERE = re.compile(r"\b(?:partner|teammate|agent \d+|the other agent|they)\s+(?:has|have|holds?|knows?)\b|"
                               r"\bdo(?:n't| not) (?:have|hold|know) (?:the|its|your|that|this) recipe", re.I)
_MY_NUMBER = re.compile(r"\byou are agent (\d+)", re.I)
_NOBODY = frozenset({"nobody", "noone", "none"})
_CONSTRUCTION_WORDS = frozenset({"blueprint", "house", "structure", "building"})


@dataclass
class TaskGoal:
    """A task goal as read from its text: the kind, the targets and the kind's special facts."""

    kind: str                                   # crafting, cooking, construction, coblock, unknown
    targets: dict[str, int] = field(default_factory=dict)
    missing_items: list[str] = field(default_factory=list)  # crafting: base items nobody holds
    hells_kitchen: bool = False
    my_index: int | None = None                 # Hell's Kitchen: my agent number, when the goal says it
    partner_dish: str | None = None             # Hell's Kitchen: the dish whose recipe I hold
    partner_index: int | None = None            # ...and the number of the agent who makes it, when given
    recipes: dict[str, list[str]] = field(default_factory=dict)  # recipe texts the goal shows
    blocks: list[coblock.GoalBlock] = field(default_factory=list)  # coblock: my blocks (x, y, z, name)
    held: dict[str, int] = field(default_factory=dict)  # coblock: what the goal says I hold at the start
    world_made: list[str] = field(default_factory=list)  # cooking: items nobody holds that the kitchen makes

    @property
    def target_text(self) -> str:
        return ", ".join(f"{n} {item}" if n > 1 else item for item, n in self.targets.items())


# ---- vocabulary -----------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    from ..mcdata import minecraft_data

    return frozenset(minecraft_data().items_by_name) - {"air"}


@lru_cache(maxsize=1)
def _longest_name() -> int:
    return max(name.count("_") + 1 for name in _names())


@lru_cache(maxsize=65536)
def _item(words: tuple[str, ...]) -> str | None:
    """The item some words name, as they are or as the plural or singular of a name (commands.names' spellings);
    the exact name first."""
    name = "_".join(words)
    names = _names()
    if name in names:
        return name
    return next((form for form in _forms(name) if form in names), None)


def item_name(text: str) -> str | None:
    """The item a phrase names ("golden apple", "gold_ingots"), or None."""
    return _item(tuple(tokens_of(text)))


# ---- reading ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    item: str


@dataclass
class _Duty:
    """Items someone must make, read from one verb."""

    role: str
    items: dict[str, int]
    verb: str
    index: int | None = None   # "agent 2 must make": the agent's number


def tokens_of(text: str) -> list[str]:
    """Lower-case words, numbers and punctuation; underscores read as spaces."""
    return _TOKEN.findall(text.lower().replace("_", " "))


def _sentences(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for token in tokens:
        if token in _SENTENCE_END:
            if out[-1]:
                out.append([])
        else:
            out[-1].append(token)
    return [s for s in out if s]


def _mentions(words: list[str]) -> list[_Mention]:
    """Known item names in a sentence, longest first, left to right."""
    out: list[_Mention] = []
    i = 0
    while i < len(words):
        for size in range(min(_longest_name(), len(words) - i), 0, -1):
            item = _item(tuple(words[i:i + size]))
            if item:
                out.append(_Mention(i, i + size, item))
                i += size
                break
        else:
            i += 1
    return out


def _count_before(words: list[str], i: int) -> tuple[int, int | None]:
    """(where the item starts, its count) for "2 bread", "a bread", "2x bread"; the count is None when absent."""
    if i < len(words):
        word = words[i]
        if word.isdigit():
            return i + 1, int(word)
        if _TIMES_BEFORE.fullmatch(word):
            return i + 1, int(word[:-1])
        if word in _NUMBERS:
            after = 2 if i + 1 < len(words) and words[i + 1] == "single" else 1  # "a single cake"
            return i + after, _NUMBERS[word]
    return i, None


def _count_after(words: list[str], i: int) -> tuple[int, int | None]:
    """(where the list goes on, the count) for "bread x1", "bread x 2", "bread (x2)"."""
    j = i + 1 if i < len(words) and words[i] == "(" else i
    count = None
    if j < len(words) and _TIMES_AFTER.fullmatch(words[j]):
        count, j = int(words[j][1:]), j + 1
    elif j + 1 < len(words) and words[j] in ("x", "×") and words[j + 1].isdigit():
        count, j = int(words[j + 1]), j + 2
    if count is None:
        return i, None
    if j < len(words) and words[j] == ")":
        j += 1
    return j, count


def _item_list(words: list[str], i: int, mentions: list[_Mention]) -> dict[str, int]:
    """The items listed from position i: "1 golden apple, 1 bread", "cake and bread", "bread x2 & cake"."""
    at = {m.start: m for m in mentions}
    items: dict[str, int] = {}
    while True:
        start, before = _count_before(words, i)
        mention = at.get(start)
        if mention is None:
            return items
        end, after = _count_after(words, mention.end)
        items[mention.item] = items.get(mention.item, 0) + (before or after or 1)
        i = end
        while i < len(words) and words[i] in _LIST_JOINERS:
            i += 1


def _subjects(words: list[str], end: int) -> list[tuple[int, str, int | None]]:
    """(where it ends, role, agent number) of every subject phrase before `end`, the longest phrase at a place
    first ("agents around you" is the team's, not "you")."""
    found: list[tuple[int, str, int | None]] = []
    i = 0
    while i < end:
        if words[i] == "agent" and i + 1 < end and words[i + 1].isdigit():
            role = ME if words[max(0, i - 2):i] == ["you", "are"] else PARTNER  # "you are agent 1"
            found.append((i + 2, role, int(words[i + 1])))
            i += 2
            continue
        for size in range(min(_SUBJECT_MAX, end - i), 0, -1):
            phrase_role = _SUBJECTS.get(tuple(words[i:i + size]))
            if phrase_role:
                found.append((i + size, phrase_role, None))
                i += size
                break
        else:
            i += 1
    return found


def _clause_start(words: list[str], verb: int) -> int:
    """Where the verb's clause starts: after the last comma or "but" before it."""
    for i in range(verb - 1, -1, -1):
        if words[i] in _CLAUSE_BREAKS:
            return i + 1
    return 0


def _who(words: list[str], verb: int) -> tuple[str, int | None] | None:
    """Who must do the verb: the subject nearest before it, in its clause first; None when the words between
    say knowing, helping or not doing. No subject: an imperative, the team's."""
    start = _clause_start(words, verb)
    subjects = _subjects(words, verb)
    near = [s for s in subjects if s[0] > start] or subjects
    if not near:
        return None if _NOT_A_DUTY & set(words[:verb]) else (TEAM, None)
    end, role, index = near[-1]
    if _NOT_A_DUTY & set(words[end:verb]):
        return None
    return role, index


def _duties(words: list[str]) -> Iterator[_Duty]:
    """Every "someone must make these items" the sentence says."""
    mentions = _mentions(words)
    inside = {k for m in mentions for k in range(m.start, m.end)}  # "cooked" in "cooked beef" is no verb
    for v, word in enumerate(words):
        if word in _PARTICIPLES and v not in inside and _BE & set(words[max(0, v - 2):v]):
            passive = _passive(words, v, mentions)
            if passive is not None:
                yield passive
            continue
        is_dish = word in _DISH_WORDS  # "your dish is bread", "bread is your dish"
        if word not in _CRAFT_VERBS and word not in _COOK_VERBS and not is_dish:
            continue
        if not is_dish:
            items = _item_list(words, v + 1, mentions)
        elif v + 1 < len(words) and words[v + 1] in _LINKS:
            items = _item_list(words, v + 2, mentions)
        else:
            items = {}
        if not items:
            items = _item_before(words, v, mentions, _LINKS if is_dish else _RELATIVE)
        who = _who(words, v + 1 if is_dish else v)  # "your dish" is itself the subject
        if word in _HEAT_VERBS:  # "cook 1 beef": the beef cooked
            items = {_COOKED.get(item, item): n for item, n in items.items()}
        if items and who is not None:
            yield _Duty(who[0], items, word, who[1])


def _passive(words: list[str], v: int, mentions: list[_Mention]) -> _Duty | None:
    """ "bread and a cake must be made by you": the items listed before the participle, made by whoever "by"
    names (the team when nobody is named)."""
    for i in range(v):  # from the sentence's start: the list may hold commas
        items = _item_list(words, i, [m for m in mentions if m.end <= v])
        if items:
            break
    else:
        return None
    after = words[v + 1:]
    who: tuple[str, int | None] = (TEAM, None)
    if after[:1] == ["by"]:
        subjects = _subjects(after, min(len(after), 4))
        if subjects:
            who = (subjects[0][1], subjects[0][2])
    if words[v] in ("cooked", "baked"):
        items = {_COOKED.get(item, item): n for item, n in items.items()}
    verb = "craft" if words[v] in ("crafted", "built") else "make"
    return _Duty(who[0], items, verb, who[1])


def _item_before(words: list[str], v: int, mentions: list[_Mention], links: frozenset[str]) -> dict[str, int]:
    """The item the verb's object refers back to: "the recipe for bread, which agent 1 must make"."""
    before = [m for m in mentions if m.end <= v]
    if not before or not links & set(words[before[-1].end:v]):
        return {}
    return {before[-1].item: 1}


def _recipes(text: str) -> tuple[dict[str, list[str]], str]:
    """The recipes a goal shows, and the goal's text without them."""
    recipes: dict[str, list[str]] = {}
    for m in _RECIPE.finditer(text):
        name = item_name(m.group(1)) or m.group(1).strip().replace(" ", "_")
        recipes[name] = _steps(m.group(2))
    return recipes, _RECIPE.sub("\n", text)


def _steps(body: str) -> list[str]:
    """A recipe's steps without their "Step n:" prefix, from "Step n: ..." lines or a Python list of them."""
    body = body.strip()
    lines = body.splitlines()
    if body.startswith("["):
        try:
            parsed = ast.literal_eval(body)
        except (ValueError, SyntaxError):
            parsed = re.findall(r"'([^']*)'", body)
        lines = [str(s) for s in parsed] if isinstance(parsed, list) else []
    return [_STEP_PREFIX.sub("", line).strip() for line in lines if line.strip()]


def _merge(duties: list[_Duty], role: str | None = None) -> dict[str, int]:
    """The items the duties of `role` (of anyone: None) name, each with its largest count."""
    out: dict[str, int] = {}
    for duty in duties:
        if role is None or duty.role == role:
            for item, n in duty.items.items():
                out[item] = max(out.get(item, 0), n)
    return out


def _is_food(item: str) -> bool:
    from ..mcdata import minecraft_data

    return item in cooking.CRAFTED or item in cooking.SMELTED or item in minecraft_data().foods_by_name


def _missing(sentences: list[list[str]], targets: dict[str, int]) -> list[str]:
    """Items a sentence says nobody has ("Nobody has the oak_log it takes")."""
    out: list[str] = []
    for words in sentences:
        if _NOBODY & set(words) or "no one" in " ".join(words):
            out += [m.item for m in _mentions(words) if m.item not in targets and m.item not in out]
    return out


_PLACING = re.compile(r"\b(?:place|build|put|blocks)\b", re.I)  # a CoBlock goal asks to place blocks


def parse_goal(goal: str) -> TaskGoal:
    """Read a task goal's text (see the module doc); kind "unknown" when it names nothing to make."""
    text = TEAM_SENTENCE.sub(" ", goal or "").strip()
    blocks = coblock.read_goal_blocks(text)
    if blocks and (len(blocks) > 1 or _PLACING.search(text)):  # not "the oak_log at (10, 64, 3)" in another goal
        return TaskGoal("coblock", blocks=blocks, held=coblock.read_held(text))
    recipes, prose = _recipes(text)
    for pattern, meaning in _PHRASES:
        prose = pattern.sub(meaning, prose)
    sentences = _sentences(tokens_of(prose))
    duties = [d for words in sentences for d in _duties(words)]
    me = _MY_NUMBER.search(prose)
    my_index = int(me.group(1)) if me else None
    for duty in duties:
        if duty.index is not None and duty.index == my_index:  # "agent 0 must make cake ... you are agent 0"
            duty.role = ME
    mine, partner, team = _merge(duties, ME), _merge(duties, PARTNER), _merge(duties, TEAM)
    words = {w for s in sentences for w in s}
    if "blueprint" in words or (not duties and _CONSTRUCTION_WORDS & words):
        return TaskGoal("construction", recipes=recipes)
    if _hells_kitchen(mine, partner, team, prose):
        return _hells_goal(mine, partner, duties, recipes, my_index)
    targets = _merge(duties)  # one goal for the team: what anyone must make ("make X, let the other agent cook Y")
    if not targets:
        return TaskGoal("unknown", recipes=recipes)
    crafted = any(d.verb in _CRAFT_VERBS for d in duties)
    kind = "crafting" if crafted or not all(_is_food(t) for t in targets) else "cooking"
    missing = _missing(sentences, targets) if kind == "crafting" else []
    return TaskGoal(kind, targets, missing_items=missing, recipes=recipes)


def _hells_kitchen(mine: dict[str, int], partner: dict[str, int], team: dict[str, int], prose: str) -> bool:
    """One dish each: mine and a partner's named apart, or mine whose recipe someone else holds."""
    if not mine:
        return False
    if partner and not set(partner) & set(mine):
        return True
    return not team and bool(_RECIPE_ELSEWHERE.search(prose))


def _hells_goal(mine: dict[str, int], partner: dict[str, int], duties: list[_Duty],
                recipes: dict[str, list[str]], my_index: int | None) -> TaskGoal:
    partner_dish = next((d for d in partner if d not in mine), None)
    if partner_dish is None:
        others = [r for r in recipes if r not in mine]
        partner_dish = others[0] if len(others) == 1 else None  # the recipe I hold is the partner's
    index = next((d.index for d in duties if d.role == PARTNER and d.index is not None and partner_dish in d.items),
                 None)
    return TaskGoal("cooking", dict(mine), hells_kitchen=True, my_index=my_index, partner_dish=partner_dish,
                    partner_index=index, recipes=recipes)


# ---- from the task's fields -------------------------------------------------------------------------------------
_KINDS = ("crafting", "cooking")  # the families whose fields this reads


def field_targets(fields: dict) -> dict[str, int]:
    """Every target item -> its count, from `target` and `number_of_target` as MINDcraft reads them (a {item:
    count} target as is; otherwise number_of_target, one number for all or one per item; default 1). Names with
    spaces or plurals are read as item names; {} when the fields name no known item."""
    target = fields.get("target")
    counts = fields.get("number_of_target")
    if isinstance(target, dict):
        named = [(str(k), v) for k, v in target.items()]
    elif isinstance(target, str | list):
        names = [target] if isinstance(target, str) else [str(t) for t in target]
        named = [(n, counts.get(n, 1) if isinstance(counts, dict) else (1 if counts is None else counts))
                 for n in names]
    else:
        return {}
    out: dict[str, int] = {}
    for name, count in named:
        item = item_name(name)
        if item is None or not isinstance(count, int) or isinstance(count, bool) or count < 1:
            return {}
        out[item] = out.get(item, 0) + count
    return out


def _held_by_team(fields: dict) -> set[str]:
    inventories = fields.get("initial_inventory") or {}
    if not isinstance(inventories, dict):
        return set()
    if inventories and all(isinstance(v, int) for v in inventories.values()):  # one flat inventory
        return {k for k, v in inventories.items() if v > 0}
    return {k for inv in inventories.values() if isinstance(inv, dict) for k, v in inv.items() if v > 0}


def goal_from_fields(fields: dict | None, agent_index: int | None, text: str = "") -> TaskGoal | None:
    """The goal a MineCollab task states in its fields (crafting: `target`, `number_of_target`, `missing_items`;
    cooking: `target`, `recipes`, and in Hell's Kitchen one target per agent in agent order), the goal's text
    (`text`) filling in only what the fields leave out. None when the fields state no crafting or cooking target:
    the text is read instead (`parse_goal`)."""
    if not fields:
        return None
    kind = canonical_name(str(fields.get("type", "")))  # "techtree" is crafting
    targets = field_targets(fields)
    if kind not in _KINDS or not targets:
        return None
    read = parse_goal(text) if text else TaskGoal("unknown")
    recipes = {item_name(k) or k: [str(s) for s in v] for k, v in (fields.get("recipes") or {}).items()
               if isinstance(v, list)} if isinstance(fields.get("recipes"), dict) else {}
    recipes = {**recipes, **read.recipes}  # the recipe texts the agent was shown come first
    if kind == "crafting":
        missing = fields.get("missing_items")
        if isinstance(missing, list):
            missing_items = [item_name(str(m)) or str(m) for m in missing]
        else:
            missing_items = read.missing_items
        return TaskGoal("crafting", targets, missing_items=missing_items, recipes=recipes)
    dishes_need = set().union(*(cooking.ingredients(d) for d in targets))
    world_made = sorted(i for i in cooking.world_made() if i in dishes_need and i not in _held_by_team(fields))
    target = fields.get("target")
    # the cooking family's rule (Task.is_hells_kitchen, told in the context); by it, when the fields do not say
    per_agent = bool(fields["hells_kitchen"]) if "hells_kitchen" in fields else \
        isinstance(target, list) and "hells_kitchen" in str(fields.get("task_id", ""))
    if not per_agent or agent_index is None:
        return TaskGoal("cooking", targets, recipes=recipes, world_made=world_made)
    dishes = list(targets)
    if agent_index >= len(dishes):
        return TaskGoal("cooking", {}, hells_kitchen=True, my_index=agent_index, recipes=recipes,
                        world_made=world_made)
    mine = dishes[agent_index]
    shown = [d for d in read.recipes if d != mine and d in targets]  # the partner's recipe my goal shows
    partner_dish = shown[0] if shown else (dishes[(agent_index + 1) % len(dishes)] if len(dishes) > 1 else None)
    if partner_dish == mine:
        partner_dish = None
    return TaskGoal("cooking", {mine: targets[mine]}, hells_kitchen=True, my_index=agent_index,
                    partner_dish=partner_dish,
                    partner_index=dishes.index(partner_dish) if partner_dish is not None else None,
                    recipes=recipes, world_made=world_made)

