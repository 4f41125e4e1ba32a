"""CoBlock tasks for the oracle: reading a private goal, the prompt's list of built blocks, partners' requests and
the answers of the coblock commands, and choosing the next block to place (mindpy.commands.coblock has the
commands, mindpy.tasks.families.coblock.generator the goals, mindpy.prompts.coblock the list of built blocks).

An agent knows its own goal (its blocks, not its partner's), its inventory, what its commands answered and, in
CoBlock's own prompt, every block built so far. `Site` keeps what these taught it: which cells hold which block
and which of its cells were refused as floating, and the partner's cells it promised to place. It plans bottom up:
a wrong block in one of its cells is broken first; then a cell that rests on the ground or on a block known to be
there. Without the list of built blocks it cannot see the partner's blocks, so when nothing else is left it tries a
cell that may rest on them, as a probe; a "would float" refusal parks that cell until there is news (a partner's
message, items received) or some waits have passed.

Colours: as in the paper, blocks cannot be handed over in CoBlock's prompt (!givePlayer is blocked), so an agent
that lacks a colour asks its partner to place those cells ("I hold no yellow_wool: please place these for me:
yellow_wool at (100, -60, -98)."), and the partner promises the cells its spare blocks cover (`placement_request`,
`Site.promise`). Where giving is allowed, the player asks for the items instead (mindpy.tasks.families.coblock.oracle).

Workload: an agent whose part is done offers to help, naming the colours it holds ("My goal is done ... I hold
blue_wool and green_wool: tell me which of your blocks to place."). The partner hands over half of what is left
to it in those colours (`Site.hand_over`, asked for as above) and takes them back if they are refused or nothing
comes of them for a while (`Site.reclaim`), so the team's split approaches the balanced one γ measures.

The prompt's XML state (CoBlock's paper setting, mindpy.prompts.coblock) is read too, tolerantly (tag and attribute
names in other cases, attributes in either order, quoted or not): my goal from <Motives>, the built blocks from
<World>, what I hold from <Inventory>; the older "Structure built so far:" list still works.

Goal wordings read (tolerant: "<block> at (x, y, z)", "(x, y, z): <block>", "x: 1, y: -60, z: 3", spaces for
underscores; what the agent holds after "You hold"/"You have"):
    "Build your part of a structure of coloured wool together with your partner. Place exactly these 2 blocks,
    bottom up: yellow_wool at (100, -60, -98), orange_wool at (101, -60, -98). ... You hold 1 orange_wool and 1
    yellow_wool."
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from ..commands.coblock import GROUND_Y
from ..tasks.families.coblock.generator import neighbours
from .cooking import Move

Cell = tuple[int, int, int]
GoalBlock = tuple[int, int, int, str]

FLOAT_RETRY_WAITS = 3   # waits before a cell refused as floating is tried again (news retries it at once)
PROBES_IN_A_ROW = 3     # floating refusals in a row before waiting for the partner
MOST_FAILURES = 3       # other failures at one cell before it is left for a while, like a floating one
NEVER = 10 ** 9         # waits for a cell that can never be placed (outside the site)
HANDED_PATIENCE = 6     # waits without a handed-over cell being placed before I take them all back

_NUM = r"(-?\d+)"
_TRIPLE = re.compile(rf"\(\s*{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}\s*\)|\[\s*{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}\s*\]|"
                     rf"\bx\s*[:=]\s*{_NUM}\s*,?\s*y\s*[:=]\s*{_NUM}\s*,?\s*z\s*[:=]\s*{_NUM}", re.I)
_LEAD_IN = re.compile(r"(?:[\s:=@,>–-]|\b(?:at|on|in|is|gets|blocks?)\b)*$", re.I)   # "red_wool at", "wool blocks:"
_LEAD_OUT = re.compile(r"^(?:[\s:=@,>–-]|\b(?:is|gets|holds|a|an)\b)*", re.I)        # ": red wool", "-> a red_wool"
_HELD = re.compile(r"\bYou (?:hold|have|carry)\b(?: in your inventory)?:?\s*([^.]*)", re.I)
_COUNTED = re.compile(r"(\d+)\s*(?:x\s+)?([A-Za-z][A-Za-z_]*(?: [A-Za-z][A-Za-z_]*){0,2})")

# answers of the coblock commands and of the place skill (mindpy.commands.coblock, skills/js/gathering.js)
_AT = rf"\(\s*{_NUM},\s*{_NUM},\s*{_NUM}\s*\)"
_XYZ = rf"\(?\s*(?:x:\s*)?{_NUM},\s*(?:y:\s*)?{_NUM},\s*(?:z:\s*)?{_NUM}\s*\)?"  # "x: 1, y: 2, z: 3" or "(1, 2, 3)"
_COMPLETE = re.compile(r"Your goal is complete\b")
_NOT_COMPLETE = re.compile(r"Your goal is not complete: (\d+) of (\d+)")
_MISSING_LINE = re.compile(rf"^-\s*([a-z0-9_]+) at {_AT}\s*$")
_WRONG_LINE = re.compile(rf"^-\s*{_AT} has ([a-z0-9_]+) instead of ([a-z0-9_]+)")
_UNSEEN_LINE = re.compile(rf"^-\s*([a-z0-9_]+) at {_AT}: too far")
_MORE = re.compile(r"^\.\.\. and (\d+) more")
_PLACED = re.compile(rf"Placed ([a-z0-9_]+) at {_XYZ}")
_ALREADY = re.compile(rf"([a-z0-9_]+) is already at {_XYZ}")
_TAKEN = re.compile(rf"The cell {_AT} is taken by ([a-z0-9_]+)")
_THERE_ALREADY = re.compile(rf"There is already ([a-z0-9_]+) at {_XYZ}")
_FLOATS = re.compile(rf"A block at {_AT} would float")
_NOTHING_AGAINST = re.compile(rf"Nothing to place [a-z0-9_]+ against at {_XYZ}")
_BROKE = re.compile(rf"Broke the ([a-z0-9_]+) at {_AT}")
_NO_BLOCK = re.compile(rf"There is no block at {_AT}")
_TOO_FAR = re.compile(rf"You cannot see {_AT} from here")
_OUTSIDE = re.compile(rf"{_AT} is outside the construction site")
_PLACE_COMMAND = re.compile(rf"!placeBlock\(\s*[\"']?([a-z0-9_]+)[\"']?\s*,\s*{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}\s*\)")
# the answers that say what became of a cell: (pattern, group of its x); anything else about a !placeBlock failed
_ABOUT_A_CELL = ((_PLACED, 2), (_ALREADY, 2), (_TAKEN, 1), (_THERE_ALREADY, 2), (_FLOATS, 1), (_NOTHING_AGAINST, 1),
                 (_TOO_FAR, 1), (_OUTSIDE, 1))
# the prompt's list of built blocks (mindpy.prompts.coblock.structure_lines)
STRUCTURE_HEAD = "Structure built so far:"
_BUILT_LINE = re.compile(rf"^([a-z0-9_]+) at {_AT}$")
_MORE_BUILT = re.compile(r"^\.\.\.\s*and \d+ more")
# a partner asking me to place blocks for it
_ASKS_TO_PLACE = re.compile(r"\b(?:please|can you|could you|would you|will you|need you to)\b[^.?!]*?\b(?:place|put|"
                            r"build|set)\b|\b(?:place|put|build|set)\b[^?!]*?\bfor me\b|"
                            r"(?:^|[.!?]\s+)(?:place|put)\b|\bI (?:still )?need\b[^.?!]*\bat\s*[(\[]", re.I)

# a partner saying its own part is built (not asking, not denying)
_PARTNER_DONE = re.compile(r"\b(?:goal|part|blocks?|structure|side|half|share)\b[^.!?]{0,40}?\b(?:done|complete|"
                           r"completed|finished|built|placed|in place)\b|\b(?:finished|completed|done with|built)\b"
                           r"[^.!?]{0,20}\b(?:goal|part|blocks|structure|side|half|share)\b|"
                           r"^\W*(?:I'?m |I am )?(?:all )?(?:done|finished)\b", re.I)
_NEGATED = re.compile(r"\b(?:not|n't|yet|almost|nearly|still|until|when|once|if)\b", re.I)
# a partner offering to place some of my blocks ("tell me which of your blocks to place", "what should we do next?")
_OFFERS_HELP = re.compile(r"\b(?:tell me (?:which|what|where)|which of your blocks|what (?:should|can|shall) (?:I|we) "
                          r"(?:do|place|build)|(?:can|could|shall|may) I help|I can (?:help|place|build|take)|"
                          r"(?:let me|I'?ll|I will|I could) (?:help|take over|place some)|"
                          r"do you need (?:me|help|a hand)|need me to (?:place|build|help))\b", re.I)


# ---- reading names and goals ------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _block_names() -> frozenset[str]:
    from ..mcdata import minecraft_data

    return frozenset(minecraft_data().blocks_by_name)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower().replace("_", " "))


def block_name(words: str) -> str | None:
    """The block some words end with ("yellow_wool", "the Yellow Wool", "blocks of red wool"), or None."""
    parts = _words(words)
    names = _block_names()
    for size in (3, 2, 1):
        if len(parts) >= size:
            name = "_".join(parts[-size:])
            for form in (name, name[:-1] if name.endswith("s") else name):
                if form in names and form != "air":
                    return form
    return None


def leading_block(words: str) -> str | None:
    """The block some words start with ("red wool, then ...", "orange_wool and"), or None."""
    parts = _words(words)
    for size in (3, 2, 1):
        if len(parts) >= size:
            name = block_name(" ".join(parts[:size]))
            if name and name.endswith(parts[size - 1].rstrip("s")):
                return name
    return None


def read_goal_blocks(text: str) -> list[GoalBlock]:
    """The blocks a goal asks to place: each coordinate triple with the block named right before it ("red_wool at
    (1, -60, 2)") or, when the first triple has none before it, right after it ("(1, -60, 2): red wool"); in the
    order written; [] when the text names none."""
    text = text or ""
    triples = list(_TRIPLE.finditer(text))
    after = bool(triples) and _name_before(text, triples[0].start()) is None
    out: list[GoalBlock] = []
    for m in triples:
        name = _name_after(text, m.end()) if after else _name_before(text, m.start())
        if name is not None:
            x, y, z = (int(n) for n in m.groups() if n is not None)
            out.append((x, y, z, name))
    return out


def _name_before(text: str, at: int) -> str | None:
    return block_name(_LEAD_IN.sub("", text[max(0, at - 40):at]))


def _name_after(text: str, at: int) -> str | None:
    return leading_block(_LEAD_OUT.sub("", text[at:at + 40]))


def read_held(text: str) -> dict[str, int]:
    """What the goal says the agent holds ("You hold 4 blue_wool, 3 green_wool and 1 yellow_wool.")."""
    m = _HELD.search(text or "")
    held: dict[str, int] = {}
    if m:
        for count, words in _COUNTED.findall(m.group(1)):
            name = leading_block(words)
            if name:
                held[name] = held.get(name, 0) + int(count)
    return held


def with_block_names(text: str) -> str:
    """The text with block names written as names ("2 blue wool" -> "2 blue_wool"), for the request reader."""
    def join(m: re.Match) -> str:
        words = m.group(0).split(" ")
        name = block_name(m.group(0))
        if name is None:
            return m.group(0)
        return " ".join(words[:-(name.count("_") + 1)] + [name])
    return re.sub(r"\b[a-z]+ (?:[a-z]+ )?(?:wool|concrete|terracotta|glass|planks)\b", join, text, flags=re.I)


def says_done(text: str) -> bool:
    """Whether a partner's message says its part is built ("My goal is done", "I finished my part")."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if sentence.rstrip().endswith("?"):
            continue
        m = _PARTNER_DONE.search(sentence)
        if m and not _NEGATED.search(sentence[:m.end()]) and not re.search(r"\byour\b", sentence[:m.end()], re.I):
            return True
    return False


def wants_answer(text: str) -> bool:
    """Whether a partner's message needs me now: it asks me to place blocks, says its part is built, or offers
    to help."""
    return bool(placement_request(text)) or says_done(text) or offered_colours(text) is not None


def offered_colours(text: str) -> set[str] | None:
    """The colours a partner offering to place some of my blocks names ("I hold blue_wool and green wool: tell me
    which of your blocks to place"); an empty set when it names none; None when the message offers no help."""
    if not _OFFERS_HELP.search(text):
        return None
    named = with_block_names(text).lower()
    return {name for word in re.findall(r"[a-z]+(?:_[a-z]+)+", named)
            if (name := block_name(word)) is not None and name == word}


def offering_text(done: int, colours: list[str]) -> str:
    """My part is done: an offer to place some of my partner's blocks in the colours I hold (offered_colours
    reads it)."""
    offer = f" {offer_sentence(colours)}" if colours else ""
    return f"My goal is done: all {done} of my blocks are in place.{offer}"


def waiting_offer_text(colours: list[str], left: int) -> str:
    """I have nothing to place until more is built: the same offer, while `left` blocks of my own are still to
    place (blocks_left reads it, so the partner hands over only what evens out our work)."""
    return f"I have nothing to place right now, with {left} of my blocks still to place. {offer_sentence(colours)}"


def blocks_left(text: str) -> int:
    """How many blocks of its own a partner offering help says it still has to place ("with 4 of my blocks still
    to place", "I have 3 blocks left"); 0 when it says none."""
    m = re.search(r"\b(\d+) (?:of my |more )?blocks? (?:still |left )?(?:to place|left)\b", text, re.I)
    return int(m.group(1)) if m else 0


def offer_sentence(colours: list[str]) -> str:
    """The offer itself: "I hold blue_wool and red_wool: tell me which of your blocks to place."."""
    held = " and ".join([", ".join(colours[:-1]), colours[-1]] if len(colours) > 1 else colours)
    return f"I hold {held}: tell me which of your blocks to place."


def handover_text(cells: list[GoalBlock]) -> str:
    """Blocks of my goal I hand over to a partner who offered help (placement_request reads it)."""
    where = ", ".join(f"{b} at ({x}, {y}, {z})" for x, y, z, b in cells)
    return f"Thanks! Please place these for me: {where}."


def placement_request(text: str) -> list[GoalBlock]:
    """The blocks a partner asks me to place for it ("please place these for me: red_wool at (1, -60, 2)"), or
    [] when the message asks no such thing."""
    return read_goal_blocks(text) if _ASKS_TO_PLACE.search(text) else []


def _xml_section(text: str, tag: str) -> str | None:
    """The inside of the last <tag ...> ... </tag> of `text` (case-insensitive; an unclosed one runs to the next
    section's opening tag or the end); None when there is none."""
    opens = list(re.finditer(rf"<\s*{tag}\b[^>]*?(/?)>", text, re.I))
    if not opens:
        return None
    start = opens[-1]
    if start.group(1):  # <World/>: empty
        return ""
    rest = text[start.end():]
    close = re.search(rf"<\s*/\s*{tag}\s*>", rest, re.I)
    if close:
        return rest[:close.start()]
    nxt = re.search(r"<\s*(?:Motives|World|Inventory|Dialogue|ActionHistory|/Input)\b", rest, re.I)
    return rest[:nxt.start()] if nxt else rest


_TAG = re.compile(r"<\s*block\b([^>]*)>", re.I)
_ATTR_TYPE = re.compile(r"\b(?:block_type|blockType|type|block|color|colour)\s*=\s*[\"']?([A-Za-z_ ]+?)[\"']?"
                        r"(?=[\s,/>]|$)", re.I)
_ATTR_COUNT = re.compile(r"\bcount\s*=\s*[\"']?(\d+)", re.I)
_ATTR_POS = re.compile(rf"\bpos(?:ition)?\s*=\s*[\"']?\s*[(\[]\s*{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}\s*[)\]]", re.I)
_ATTR_XYZ = re.compile(rf"\bx\s*=\s*[\"']?{_NUM}[\"']?[\s,]+y\s*=\s*[\"']?{_NUM}[\"']?[\s,]+z\s*=\s*[\"']?{_NUM}", re.I)


def _tag_block(attrs: str) -> str | None:
    m = _ATTR_TYPE.search(attrs)
    return block_name(m.group(1)) if m else None


def read_xml_blocks(section: str) -> list[GoalBlock]:
    """The <block block_type="red_wool" pos="(1, -60, 2)"/> tags of an XML section, in order (the attributes in
    either order, quoted or not, pos=(x, y, z) or x=, y=, z=); when it has no such tag, the blocks its words
    name ("red_wool at (1, -60, 2)")."""
    out: list[GoalBlock] = []
    for tag in _TAG.finditer(section):
        attrs = tag.group(1)
        block = _tag_block(attrs)
        where = _ATTR_POS.search(attrs) or _ATTR_XYZ.search(attrs)
        if block and where:
            x, y, z = (int(n) for n in where.groups())
            out.append((x, y, z, block))
    return out if out or _TAG.search(section) else read_goal_blocks(section)


def read_motives(text: str) -> list[GoalBlock]:
    """My goal's blocks as the prompt's <Motives> lists them ([] when it has none)."""
    section = _xml_section(text, "Motives")
    return read_xml_blocks(section) if section else []


def motives_goal_text(text: str) -> str:
    """A goal sentence for the blocks of the prompt's <Motives> ("" when it has none), which parse_goal reads."""
    blocks = read_motives(text)
    if not blocks:
        return ""
    where = ", ".join(f"{b} at ({x}, {y}, {z})" for x, y, z, b in blocks)
    return f"Place these {len(blocks)} blocks of the structure: {where}."


def read_xml_inventory(text: str) -> dict[str, int] | None:
    """What the prompt's <Inventory> says I hold; None when it has none."""
    section = _xml_section(text, "Inventory")
    if section is None:
        return None
    held: dict[str, int] = {}
    for tag in _TAG.finditer(section):
        block, count = _tag_block(tag.group(1)), _ATTR_COUNT.search(tag.group(1))
        if block and count:
            held[block] = held.get(block, 0) + int(count.group(1))
    return held


def read_structure(state: str) -> tuple[dict[Cell, str], bool] | None:
    """The blocks the prompt shows built: its XML <World> (every block), else its "Structure built so far:" list,
    and whether that is all of them; None when the prompt has neither (or an empty list: the world could not be
    read)."""
    world = _xml_section(state, "World")
    if world is not None:
        if "could not be read" in world:
            return None
        return {(x, y, z): b for x, y, z, b in read_xml_blocks(world)}, True
    at = state.find(STRUCTURE_HEAD)
    if at < 0:
        return None
    lines = state[at + len(STRUCTURE_HEAD):].strip("\n").splitlines()
    built: dict[Cell, str] = {}
    for line in lines:
        line = line.strip()
        if line == "nothing built yet":
            return {}, True
        if _MORE_BUILT.match(line):
            return built, False
        m = _BUILT_LINE.match(line)
        if not m:
            break
        built[_cell(m, 2)] = m[1]
    return (built, True) if built else None


def asking_text(cells: list[GoalBlock], held: Mapping[str, int]) -> str:
    """A request that my partner place the blocks I cannot ("I hold no yellow_wool: please place these for me:
    yellow_wool at (100, -60, -98)."), which placement_request reads."""
    blocks = sorted({b for *_, b in cells})
    short = " and ".join(f"no {b}" if not held.get(b) else f"too few {b}" for b in blocks)
    where = ", ".join(f"{b} at ({x}, {y}, {z})" for x, y, z, b in cells)
    return f"I hold {short}: please place these for me: {where}."


# ---- reading command answers ------------------------------------------------------------------------------------
@dataclass
class GoalCheck:
    """A !checkGoal answer."""

    complete: bool
    in_place: int = 0
    missing: list[GoalBlock] = field(default_factory=list)
    wrong: list[tuple[Cell, str, str]] = field(default_factory=list)   # (cell, what is there, what should be)
    unseen: list[GoalBlock] = field(default_factory=list)
    hidden: int = 0                                                     # "... and N more"


def parse_goal_check(text: str) -> GoalCheck | None:
    """The !checkGoal answer in `text`, or None when there is none."""
    if _COMPLETE.search(text):
        return GoalCheck(True)
    head = _NOT_COMPLETE.search(text)
    if not head:
        return None
    check = GoalCheck(False, in_place=int(head.group(1)))
    for line in text[head.end():].splitlines():
        line = line.strip()
        if m := _UNSEEN_LINE.match(line):
            check.unseen.append((int(m[2]), int(m[3]), int(m[4]), m[1]))
        elif m := _MISSING_LINE.match(line):
            check.missing.append((int(m[2]), int(m[3]), int(m[4]), m[1]))
        elif m := _WRONG_LINE.match(line):
            check.wrong.append(((int(m[1]), int(m[2]), int(m[3])), m[4], m[5]))
        elif m := _MORE.match(line):
            check.hidden = int(m[1])
    return check


def _cell(m: re.Match, first: int = 1) -> Cell:
    return int(m[first]), int(m[first + 1]), int(m[first + 2])


# ---- the site as this agent knows it ------------------------------------------------------------------------------
@dataclass
class Site:
    """What an agent knows of the structure's cells, from its prompt and its commands' answers: my goal, the cells
    of my partner's goal I promised to place, and which cells hold which block."""

    goal: list[GoalBlock]
    promised: dict[Cell, str] = field(default_factory=dict)    # partner's cells I said I would place
    blocks: dict[Cell, str] = field(default_factory=dict)      # cells known to hold a block, and which
    parked: dict[Cell, int] = field(default_factory=dict)      # cells refused (floating...): waits left until retried
    refusals: Counter = field(default_factory=Counter)         # floating refusals per cell (rotates the probes)
    failures: Counter = field(default_factory=Counter)         # other failures per cell
    unseen: set[Cell] = field(default_factory=set)             # too far away to see at the last check
    probes: int = 0                                            # floating refusals since a success, news or retry
    checked: bool = False                                      # a !checkGoal answer was read
    confirmed: bool = False                                    # ...and it said complete, nothing changed since
    full_view: bool = False                                    # the prompt lists every built block: no probing
    handed: dict[Cell, str] = field(default_factory=dict)      # cells of my goal a partner agreed to place
    handed_waits: int = 0                                      # waits since a handed-over cell was last placed

    def __post_init__(self) -> None:
        self.want = {(x, y, z): block for x, y, z, block in self.goal}
        self.order = {(x, y, z): i for i, (x, y, z, _) in enumerate(self.goal)}

    # ---- learning ----
    def trust_view(self) -> None:
        """Without !checkGoal (CoBlock's paper setting) the prompt's whole list of built blocks is the check: my
        goal is checked, and confirmed when every block of it is in place."""
        if self.full_view:
            self.checked = True
            self.confirmed = all(self.in_place(c) for c in self.want)

    def see_structure(self, built: Mapping[Cell, str], whole: bool) -> None:
        """The prompt's list of built blocks; `whole`: it lists every block of the site (else only some)."""
        if whole:
            for cell in [c for c in self.blocks if c not in built]:
                self._clear(cell)
            self.full_view = True
        for cell, block in built.items():
            self._set(cell, block)

    def observe(self, text: str) -> None:
        """Take in one command answer (anything else is ignored)."""
        check = parse_goal_check(text)
        if check is not None:
            self._take_check(check)
        for m in _PLACED.finditer(text):
            self._set(_cell(m, 2), m[1])
            self.probes = 0
        for m in _ALREADY.finditer(text):
            self._set(_cell(m, 2), m[1])
        for m in _TAKEN.finditer(text):
            self._set(_cell(m), m[4])
        for m in _THERE_ALREADY.finditer(text):
            self._set(_cell(m, 2), m[1])
        for m in list(_FLOATS.finditer(text)) + list(_NOTHING_AGAINST.finditer(text)):
            cell = _cell(m)
            self.parked[cell] = FLOAT_RETRY_WAITS
            self.refusals[cell] += 1
            self.probes += 1
        for m in list(_BROKE.finditer(text)) + list(_NO_BLOCK.finditer(text)):
            self._clear(_cell(m, 2 if m.re is _BROKE else 1))
        for m in _TOO_FAR.finditer(text):
            self.unseen.add(_cell(m))
        for m in _OUTSIDE.finditer(text):
            self.parked[_cell(m)] = NEVER

    def attempted(self, command: str, outputs: list[str]) -> None:
        """My last command and what followed it: a !placeBlock whose answer says nothing about its cell (the walk
        there failed, say) counts as a failure at that cell, so that a cell out of reach is not tried forever."""
        m = _PLACE_COMMAND.search(command or "")
        if not m:
            return
        cell = _cell(m, 2)
        said = "\n".join(outputs)
        if outputs and not any(_cell(hit, first) == cell for pattern, first in _ABOUT_A_CELL
                               for hit in pattern.finditer(said)):
            self.failures[cell] += 1
            if self.failures[cell] >= MOST_FAILURES:
                self.parked[cell] = FLOAT_RETRY_WAITS

    def _take_check(self, check: GoalCheck) -> None:
        self.checked = True
        listed: set[Cell] = set()
        for x, y, z, _ in check.missing:
            self._clear((x, y, z))
            listed.add((x, y, z))
        for cell, have, _ in check.wrong:
            self._set(cell, have)
            listed.add(cell)
        self.unseen = {(x, y, z) for x, y, z, _ in check.unseen}
        listed |= self.unseen
        if check.complete or not check.hidden:  # every cell not listed is in place
            for cell in self.want:
                if cell not in listed:
                    self._set(cell, self.want[cell])
        self.confirmed = check.complete

    def _set(self, cell: Cell, block: str) -> None:
        if self.blocks.get(cell) != block and cell in self.want:
            self.confirmed = False
            if self.handed.get(cell) == block:
                self.handed_waits = 0  # my partner is placing what I handed over
        self.blocks[cell] = block
        self.parked.pop(cell, None)
        self.unseen.discard(cell)

    def _clear(self, cell: Cell) -> None:
        if cell in self.blocks and cell in self.want:
            self.confirmed = False
        self.blocks.pop(cell, None)

    def promise(self, cell: Cell, block: str) -> None:
        """I will place `block` at `cell` of my partner's goal."""
        if cell not in self.want:
            self.promised[cell] = block
            self.order.setdefault(cell, len(self.order))

    def hand_over(self, offered: set[str], inventory: Mapping[str, int], theirs: int = 0) -> list[GoalBlock]:
        """A partner with `theirs` blocks of its own left offers help in `offered` colours (any colour when
        empty): the cells of my goal to hand over, so that what is left splits evenly between us (half the
        difference between my work left and its own, which includes what I handed over before), the last ones
        bottom up, which I would reach last. They leave my own to-do list."""
        work = self.work_left(inventory)
        share = (work - max(theirs, len(self.handed_pending()))) // 2
        mine = [c for c in self.todo() if c in self.want and c not in self.blocks and inventory.get(self.want[c], 0)]
        fits = [c for c in mine if not offered or self.want[c] in offered]
        cells = fits[len(fits) - min(max(share, 0), len(fits)):] if share > 0 else []
        for cell in cells:
            self.handed[cell] = self.want[cell]
        self.handed_waits = 0
        return [(*c, self.want[c]) for c in cells]

    def reclaim(self, colours: set[str] | None = None) -> list[Cell]:
        """Take back handed-over cells not yet placed (of `colours`, or all): I place them myself after all."""
        back = [c for c, b in self.handed.items() if not self.in_place(c) and (colours is None or b in colours)]
        for cell in back:
            del self.handed[cell]
        return back

    def work_left(self, inventory: Mapping[str, int]) -> int:
        """The blocks still to place that are mine to place: empty cells of my goal and my promises in colours I
        hold (not those my partner places for me)."""
        return sum(1 for c in self.todo() if c not in self.blocks and inventory.get(self.target(c), 0) > 0)

    def handed_pending(self) -> list[Cell]:
        """Handed-over cells my partner has not placed yet, as far as I know."""
        return [c for c in self.handed if not self.in_place(c)]

    def news(self) -> None:
        """Something changed elsewhere (a partner spoke, items arrived): parked cells may be tried again."""
        self.parked = {cell: left for cell, left in self.parked.items() if left == NEVER}
        self.probes = 0

    def waited(self) -> None:
        """One wait has passed: cells parked long enough may be tried again, and so a few probes more; handed-over
        cells that nobody placed for HANDED_PATIENCE waits come back to me."""
        if self.handed_pending():
            self.handed_waits += 1
            if self.handed_waits >= HANDED_PATIENCE:
                self.reclaim()
        before = len(self.parked)
        self.parked = {cell: left - 1 for cell, left in self.parked.items() if left > 1}
        if len(self.parked) < before:
            self.probes = 0

    # ---- what is left ----
    def target(self, cell: Cell) -> str:
        return self.want.get(cell) or self.promised[cell]

    def in_place(self, cell: Cell) -> bool:
        return self.blocks.get(cell) == self.target(cell)

    def todo(self) -> list[Cell]:
        """The cells of my goal and of my promises not known to be right, bottom up; cells handed over to my
        partner are left out unless a wrong block is in one (breaking it stays my job)."""
        return sorted((c for c in [*self.want, *self.promised] if not self.in_place(c)
                       and (c not in self.handed or c in self.blocks)), key=self._rank)

    def _rank(self, cell: Cell) -> tuple[int, int]:
        return cell[1], self.order[cell]

    def need(self) -> dict[str, int]:
        """The blocks my goal and my promises still take, by name."""
        return dict(Counter(self.target(c) for c in self.todo()))

    def lacking(self, inventory: Mapping[str, int]) -> dict[str, int]:
        """The blocks my own goal still takes beyond what I hold (my promises come after my goal: see
        unkept_promises)."""
        own = Counter(self.want[c] for c in self.todo() if c in self.want)
        return {b: n - inventory.get(b, 0) for b, n in sorted(own.items()) if n > inventory.get(b, 0)}

    def unkept_promises(self, inventory: Mapping[str, int]) -> list[GoalBlock]:
        """Drop the promises my blocks no longer cover (blocks were lost, or my goal took them); returns them."""
        dropped: list[GoalBlock] = []
        for block, n in self.need().items():
            short = n - inventory.get(block, 0)
            cells = [c for c in self.todo() if self.promised.get(c) == block]
            for cell in cells[len(cells) - min(max(short, 0), len(cells)):]:
                del self.promised[cell]
                dropped.append((*cell, block))
        return dropped

    def lacking_cells(self, inventory: Mapping[str, int], blocks: set[str]) -> list[GoalBlock]:
        """For each of `blocks` I lack, the cells of my goal I cannot fill: the last ones, bottom up (I place the
        first ones with what I hold)."""
        out: list[GoalBlock] = []
        for block, short in self.lacking(inventory).items():
            if block in blocks:
                cells = [c for c in self.todo() if self.want.get(c) == block][-short:]
                out += [(x, y, z, block) for x, y, z in cells]
        return sorted(out, key=lambda b: self._rank(b[:3]))

    def mine_done(self) -> bool:
        """My goal confirmed complete by !checkGoal and my promises kept, as far as I know."""
        return self.confirmed and all(self.in_place(c) for c in self.promised)

    def believed_complete(self) -> bool:
        return not self.todo() and not self.handed_pending()

    def supported(self, cell: Cell) -> bool:
        """Whether the cell rests on the ground or on a block known to be there."""
        return cell[1] <= GROUND_Y or any(n in self.blocks for n in neighbours(cell))

    # ---- planning ----
    def next_move(self, inventory: Mapping[str, int]) -> Move | None:
        """The next command: break a wrong block in one of my cells, place a supported block, go and look at a
        cell too far to see, or (when the prompt does not show the whole structure) probe a cell that may rest on
        the partner's blocks; None when there is nothing to do but wait (for blocks, for support) or all is
        believed done."""
        todo = self.todo()
        wrong = [c for c in todo if c in self.blocks and c not in self.parked]
        if wrong:
            x, y, z = wrong[0]
            return Move(f"!breakBlock({x}, {y}, {z})",
                        f"The {self.blocks[wrong[0]]} at ({x}, {y}, {z}) is wrong: breaking it.")
        placeable = [c for c in todo if c not in self.blocks and inventory.get(self.target(c), 0) > 0
                     and c not in self.parked and c not in self.unseen]
        ready = [c for c in placeable if self.supported(c)]
        if ready:
            return self._place(ready[0], "Placing")
        unseen = sorted((c for c in self.unseen if c in self.want and not self.in_place(c)), key=self._rank)
        if unseen:
            x, y, z = unseen[0]
            self.unseen.discard(unseen[0])  # seen once there; a later refusal says so again
            return Move(f"!goToCoordinates({x}, {y + 1}, {z}, 3)", "Going nearer to see my blocks.")
        if placeable and not self.full_view and self.probes < PROBES_IN_A_ROW:
            probe = min(placeable, key=lambda c: (self.refusals[c], *self._rank(c)))
            return self._place(probe, "Trying")
        return None

    def _place(self, cell: Cell, verb: str) -> Move:
        x, y, z = cell
        block = self.target(cell)
        return Move(f'!placeBlock("{block}", {x}, {y}, {z})', f"{verb} {block} at ({x}, {y}, {z}).")
