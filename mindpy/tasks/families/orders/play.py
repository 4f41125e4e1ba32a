"""Play one orders episode (MindAgent's CuisineWorld in the cooking world): one dispatcher commands every cook,
a step at a time, while orders arrive and expire.

    result = run_orders_episode(task, "runs/x", model="oracle")     # the scripted dispatcher
    result["score"]            # the completion rate: completed / (completed + failed) orders
    result["orders"]           # {"level", "alpha", "completed", "failed", "created", "wasted", ...}

A step: the order book moves to the step (expiries, then the new order), the commands that ended since the last
step are read (their failures are the step's feedback), the farm and pasture are restocked, the dispatcher gets
the state (every cook's inventory, busy with which command or free, the stations, the serving chest, the open
orders with their deadlines) and answers with one command per free cook; the commands run, all cooks at once,
until each has ended or the step's cap (seconds) has passed. A command still running then keeps its cook busy
into the next steps. Last, the serving chest's checker takes out what was put in it: each dish completes the open
order of that dish with the earliest deadline, or is wasted.

People may cook beside the cooks, as in the paper's human study: a task's `human_count` and `usernames` reserve
player slots (mindpy.harness.humans, as for MineCollab's families). The episode waits for each person to join
(a line every 10 s, PLAYER_JOIN_WAIT_S at most, then EpisodeInfraError: not scored), gives them their slot's items
and brings them beside the serving chest. Each step they are whispered the open orders, the dispatcher is shown
what they hold (read from the server) but may not command them, and whatever they put in the serving chest serves
orders as a cook's dish does.

The run directory holds `result.json` (mindpy.tasks.results' fields, the score being the completion rate, plus
`orders`, `cos` and the order `events`), `dispatcher_calls.jsonl` (one line per step: the prompt, the reply,
the commands accepted and the problems found; SFT export reads it), `console.log` and the cooks' `bots/` folders.

The dispatcher: `model` "oracle" is the scripted earliest-deadline-first dispatcher (mindpy.dispatch.oracle),
"human:NAME" the player NAME giving the orders in chat (mindpy.dispatch.human; the episode waits for them to
join), any other spec a chat model, None the agents' default (the oracle without an API key); `models={"dispatcher":
model}` passes a ready one (tests). The cooks are agents whose own model never speaks: they run the dispatcher's
commands (mindpy.dispatch.cooks), with the modes that would walk them away on their own turned off.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, cast

from ....bridge.plain_chat import tell_commands
from ....dispatch import Decision, Dispatcher, DispatcherOptions, DispatchState, OpenOrder
from ....dispatch.cooks import CookCommands, feedback_lines, killed_animals
from ....dispatch.human import WAIT_S as PLAYER_WAIT_S
from ....dispatch.human import HumanDispatcher, human_player, orders_line
from ....dispatch.kitchen import KitchenView, command_name, dispatch_state
from ....dispatch.oracle import OracleDispatcher
from ....dispatch.steps import command_steps
from ....errors import ConfigError, MindpyError
from ....models.base import ChatModel
from ....models.budget import BUDGET_END_REASON, Budget
from ...checkers import ERROR, TIMEOUT
from ...family import family_of
from ...results import EpisodeRecorder
from ...schema import Task
from .book import MAX_OPEN, OrderBook, OrderStream
from .cos import completion_rate, cos, tally
from .fields import OPTIONS
from .world import KITCHEN_BLOCKS, ServingChest, restock_commands, set_up_orders

DISPATCHER_KEY = "dispatcher"  # the key of `models` that holds a ready dispatcher model
CALLS_FILE = "dispatcher_calls.jsonl"
STEPS_FILE = "steps.jsonl"  # a line per step in game time: events, busy cooks, commands (steps each), ended
CALL_KIND = "conversing"  # the dispatcher's calls are an orders episode's conversation (SFT export's default)
# Modes that would move a cook on its own: "unstuck" takes back-to-back crafts at one table for being stuck,
# "elbow_room" steps away from the cook beside it.
QUIET_MODES = ("unstuck", "elbow_room")
# Off during the set-up only: a cook walking to items left on a shared server's floor (an earlier episode's
# supplies) leaves the spot it was put on and holds more than it was given.
SETUP_QUIET_MODES = ("item_collecting",)
PLAYER_JOIN_WAIT_S = 300.0  # how long an episode waits for its dispatching player or person cooks to come online
JOIN_NOTE_EVERY_S = 10.0  # while waiting for a player, a line this often says whom for


CAPPED_OPEN = MAX_OPEN   # --orders-max-open: at most this many orders open at once
DISPATCHER_TEMPERATURE = 0.1  # the paper's, for a chat model dispatcher; a spec's own params.temperature wins
COMMAND_LIMIT_S = 300.0  # game steps: how long a step waits for a command due in it before going on without it
# With people cooking beside the cooks, a step lasts at least this long (the tasks' time per step): a person acts
# on the wall clock, and the steps of idle cooks would otherwise pass before they could serve a dish.
PERSON_STEP_S = 10.0


@dataclass(frozen=True)
class OrdersOptions:
    """How an orders episode is played. The paper's setting by default: discrete game steps (each command keeps
    its cook busy for the steps the workload model gives it, and a step ends once every command due in it has
    ended in the world, at most `command_limit_s` seconds), no cap on open orders, a demonstration with as many
    cooks as the team. Ours, named: `wall_clock` (commands run at once up to the step's cap in seconds,
    `step_cap_s`, None: the task's timeout shared out over its steps; a command still running keeps its cook busy
    into the next steps), `max_open` (an arrival that finds that many orders open is skipped and counts as
    failed). Also the dispatcher's prompt options, `max_steps` to play only the first steps (None: all), how
    long a step waits for a dispatching player's first line (`--model human:NAME`) and, with people cooking
    beside the cooks (the task's person slots), how long a step lasts at least (`person_step_s`)."""

    step_cap_s: float | None = None
    dispatcher: DispatcherOptions = field(default_factory=DispatcherOptions)
    max_steps: int | None = None
    player_wait_s: float = PLAYER_WAIT_S
    wall_clock: bool = False
    max_open: int | None = None
    command_limit_s: float = COMMAND_LIMIT_S
    person_step_s: float = PERSON_STEP_S

    def __post_init__(self) -> None:
        if not self.player_wait_s > 0:
            raise ValueError(f"player_wait_s must be more than 0 seconds, got {self.player_wait_s}")
        if self.step_cap_s is not None and not self.step_cap_s > 0:
            raise ValueError(f"step_cap_s must be more than 0 seconds, got {self.step_cap_s}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.max_open is not None and self.max_open < 1:
            raise ValueError(f"max_open must be at least 1 (None: no cap), got {self.max_open}")
        if not self.command_limit_s > 0:
            raise ValueError(f"command_limit_s must be more than 0 seconds, got {self.command_limit_s}")
        if not self.person_step_s >= 0:
            raise ValueError(f"person_step_s must be 0 seconds or more, got {self.person_step_s}")

    def with_switches(self, switches: dict[str, Any]) -> OrdersOptions:
        """These options with the episode switches of OPTIONS that `switches` turns on."""
        unknown = {key for key in switches if key.startswith("orders_")} - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown orders option(s) {sorted(unknown)}: the options are {', '.join(OPTIONS)}")
        chosen = self
        if switches.get("orders_wall_clock"):
            chosen = replace(chosen, wall_clock=True)
        if switches.get("orders_max_open"):
            chosen = replace(chosen, max_open=CAPPED_OPEN)
        if switches.get("orders_two_cook_demo"):
            chosen = replace(chosen, dispatcher=replace(chosen.dispatcher, demo_agents=2))
        return chosen

    def record(self) -> dict[str, Any]:
        """How the episode was played, for result.json's `orders_rules` (summary.json merges them)."""
        demo = self.dispatcher.demo_agents
        return {"clock": "wall_clock" if self.wall_clock else "game_steps",
                "step_cap_s": self.step_cap_s if self.wall_clock else None,
                "max_open": self.max_open, "skipped_count_as": "failed" if self.max_open else None,
                "demo_cooks": "team" if demo is None else demo, "demo": self.dispatcher.demo,
                "paper_setting": not (self.wall_clock or self.max_open or demo is not None)}


def make_dispatcher(task: Task, names: list[str], model: Any, models: dict[str, Any] | None,
                    options: DispatcherOptions, settings: Any = None,
                    player_wait_s: float = PLAYER_WAIT_S) -> Dispatcher:
    """A ready model from `models`, else the model `model` names (None: the agents' default model): the oracle is
    the scripted dispatcher, `human:NAME` the player NAME in chat, any other a chat model."""
    from ....agent.factory import default_model_spec
    from ....models import create_model, parse_model_spec

    dishes = list(task.fields.dishes)
    if models and DISPATCHER_KEY in models:
        return Dispatcher(models[DISPATCHER_KEY], options, names, dishes=dishes)
    spec = model if model is not None else default_model_spec()
    try:
        player = human_player(spec)
        if player is not None:
            return HumanDispatcher(player, options, names, dishes=dishes, wait_s=player_wait_s)
        if parse_model_spec(spec).api == "oracle":
            return OracleDispatcher(options, names, dishes=dishes)
        limits = {} if settings is None else settings.model_options()
        chat = create_model(with_temperature(spec), **limits)
    except (ValueError, MindpyError) as exc:
        raise ConfigError(f"the dispatcher's model {spec!r}: {exc}") from None
    return Dispatcher(chat, options, names, dishes=dishes)


def temperature_of(dispatcher: Dispatcher) -> float | None:
    """The sampling temperature of a chat model dispatcher (None: scripted, a player, or a model's default)."""
    if isinstance(dispatcher, (OracleDispatcher, HumanDispatcher)):
        return None
    value = getattr(dispatcher.model, "params", {}).get("temperature") if isinstance(
        getattr(dispatcher.model, "params", None), dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def with_temperature(spec: Any) -> Any:
    """The dispatcher's model spec at the paper's temperature 0.1, unless the spec sets its own
    ({"model": ..., "params": {"temperature": T}})."""
    from ....harness.ablations import Ablations

    return Ablations(temperature=DISPATCHER_TEMPERATURE).with_temperature(spec)


@dataclass(frozen=True)
class StepStart:
    """What a step's first half read (OrdersPlay.begin) and its second half needs: the dispatcher's state, the
    commands that ended, the inventories and busy cooks the state shows."""

    t: int
    began: float        # time.monotonic() at the step's start
    before: int         # events in the book before the step
    ended: list[Any]    # mindpy.dispatch.cooks.Ended
    inventories: dict[str, dict[str, int]]
    doing: dict[str, str]
    people: dict[str, dict[str, int]]
    state: DispatchState


@dataclass
class OrdersPlay:
    """The steps of one episode in a set-up kitchen: the book of orders, the dispatcher, the cooks running its
    commands and the serving chest's checker. `issue` sends the restocking commands; `calls` gets a line per
    step (the dispatcher's call), `steps_log` (when given) a line per step of what happened in game time. In
    game steps (`wall_clock` False) `cap_s` is how long a step waits for the commands due in it; on the wall clock
    it is the step's cap."""

    book: OrderBook
    dispatcher: Dispatcher
    cooks: CookCommands
    inventories: Callable[[], dict[str, dict[str, int]]]
    chest: ServingChest
    restock: Callable[[list[str]], None]
    cap_s: float
    calls: IO[str]
    wasted: dict[str, int] = field(default_factory=dict)
    replies_with_problems: int = 0
    wall_clock: bool = False
    steps_log: IO[str] | None = None
    held: dict[str, dict[str, int]] = field(default_factory=dict)  # a busy cook's inventory when it started
    overruns: int = 0  # game steps: commands still running in the world after their last step's wait
    people: Callable[[], dict[str, dict[str, int]]] = dict  # the person cooks' inventories, read now
    tell_people: Callable[[str], None] = lambda line: None  # whispers a line to every person cook
    min_step_s: float = 0.0  # wall-clock seconds a step lasts at least (people cook beside the cooks)

    def step(self, t: int) -> Decision:
        """Play step t; returns the dispatcher's decision. MindpyError when the world cannot be read."""
        seen = self.begin(t)
        decision = self.dispatcher.decide(seen.state)
        self.finish(seen, decision)
        return decision

    def begin(self, t: int) -> StepStart:
        """Step t's first half: the book moves to the step, the ended commands are read, the farm restocked and
        the kitchen read into the dispatcher's state (the people told the open orders)."""
        began = time.monotonic()
        before = len(self.book.events)
        self.book.step(t)
        ended = self.cooks.take_ended() if self.wall_clock else self.cooks.take_due(t)
        killed = killed_animals(ended)
        if killed or any(command_name(e.command) == "collectBlocks" for e in ended):
            self.restock(killed)
        inventories = self.inventories()
        if self.wall_clock:
            doing = self.cooks.running()
        else:  # busy in game time; a command still running past its steps (overrun) keeps its cook busy too
            doing = {**self.cooks.running(), **self.cooks.busy_at(t)}
            inventories = {name: dict(self.held.get(name, items)) if name in doing else items
                           for name, items in inventories.items()}  # what it is making shows once it is done
        people = self.people()
        view = KitchenView(t, inventories, doing,
                           tuple(OpenOrder(o.id, o.dish, o.deadline) for o in self.book.open),
                           feedback=feedback_lines(ended), people=people)
        state = dispatch_state(view)
        if people:  # before the dispatcher thinks: the people cook while it does
            self.tell_people(orders_line(t, state.orders))
        return StepStart(t, began, before, ended, inventories, doing, people, state)

    def finish(self, seen: StepStart, decision: Decision) -> None:
        """Step t's second half, once the dispatcher has decided: its call logged, its commands run until due
        (or the step's cap), the serving chest emptied into the orders."""
        t, began, before, ended, inventories = seen.t, seen.began, seen.before, seen.ended, seen.inventories
        doing, people = seen.doing, seen.people
        self.replies_with_problems += bool(decision.problems)
        self.calls.write(json.dumps(call_line(decision, t), ensure_ascii=False) + "\n")
        self.calls.flush()
        started: dict[str, list] = {}
        # game steps: a step's hand-overs go first and end before the other commands start, as the paper executes
        # actions in order (a cook told to craft with the ingots a partner gives it in the same step found them
        # missing whenever the toss was slower than the craft, as under load)
        givers = [cook for cook, command in decision.commands.items() if command_name(command) == "givePlayer"]
        for cook, command in sorted(decision.commands.items(), key=lambda item: item[0] not in givers):
            if self.wall_clock:
                self.cooks.start(cook, command)
                continue
            if givers and cook not in givers:
                self.cooks.wait_for(givers, self.cap_s)
                givers = []
            busy = command_steps(command)
            started[cook] = [command, busy]
            self.held[cook] = dict(inventories.get(cook, {}))
            self.cooks.start(cook, command, t=t, steps=busy)
        if self.wall_clock:
            self.cooks.wait(self.cap_s)
            late = self.cooks.running()
        else:
            late = self.cooks.wait_due(t, self.cap_s)
            self.overruns += len(late)
        time.sleep(max(0.0, began + self.min_step_s - time.monotonic()))  # a person's time to act
        served = self.serve(t, late)
        if self.steps_log is not None:
            line = {"step": t, "events": [list(e) for e in self.book.events[before:]],
                    "busy": {cook: command for cook, command in doing.items()},
                    "ended": [[e.cook, e.command, e.ok] for e in ended], "commands": started or
                    {cook: [command, None] for cook, command in decision.commands.items()},
                    "served": served, "late": late, **({"people": people} if people else {})}
            self.steps_log.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            self.steps_log.flush()

    def serve(self, t: int, running: dict[str, str] | None = None) -> dict[str, int]:
        """Empty the serving chest: each dish completes the open order of it due first, or is wasted. Not while
        a cook's `!putInChest` still runs (`running`: cook -> command): a dish it put in between the chest's read
        and its emptying would be lost, so the chest waits for the next step."""
        if any(command_name(command) == "putInChest" for command in (running or {}).values()):
            return {}
        served = self.chest.take_all()
        for dish, count in served.items():
            for _ in range(count):
                if self.book.complete(dish, t) is None:
                    self.wasted[dish] = self.wasted.get(dish, 0) + 1
        return served


def run_orders_episode(task: Task, run_dir: str | Path, *, options: OrdersOptions | None = None,
                       **session_options: Any) -> dict:
    """Play the orders task `task` once (see the module doc) with these OrdersOptions; `session_options` are an
    EpisodeSession's (model, server, seed, progress, models, echo, budget). Returns the result, also in
    RUN_DIR/result.json."""
    from ....harness.session import EpisodeSession

    with EpisodeSession(task, run_dir, family_options={"orders": options or OrdersOptions()},
                        **session_options) as session:
        return play(session)


def play(session: Any) -> dict:
    """Play an orders episode in `session` (mindpy.harness.session). `budget` limits the dispatcher's model calls;
    once its dollars are spent the episode ends with the reason "budget" after the step under way.
    EpisodeInfraError when the server, the bots, the set-up or a reading of the world fail, or when the
    dispatcher's model endpoint cannot be used (after the step whose call found it down; result.json then ends as
    "error" with the URL and the cause)."""
    from ....harness.session import EpisodeInfraError

    task, names, say, model, models = session.task, session.names, session.say, session.model, session.models
    options: OrdersOptions = session.family_options.get("orders") or OrdersOptions()
    options = options.with_switches(session.family_options)
    stream = OrderStream.from_fields(task.fields.as_dict())
    steps = min(stream.episode_steps, options.max_steps or stream.episode_steps)
    cap_s = (options.step_cap_s or task.timeout / stream.episode_steps) if options.wall_clock \
        else options.command_limit_s
    settings = session.load_settings(base_profile="task", profile_model=False, init_message="")
    dispatcher = make_dispatcher(task, names, model, models, options.dispatcher, settings, options.player_wait_s)
    if isinstance(dispatcher, HumanDispatcher) and dispatcher.replies.player.lower() in \
            {name.lower() for name in task.usernames[:task.human_count]}:
        raise ConfigError(f"{dispatcher.replies.player} cannot both give the orders (--model human:NAME) and cook in "
                          f"one of the task's person slots (usernames)")
    temperature = temperature_of(dispatcher)  # before its model is wrapped for the budget
    if not (models and DISPATCHER_KEY in models) and not isinstance(dispatcher, HumanDispatcher):
        session.refuse_unpriced([model])  # before the server starts: an unpriced model cannot be budgeted
    console = session.open_console()
    spend = session.open_budget()
    outage = session.outage  # a dispatcher's call that finds its endpoint down ends the episode after the step
    if not isinstance(dispatcher, (OracleDispatcher, HumanDispatcher)):  # these cost nothing
        dispatcher.model = cast(ChatModel, outage.wrap(spend.wrap(dispatcher.model)))  # a ChatModel's proxy
    host, port = session.open_server()
    say(f"{task.id}: {len(names)} cooks ({', '.join(names)}) joining {host}:{port}")
    recorder = EpisodeRecorder(task, names)
    cooks = CookCommands({})  # its agents come once they have joined
    agents = start_cooks(session, settings, console, lambda name: [_event_hook(name, cooks, recorder)])
    cooks.agents.update(agents)
    bots = [agents[n].bot for n in names]
    if isinstance(dispatcher, HumanDispatcher):  # from now on: lines typed during the set-up count for step 0
        listen_to_the_player(dispatcher, bots)
    issue = session.issue_for(bots)
    setup = set_up_kitchen(session, agents, issue, session.seed)
    say(f"{task.id}: kitchen set up; {steps} steps " + (f"of at most {cap_s:g} s" if options.wall_clock else
                                                       "in game time (each command busy for its steps)"))
    if isinstance(dispatcher, HumanDispatcher):
        seat_the_player(dispatcher, bots, issue, setup.stations["serving_chest"], say)
    people = seat_the_people(task, setup, bots, issue, say)

    restock = restocker(setup, issue)
    book = OrderBook(stream, max_open=options.max_open)
    recorder.started_at = time.time()  # the play starts now
    with (session.run_dir / CALLS_FILE).open("w", encoding="utf-8") as calls, \
            (session.run_dir / STEPS_FILE).open("w", encoding="utf-8") as steps_log:
        play = OrdersPlay(book, dispatcher, cooks, lambda: {n: agents[n].bot.inventory() for n in names},
                          ServingChest(bots[0], setup.stations["serving_chest"]), restock, cap_s, calls,
                          wall_clock=options.wall_clock, steps_log=steps_log,
                          people=people.read_now if people.slots else dict,
                          tell_people=lambda line: tell_each(sorted(people.served), line, issue),
                          min_step_s=options.person_step_s if people.slots else 0.0)
        played = steps
        for t in range(steps):
            try:
                decision = play.step(t)
            except MindpyError as exc:
                raise EpisodeInfraError(f"step {t}: reading or changing the kitchen failed: {exc}") from exc
            say(f"{task.id}: step {t}: {dict(decision.commands) or 'no command'}; {book.counts()}")
            if outage.down is not None:
                played = t + 1
                break
            if spend.exceeded is not None:
                say(f"{task.id}: the model budget is spent after step {t}: the episode is cut off")
                played = t + 1
                break
    error = str(outage.down) if outage.down is not None else None
    if steps == stream.episode_steps and spend.exceeded is None and error is None:
        book.finish()
    result = orders_result(task, recorder, play, played, spend, error)
    result = session.write_result({**result, "serving_chest": list(setup.stations["serving_chest"]),
                                   "orders_rules": {**options.record(), "overruns": play.overruns,
                                                    "temperature": temperature,
                                                    "loot_rolls": family_of(task).loot_rolls,
                                                    "person_cooks": len(people.slots),
                                                    "person_step_s": options.person_step_s if people.slots
                                                    else None}})
    if error is not None:
        raise EpisodeInfraError(error)
    orders = result["orders"]
    say(f"{task.id}: {orders['completed']} of {orders['completed'] + orders['failed']} orders served "
        f"(rate {orders['completion_rate']:.3f}) in {result['duration_s']:.0f} s")
    return result


def start_cooks(session: Any, settings: Any, console: Any, event_hooks: Callable[[str], list]) -> dict[str, Any]:
    """The cooks, joined to the session's server: agents whose own model never speaks (they run the dispatcher's
    commands), deaf to players, with the modes that would walk them away on their own off. `event_hooks(name)`
    gives each cook's agent-event hooks."""
    from ....agent.runner import AgentRunner
    from ....models.replay import ReplayModel

    runner = AgentRunner(settings, session.profiles, session.host, session.port, console=console,
                         task=session.task, event_hooks=event_hooks,
                         models={n: ReplayModel([], default="") for n in session.names})
    agents = session.start_runner(runner, who="cooks")
    for agent in agents.values():
        agent.settings.hears_players = False  # the cooks take commands from the dispatcher alone
        for mode in QUIET_MODES:
            agent.modes.set_on(mode, False)
        agent.skills.runner.protect_blocks(list(KITCHEN_BLOCKS))
    return agents


def set_up_kitchen(session: Any, agents: dict[str, Any], issue: Callable[[str], Any], seed: int) -> Any:
    """Set the task's kitchen up around the cooks (`seed`: its random parts); the set-up (OrdersSetup). A failure
    is EpisodeInfraError (session.setting_up)."""
    from ....harness.episode import TASK_ORIGIN

    bots = [agents[n].bot for n in session.names]
    restore = [(agent, mode, agent.modes.get(mode).on) for agent in agents.values() for mode in SETUP_QUIET_MODES]
    for agent, mode, _ in restore:
        agent.modes.set_on(mode, False)
    try:
        with session.setting_up():
            return set_up_orders(session.task, bots, issue, origin=TASK_ORIGIN, seed=seed)
    finally:
        for agent, mode, was_on in restore:
            agent.modes.set_on(mode, was_on)


def restocker(setup: Any, issue: Callable[[str], Any]) -> Callable[[list[str]], None]:
    """OrdersPlay's `restock`: the farm refilled and the killed animals summoned back through `issue`."""
    def restock(killed: list[str]) -> None:
        for line in restock_commands(setup, killed):
            issue(line)
    return restock


def seat_the_player(dispatcher: HumanDispatcher, bots: list, issue: Callable[[str], Any],
                    chest: tuple[int, int, int], say: Callable[[str], None],
                    join_wait_s: float = PLAYER_JOIN_WAIT_S) -> None:
    """Wait for the dispatching player to be online, bring them beside the serving chest and tell them the state
    through whispers from the server. EpisodeInfraError when they do not come within `join_wait_s` seconds."""
    player = dispatcher.replies.player
    wait_to_join(bots[0], [player], "give the orders", say, join_wait_s)
    x, y, z = chest
    issue(f"/tp {player} {x + 2} {y} {z}")
    dispatcher.replies.tell = lambda line: tell_each([player], line, issue)
    say(f"{player} gives the orders in chat")


def seat_the_people(task: Task, setup: Any, bots: list, issue: Callable[[str], Any], say: Callable[[str], None],
                    join_wait_s: float = PLAYER_JOIN_WAIT_S) -> Any:
    """The task's person cooks (its reserved player slots, mindpy.harness.humans.HumanSlots), each served as it
    comes online: its slot's items, brought in front of the serving chest, told what to do (`person_goal` unless
    the task gives the slot a goal). Waits until all are online; EpisodeInfraError when one does not come within
    `join_wait_s` seconds. Returns the slots (none reserved: nothing waited for)."""
    from ....harness.humans import HumanSlots

    x, y, z = setup.stations["serving_chest"]
    humans = HumanSlots(task, setup, issue, bots[0], say, spot=(x, y, z + 1),  # its front, inside the kitchen
                        default_goal=person_goal(task, setup.agent_names))
    if humans.slots:
        wait_to_join(bots[0], list(humans.slots), "cook beside the cooks", say, join_wait_s, humans.poll)
        humans.poll()  # serves the last to come
        say(f"{task.id}: {', '.join(humans.slots)} cook beside the cooks")
    return humans


def person_goal(task: Task, cooks: list[str]) -> str:
    """What a person cooking beside the cooks is told when the task gives their slot no goal of its own."""
    recipes = "; ".join(f"{dish}: {', then '.join(lines)}" for dish, lines in task.recipes.items())
    return (f"You cook beside {', '.join(cooks)}, whom a dispatcher commands (it cannot command you). Serve the "
            f"open orders, whispered to you each step, by putting their dishes in the serving chest in front of you "
            f"before they are due." + (f" Recipes: {recipes}." if recipes else ""))


def wait_to_join(reader: Any, players: list[str], role: str, say: Callable[[str], None],
                 join_wait_s: float = PLAYER_JOIN_WAIT_S, poll: Callable[[], Any] | None = None) -> None:
    """Wait until every one of `players` is online (read through the bot `reader`), calling `poll` (if any) as
    the list is read; a line every JOIN_NOTE_EVERY_S says whom the episode waits for, so a person starting the
    run knows. EpisodeInfraError (not scored) when one has not come within `join_wait_s` seconds."""
    from ....harness.session import EpisodeInfraError
    from ....world.bulk import player_names

    waited_since = time.monotonic()
    next_note = 0.0
    while True:
        if poll is not None:
            poll()
        online = {name.lower() for name in player_names(reader)}
        missing = [player for player in players if player.lower() not in online]
        if not missing:
            return
        waited = time.monotonic() - waited_since
        if waited >= join_wait_s:
            raise EpisodeInfraError(f"{' and '.join(missing)} did not join within {join_wait_s:g} s to {role}")
        if waited >= next_note:
            say(f"waiting for {' and '.join(missing)} to join the server and {role} ({waited:.0f} s)")
            next_note += JOIN_NOTE_EVERY_S
        time.sleep(0.5)


def tell_each(players: list[str], line: str, issue: Callable[[str], Any]) -> None:
    """Whisper `line` to each player from the server, in pieces that fit one message and carry no second
    command."""
    for player in players:
        for command in tell_commands(player, line):
            issue(command)


def listen_to_the_player(dispatcher: HumanDispatcher, bots: list) -> None:
    """The dispatching player's chat (heard by the first cook) and whispers to any cook reach the dispatcher."""
    def hear(sender, text, *rest) -> None:
        dispatcher.replies.hear(str(sender), str(text))

    bots[0].on("chat", hear)
    for bot in bots:
        bot.on("whisper", hear)


def _event_hook(name: str, cooks: CookCommands, recorder: EpisodeRecorder) -> Callable[[str, str], None]:
    """A cook's agent events: failures to the running command, commands to the result's counts."""
    def hook(kind: str, text: str) -> None:
        cooks.on_event(name, kind, text)
        if kind == "command":
            recorder.record_command(name, text.split("(", 1)[0])
        elif kind == "command failed":
            recorder.record_failed_command(name, text)
    return hook


def orders_result(task: Task, recorder: EpisodeRecorder, play: OrdersPlay, steps: int,
                  spend: Budget | None = None, error: str | None = None) -> dict:
    """The episode's result: the recorder's fields with the completion rate as the score (the reason "budget" when
    `spend` ran out, "error" with `error` when the infrastructure failed), the order counts, the CoS of this α
    alone, the order events, the dispatcher's calls and the budget's spend."""
    book = play.book
    rate = completion_rate(book.events)
    counts = tally(book.events)
    alpha = float(task.fields.alpha)
    cut_off = spend is not None and spend.exceeded is not None
    extra = {"budget": spend.summary()} if spend is not None else {}
    reason = ERROR if error is not None else BUDGET_END_REASON if cut_off else TIMEOUT
    return {**recorder.on_end(rate, reason, error), **extra, "orders": {
        "level": task.fields.level, "alpha": alpha, "steps": steps, "created": book.counts()["created"],
        "completed": counts.completed, "failed": counts.failed, "open_at_end": len(book.open),
        "skipped": len(book.skipped), "wasted": dict(play.wasted), "completion_rate": rate},
        "cos": cos({alpha: rate}, alphas=None),
        "events": [list(e) for e in book.events],
        "dispatcher": dispatcher_summary(play.dispatcher, steps, play.replies_with_problems)}


def dispatcher_summary(dispatcher: Dispatcher, calls: int, refused: int) -> dict:
    """The dispatcher's model, calls, tokens and the number of replies that had a problem."""
    model = dispatcher.model
    usage = model.total_usage()
    return {"model": model.describe(), "calls": calls, "replies_with_problems": refused,
            "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}


def call_line(decision: Decision, step: int) -> dict:
    """A dispatcher call as a line of a call log (what SFT export reads: system, messages, reply), with the
    step's outcome."""
    return {"agent": DISPATCHER_KEY, "kind": CALL_KIND, "time": time.time(), "step": step,
            "system": decision.system, "messages": [{"role": "user", "content": decision.user}],
            "reply": decision.reply, "commands": dict(decision.commands), "problems": list(decision.problems),
            "command_ok": not decision.problems}
