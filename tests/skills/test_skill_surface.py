"""The names Python calls skills by are the names the JS side registers them under: a typo would otherwise be found
only at run time, as "unknown skill". Read from the sources: the names Python passes to `Skills._do` or a
`SkillRunner.run`, and the names each JS concern plugin gives `bot.skills.register({...})`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mindpy

PACKAGE = Path(mindpy.__file__).resolve().parent
REGISTER = re.compile(r"bot\.skills\.register\(\{(.*?)\}\)", re.S)


def python_skill_names(folder: Path = PACKAGE) -> dict[str, str]:
    """Skill name -> where Python first calls it (`x._do("name", ...)`, `x.runner.run("name", ...)`)."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                continue
            callee = node.func
            by_runner = callee.attr == "run" and isinstance(callee.value, ast.Attribute) and \
                callee.value.attr == "runner"
            if callee.attr == "_do" or by_runner:
                found.setdefault(node.args[0].value, f"{path.name}:{node.lineno}")
    return found


def js_skill_names(folder: Path = PACKAGE / "skills" / "js") -> set[str]:
    """Every name a concern plugin registers (`bot.skills.register({ a, b: fn })`)."""
    names: set[str] = set()
    for path in sorted(folder.glob("*.js")):
        for body in REGISTER.findall(path.read_text(encoding="utf-8")):
            for entry in body.split(","):
                name = entry.split(":")[0].strip()
                if name:
                    names.add(name)
    return names


def surface_problems(called: dict[str, str], registered: set[str]) -> list[str]:
    """One line per name Python calls that JS does not register, and per JS skill nothing in Python calls."""
    missing = [f"{name} (called at {where}) is no JS skill" for name, where in sorted(called.items())
               if name not in registered]
    unused = [f"{name} is a JS skill Python never calls" for name in sorted(registered - set(called))]
    return missing + unused


def test_python_and_js_name_the_same_skills():
    called, registered = python_skill_names(), js_skill_names()
    assert len(called) >= 30 and len(registered) >= 30  # the readers found the surface, not nothing
    assert surface_problems(called, registered) == []


def test_a_misspelt_skill_name_is_reported(tmp_path):
    (tmp_path / "api.py").write_text("class S:\n    def f(self):\n        return self._do('goToPlayr', 'x')\n")
    (tmp_path / "movement.js").write_text("bot.skills.register({ goToPlayer, stay: async () => true })\n")
    problems = surface_problems(python_skill_names(tmp_path), js_skill_names(tmp_path))
    assert problems == ["goToPlayr (called at api.py:3) is no JS skill", "goToPlayer is a JS skill Python never calls",
                        "stay is a JS skill Python never calls"]
