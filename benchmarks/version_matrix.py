"""What works at each Minecraft version of the embedded server: for every version, a server of that version, two
bots, and the project's skills (give, craft in the grid and at a table, dig and pick up, place, smelt, a chest, eat,
hunt a cow, sleep, give to another player); prints a Markdown table (the README's) and one line per failure.

    python benchmarks/version_matrix.py                       # every version the embedded server lists
    python benchmarks/version_matrix.py --versions 1.20.4,1.21.1
"""

from __future__ import annotations

import argparse
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from mindpy.bridge import create_bots
from mindpy.server import EmbeddedServer
from mindpy.server.versions import embedded_versions
from mindpy.skills import Skills
from mindpy.world.bulk import entity_counts

# sleep comes last: the night passes once every player sleeps, so the partner leaves before it
CHECKS = ["join", "give", "craft", "table", "dig", "place", "smelt", "chest", "eat", "hunt", "to player", "sleep"]


def wait(predicate: Callable[[], object], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def block_at(bot, x: int, y: int, z: int) -> str | None:
    block = bot.js.blockAt(bot.js.entity.position.floored().set(x, y, z))
    return block.name if block is not None else None


def play_checks(bot, partner, report: Callable[[str, bool, str], None]) -> None:
    """Run CHECKS after "join" with `bot` (and `partner` for giving), each reported as it ends."""
    skills = Skills(bot)
    bot.js.look(0, 0, True)  # the server finishes the login on the first look
    partner.js.look(0, 0, True)
    time.sleep(0.3)
    x, y, z = (int(v // 1) for v in bot.position)
    have = bot.inventory

    def check(name: str, step: Callable[[], bool]) -> None:
        try:
            ok = bool(step())
            report(name, ok, "" if ok else skills.take_log()[-200:])
        except Exception as exc:  # one broken mechanic must not hide the others
            report(name, False, f"{type(exc).__name__}: {exc}"[:200])
        skills.take_log()

    def give() -> bool:
        bot.command(f"/give {bot.name} oak_log 3")
        return wait(lambda: have().get("oak_log") == 3)

    def craft() -> bool:
        return skills.craft_recipe("oak_planks", 2) and wait(lambda: have().get("oak_planks") == 8)

    def table() -> bool:
        bot.command(f"/give {bot.name} crafting_table 1")
        bot.command(f"/give {bot.name} stick 2")
        wait(lambda: have().get("stick") == 2 and have().get("crafting_table") == 1)
        return skills.craft_recipe("wooden_pickaxe", 1) and wait(lambda: have().get("wooden_pickaxe") == 1)

    def dig() -> bool:
        bot.command(f"/setblock {x + 3} {y} {z + 3} oak_log")
        wait(lambda: block_at(bot, x + 3, y, z + 3) == "oak_log")
        before = have().get("oak_log", 0)
        return skills.collect_blocks("oak_log", 1) and wait(lambda: have().get("oak_log", 0) == before + 1)

    def place() -> bool:
        bot.command(f"/give {bot.name} cobblestone 1")
        wait(lambda: have().get("cobblestone") == 1)
        px, py, pz = (int(v // 1) for v in bot.position)
        return skills.place_block("cobblestone", px + 2, py, pz) and wait(
            lambda: block_at(bot, px + 2, py, pz) == "cobblestone")

    def smelt() -> bool:
        bot.command(f"/give {bot.name} raw_iron 1")
        bot.command(f"/give {bot.name} coal 1")
        bot.command(f"/give {bot.name} furnace 1")
        wait(lambda: have().get("raw_iron") and have().get("coal") and have().get("furnace"))
        return skills.smelt_item("raw_iron", 1) and have().get("iron_ingot") == 1

    def chest() -> bool:
        px, py, pz = (int(v // 1) for v in bot.position)
        bot.command(f"/setblock {px} {py} {pz - 2} chest")
        wait(lambda: block_at(bot, px, py, pz - 2) == "chest")
        bot.command(f"/give {bot.name} dirt 5")
        wait(lambda: have().get("dirt") == 5)
        return (skills.put_in_chest("dirt", 5) and not have().get("dirt")
                and skills.take_from_chest("dirt", 5) and have().get("dirt") == 5)

    def eat() -> bool:
        bot.command(f"/mindpy_hunger {bot.name} 10")
        wait(lambda: bot.js.food == 10)
        bot.command(f"/give {bot.name} bread 1")
        wait(lambda: have().get("bread") == 1)
        return skills.consume("bread") and wait(lambda: bot.js.food > 10)

    def hunt() -> bool:
        px, py, pz = (int(v // 1) for v in bot.position)
        bot.command(f"/give {bot.name} diamond_sword 1")
        bot.command(f"/summon cow {px + 3} {py} {pz}")
        wait(lambda: have().get("diamond_sword") == 1 and entity_counts(bot, ["cow"], px, pz, 16).get("cow"))
        return skills.attack("cow", True) and wait(lambda: have().get("beef") or have().get("leather"))

    def sleep() -> bool:
        partner.close()
        px, py, pz = (int(v // 1) for v in bot.position)
        bot.command(f"/setblock {px + 2} {py} {pz + 2} red_bed[facing=south,part=foot]")
        bot.command(f"/setblock {px + 2} {py} {pz + 3} red_bed[facing=south,part=head]")
        bot.command("/time set 13000")
        wait(lambda: block_at(bot, px + 2, py, pz + 3) == "red_bed" and bot.js.time.timeOfDay >= 13000)
        return skills.go_to_bed()

    def to_player() -> bool:
        bot.command(f"/give {bot.name} apple 2")
        px, py, pz = bot.position
        bot.command(f"/tp {partner.name} {px + 3} {py} {pz}")
        wait(lambda: have().get("apple") == 2 and abs(partner.position[0] - px - 3) < 1)
        return skills.give_to_player(partner.name, "apple", 2) and wait(lambda: partner.inventory().get("apple") == 2)

    steps = {"give": give, "craft": craft, "table": table, "dig": dig, "place": place, "smelt": smelt,
             "chest": chest, "eat": eat, "hunt": hunt, "sleep": sleep, "to player": to_player}
    for name in CHECKS[1:]:
        check(name, steps[name])


def check_version(version: str, folder: Path, say: Callable[[str], None]) -> dict[str, tuple[bool, str]]:
    results: dict[str, tuple[bool, str]] = {}

    def report(name: str, ok: bool, why: str) -> None:
        results[name] = (ok, why)
        say(f"  {version} {name}: {'ok' if ok else 'FAIL ' + why}")

    started = time.monotonic()
    with EmbeddedServer(version=version, run_dir=folder / version, options={"smeltSpeed": 20}) as server:
        try:
            bot, partner = create_bots([f"tester{version.replace('.', '')}", "partner"], server.host, server.port,
                                       version=version)
        except Exception as exc:
            report("join", False, f"{type(exc).__name__}: {exc}"[:200])
            return results
        ground = block_at(bot, int(bot.position[0] // 1), int(bot.position[1] // 1) - 1, int(bot.position[2] // 1))
        report("join", ground == "grass_block" and int(bot.position[1] // 1) == -60,
               f"stands at y={bot.position[1]:.0f} on {ground}")
        try:
            play_checks(bot, partner, report)
        except Exception:
            say(traceback.format_exc())
        finally:
            bot.close()
            partner.close()
        errors = [line for line in server.log_path.read_text(errors="replace").splitlines()
                  if "ERROR" in line or "uncaught" in line]
        if errors:
            say(f"  {version}: {len(errors)} error lines in the server log, the first: {errors[0][:200]}")
    say(f"{version}: {sum(ok for ok, _ in results.values())}/{len(CHECKS)} in {time.monotonic() - started:.0f} s")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", default=None, help="comma-separated (default: every embedded version)")
    args = parser.parse_args()
    versions = args.versions.split(",") if args.versions else embedded_versions()
    table = {}
    with tempfile.TemporaryDirectory(prefix="mindpy-versions-") as tmp:
        for version in versions:
            table[version] = check_version(version, Path(tmp), lambda line: print(line, flush=True))
    print("\n| version | " + " | ".join(CHECKS) + " |")
    print("| --- |" + " --- |" * len(CHECKS))
    for version, results in table.items():
        marks = ["yes" if results.get(name, (False, ""))[0] else "**no**" for name in CHECKS]
        print(f"| {version} | " + " | ".join(marks) + " |")


if __name__ == "__main__":
    main()
