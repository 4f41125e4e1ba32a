"""Crafting plans: recipe choice, counts, cycles, the crafting table, inventory, the text, craftable items."""

from __future__ import annotations

import pytest

from mindpy.recipes import CraftingPlan, craftable, crafting_plan_text, plan, recipe_book


@pytest.fixture(scope="module")
def book():
    return recipe_book()


def steps(p: CraftingPlan) -> list[tuple[str, int]]:
    return [(s.item, s.crafts) for s in p.steps]


def check_feasible(p: CraftingPlan, inventory: dict, table_nearby: bool = False) -> None:
    """Running the steps in order on inventory + missing never lacks an ingredient (nor a crafting table) and
    ends with the target."""
    have = dict(inventory)
    for name, n in p.missing.items():
        have[name] = have.get(name, 0) + n
    start_target = have.get(p.target, 0)
    for step in p.steps:
        for name, n in step.inputs.items():
            assert have.get(name, 0) >= n, f"{step.text()}: only {have.get(name, 0)} {name}"
            have[name] -= n
        have[step.item] = have.get(step.item, 0) + step.produces
        for container, n in step.recipe.returns():
            have[container] = have.get(container, 0) + n * step.crafts
        if step.recipe.needs_table:
            assert table_nearby or have.get("crafting_table", 0) >= 1, step.text()
    assert have.get(p.target, 0) - start_target >= p.count


def test_wooden_pickaxe_from_nothing(book):
    p = book.plan("wooden_pickaxe", 1, {})
    assert p.missing == {"oak_log": 3}
    assert steps(p) == [("oak_planks", 3), ("crafting_table", 1), ("stick", 1), ("wooden_pickaxe", 1)]
    assert p.needs_crafting_table and p.depth == 3 and p.base_resources == {"oak_log": 3}
    check_feasible(p, {})


def test_wooden_pickaxe_from_logs_with_a_table(book):
    inventory = {"oak_log": 2, "crafting_table": 1}
    p = book.plan("wooden_pickaxe", 1, inventory)
    assert p.complete and p.missing == {}
    assert steps(p) == [("oak_planks", 2), ("stick", 1), ("wooden_pickaxe", 1)]  # 8 planks: 3 + 2 for sticks
    assert p.leftover == {"oak_planks": 3, "stick": 2}
    assert p.from_inventory == {"oak_log": 2}
    check_feasible(p, inventory)


def test_table_nearby_is_not_crafted(book):
    p = book.plan("wooden_pickaxe", 1, {}, table_available=True)
    assert "crafting_table" not in dict(steps(p)) and p.missing == {"oak_log": 2} and p.needs_crafting_table


def test_other_wood_in_inventory_is_used(book):
    p = book.plan("wooden_pickaxe", 1, {"birch_log": 1})
    assert p.from_inventory == {"birch_log": 1} and sum(p.missing.values()) == 2
    p = book.plan("wooden_pickaxe", 1, {"birch_log": 3})
    assert p.complete and ("birch_planks", 3) in steps(p)
    p = book.plan("stick", 4, {"spruce_planks": 2})
    assert p.complete and steps(p) == [("stick", 1)] and p.from_inventory == {"spruce_planks": 2}


def test_plain_recipes_preferred(book):
    assert book.plan("stick", 4, {}).missing == {"oak_log": 1}  # not bamboo
    assert book.plan("furnace", 1, {}, table_available=True).missing == {"cobblestone": 8}
    assert book.plan("stone_pickaxe", 1, {"cobblestone": 3, "stick": 2}, table_available=True).complete
    assert book.plan("torch", 4, {}).missing == {"oak_log": 1, "coal": 1}  # not charcoal
    assert book.plan("painting", 1, {}).missing == {"oak_log": 2, "string": 4}  # not black wool
    assert book.plan("wooden_pickaxe", 1, {"bamboo": 1}).missing == {"oak_log": 3}  # one bamboo does not help


def test_bookshelf_like_the_paper(book):
    inventory = {"oak_planks": 4, "book": 2, "dirt": 1}
    p = book.plan("bookshelf", 1, inventory, table_available=True)
    assert p.missing == {"oak_log": 1, "sugar_cane": 3, "rabbit_hide": 4}
    assert [s.text() for s in p.steps] == [
        "Craft 1 oak_log -> 4 oak_planks",
        "Craft 3 sugar_cane -> 3 paper",
        "Craft 4 rabbit_hide -> 1 leather",
        "Craft 3 paper + 1 leather -> 1 book",
        "Craft 6 oak_planks + 3 book -> 1 bookshelf",
    ]
    text = p.text()
    assert text.startswith("You are missing the following items:\n- 1 oak_log\n")
    assert "Once you have these items, here's your crafting plan:" in text
    check_feasible(p, inventory, table_nearby=True)


def test_cake(book):
    p = book.plan("cake", 1, {})
    assert p.missing == {"milk_bucket": 3, "sugar_cane": 2, "egg": 1, "wheat": 3, "oak_log": 1}
    assert ("sugar", 2) in steps(p) and p.leftover.get("bucket") == 3
    assert p.depth == 2
    check_feasible(p, {})


def test_bread_with_partial_inventory(book):
    inventory = {"wheat": 4, "crafting_table": 1}
    p = book.plan("bread", 2, inventory)
    assert p.missing == {"wheat": 2} and steps(p) == [("bread", 2)]
    assert p.base_resources == {"wheat": 6} and p.from_inventory == {"wheat": 4}
    full = book.plan("bread", 2, {"wheat": 9, "crafting_table": 1})
    assert full.complete and full.text().startswith("You have everything needed for 2 bread.")


def test_result_counts(book):
    p = book.plan("oak_planks", 5, {})
    assert steps(p) == [("oak_planks", 2)] and p.missing == {"oak_log": 2} and p.leftover == {"oak_planks": 3}
    assert p.steps[0].text() == "Craft 2 oak_log -> 8 oak_planks (the recipe used 2 times)"
    p = book.plan("torch", 8, {"coal": 2, "stick": 2})
    assert p.complete and steps(p) == [("torch", 2)]


def test_shared_ingredient_crafted_once(book):
    p = book.plan("wooden_pickaxe", 1, {"crafting_table": 1})
    planks = [s for s in p.steps if s.item == "oak_planks"]
    assert len(planks) == 1 and planks[0].produces >= 5  # 3 for the head, 2 for the sticks


def test_cycles_ingots_and_blocks(book):
    assert book.is_base("iron_ingot") and book.is_base("iron_nugget") and book.is_base("wheat")
    assert not book.is_base("iron_block") and not book.is_base("hay_block")
    p = book.plan("iron_block", 1, {"crafting_table": 1})
    assert p.missing == {"iron_ingot": 9} and steps(p) == [("iron_block", 1)]
    assert "- 9 iron_ingot (smelt raw_iron; or craft 9 from 1 iron_block)" in p.text()
    p = book.plan("iron_ingot", 9, {"iron_block": 1})  # a reverse recipe, from what is held
    assert p.complete and steps(p) == [("iron_ingot", 1)]
    p = book.plan("iron_ingot", 9, {})
    assert not p.craftable and p.missing == {"iron_ingot": 9}
    assert "no crafting recipe" in p.text() and "smelt raw_iron" in p.text()


def test_reverse_recipe_hint(book):
    p = book.plan("lantern", 1, {"torch": 1, "crafting_table": 1})
    assert p.missing == {"iron_nugget": 8}
    assert "or craft 9 from 1 iron_ingot" in p.text()
    p = book.plan("lantern", 1, {"torch": 1, "crafting_table": 1, "iron_ingot": 1})
    assert p.complete and steps(p) == [("iron_nugget", 1), ("lantern", 1)]


def test_every_item_plans_and_is_feasible(book):
    for item in sorted(book.data.items_by_name):
        p = book.plan(item, 2, {})
        if p.craftable:
            assert p.steps and p.steps[-1].item == item, item
            check_feasible(p, {})
        else:
            assert p.missing == {item: 2} and not p.steps


def test_depth_and_raw_materials(book):
    assert book.depth("oak_planks") == 1 and book.depth("stick") == 2 and book.depth("wooden_pickaxe") == 3
    assert book.depth("oak_log") == 0
    assert book.raw_materials("bookshelf") == {"oak_log": 2, "sugar_cane": 9, "rabbit_hide": 12}


def test_crafting_table_used_as_ingredient_and_to_craft_on(book):
    p = book.plan("crafter", 1, {"crafting_table": 1, "iron_ingot": 5, "redstone": 3, "cobblestone": 7, "bow": 1})
    assert p.missing == {"oak_log": 1} and ("crafting_table", 1) in steps(p)
    p = book.plan("crafter", 1, {"crafting_table": 2, "iron_ingot": 5, "redstone": 3, "cobblestone": 7, "bow": 1})
    assert p.complete and "crafting_table" not in dict(steps(p))


def test_crafting_table_is_needed_only_for_big_recipes(book):
    assert not book.plan("oak_planks", 4, {}).needs_crafting_table
    assert not book.plan("crafting_table", 1, {}).needs_crafting_table
    assert book.plan("chest", 1, {}).needs_crafting_table


def test_inventory_names_cleaned(book):
    p = book.plan("stick", 4, {"minecraft:oak_planks": 2, "junk": -3})
    assert p.complete


def test_plan_errors(book):
    with pytest.raises(ValueError):
        book.plan("not_an_item", 1, {})
    with pytest.raises(ValueError):
        book.plan("stick", 0, {})


def test_module_functions():
    assert plan("stick", 4, {"oak_planks": 2}).complete
    assert "Craft 2 oak_planks -> 4 stick" in crafting_plan_text("stick", 4, {"oak_planks": 2})


def test_craftable(book):
    now = {c.item: c for c in craftable({"oak_log": 2})}
    assert now["oak_planks"].count == 8 and now["oak_planks"].times == 2
    assert "crafting_table" not in now  # needs planks first
    with_planks = {c.item for c in book.craftable({"oak_planks": 4})}
    assert {"crafting_table", "stick", "oak_button"} <= with_planks
    assert "oak_door" not in with_planks  # needs a table
    assert "oak_door" not in {c.item for c in book.craftable({"oak_planks": 6})}
    assert "oak_door" in {c.item for c in book.craftable({"oak_planks": 6}, table_available=True)}
    assert "oak_door" in {c.item for c in book.craftable({"oak_planks": 6, "crafting_table": 1})}
    assert "iron_ingot" in {c.item for c in book.craftable({"iron_block": 1})}
    assert book.craftable_text({}) == "You cannot craft anything with your inventory."
    assert book.craftable_text({"oak_log": 1}).startswith("CRAFTABLE_ITEMS\n- oak_planks (up to 4)")


# ---- property: any inventory gives a plan that works --------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TARGETS = ["wooden_pickaxe", "stone_pickaxe", "bookshelf", "cake", "bread", "torch", "chest", "furnace", "compass",
            "lantern", "piston", "iron_block", "golden_apple", "painting", "white_bed", "crafter", "beacon"]
_STUFF = ["oak_log", "birch_log", "oak_planks", "birch_planks", "stick", "cobblestone", "iron_ingot", "iron_block",
          "iron_nugget", "coal", "redstone", "wheat", "hay_block", "sugar_cane", "sugar", "paper", "book", "leather",
          "string", "white_wool", "crafting_table", "torch", "gold_ingot", "egg", "milk_bucket", "bamboo"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(_TARGETS), st.integers(1, 5),
       st.dictionaries(st.sampled_from(_STUFF), st.integers(0, 20), max_size=8), st.booleans())
def test_plans_work_from_any_inventory(target, count, inventory, table_nearby):
    p = recipe_book().plan(target, count, inventory, table_available=table_nearby)
    assert p.craftable and p.steps[-1].item == target
    check_feasible(p, {k: v for k, v in inventory.items() if v > 0}, table_nearby=table_nearby)
    for name, n in p.missing.items():
        assert n > 0 and recipe_book().is_base(name) or name in ("iron_nugget",)
    # with the missing items added, nothing is missing any more
    topped = dict(inventory)
    for name, n in p.missing.items():
        topped[name] = topped.get(name, 0) + n
    assert recipe_book().plan(target, count, topped, table_available=table_nearby).missing == {}
