"""Static checks on generated code, before anything runs.

The code must compile, import only allow-listed modules, stay away from the interpreter's internals (dunder
names, private attributes, frame and code attributes, dynamic code and attribute access), and call only names
that exist: the API (`skills.x`, `world.x`), the safe builtins, or what the code itself defines. Each refusal
says where, what, and how to fix it, in words the model can act on.

Every syntax that names an attribute goes through the same rule (`attribute_problem`): `obj.attr`, keyword
patterns of `match` class patterns (`case str(format=f)` reads `.format`), the fields of format templates
(`"{0.__class__}"`, also inside f-string format specs), and constant names given to `getattr`-like calls.

These checks are the first of the sandbox's layers, not the only one (see docs/sandbox.md).
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
import string
from collections.abc import Collection
from dataclasses import dataclass, field

from .api import EXTRA_GLOBALS, SAFE_BUILTINS, Member, allowed_modules, cached_members, plain_signature

MAX_CODE_CHARS = 20_000
MAX_PROBLEMS = 5
NAMESPACES = ("skills", "world")

# Names that are refused wherever they appear, with the advice given to the model.
FORBIDDEN_NAMES: dict[str, str] = {
    **dict.fromkeys(("exec", "eval", "compile"),
                    "Running code built at runtime is not allowed; write the code directly."),
    **dict.fromkeys(("getattr", "setattr", "delattr", "hasattr", "vars", "dir"),
                    "Attribute access by name is not allowed; write obj.attribute directly."),
    **dict.fromkeys(("globals", "locals", "type", "super", "object", "id", "memoryview", "bytearray",
                     "classmethod", "staticmethod", "property"),
                    "Interpreter internals are not available; use plain values, lists, dicts and functions."),
    "open": "Files are not available; use the world.* queries and skills.* actions.",
    **dict.fromkeys(("input", "breakpoint", "help", "exit", "quit"),
                    "There is no console; use print() to report and return from functions to stop."),
}

# Attributes that lead from an ordinary object to frames, code and globals (escape routes out of the
# restricted namespace), and string formatting that walks attributes by name.
FORBIDDEN_ATTRS = {"format": "Use f-strings instead of str.format.",
                   "format_map": "Use f-strings instead of str.format_map.",
                   "mro": "Class internals are not available."}
FORBIDDEN_ATTR_PREFIXES = ("f_", "gi_", "cr_", "ag_", "tb_", "co_", "func_", "im_")
# Calls that read, write or call an attribute named by a string: the names given as constants are checked
# like `obj.attr` (the builtins among them are refused anyway; this names the attribute in the refusal).
ATTRIBUTE_BY_NAME_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr", "attrgetter", "methodcaller"})
DUNDER_STRING = re.compile(r"__\w+__")
# `.name` and `[key]` steps after the first name of a format field ("0.__class__[x]").
FORMAT_FIELD_STEP = re.compile(r"\.([^.\[]*)|\[([^\]]*)\]")


@dataclass
class Problem:
    """A static-check finding: the line, what is wrong and how to fix it."""
    line: int
    what: str
    fix: str = ""

    def __str__(self) -> str:
        return f"Line {self.line}: {self.what}" + (f" {self.fix}" if self.fix else "")


@dataclass
class CheckResult:
    """The problems the static checks found in a piece of code (none means it may run)."""
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        """The refusal as the model reads it (empty when the code passed)."""
        if self.ok:
            return ""
        lines = [f"- {p}" for p in self.problems[:MAX_PROBLEMS]]
        more = len(self.problems) - MAX_PROBLEMS
        if more > 0:
            lines.append(f"- ...and {more} more.")
        return "The code was not run because it failed the checks:\n" + "\n".join(lines)


def _suggest(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" Did you mean {close[0]}?" if close else ""


def _is_dunder_like(name: str) -> bool:
    return name.startswith("__")


def attribute_problem(attr: str) -> tuple[str, str] | None:
    """Why reading the attribute `attr` is refused, as (what, fix), or None when it is allowed."""
    if attr.startswith("_"):
        return (f"the attribute .{attr} is not allowed (private and internal attributes are off-limits).",
                "Use public attributes and functions only.")
    if attr in FORBIDDEN_ATTRS:
        return f"the attribute .{attr} is not allowed.", FORBIDDEN_ATTRS[attr]
    if attr.startswith(FORBIDDEN_ATTR_PREFIXES):
        return (f"the attribute .{attr} is not allowed (frame, code and function internals are off-limits).",
                "Use plain values and functions.")
    return None


def format_lookups(template: str) -> list[tuple[str, str]]:
    """The lookups the format fields of `template` would make, as ('.', attribute) or ('[', key) pairs,
    including fields nested in format specs ("{0:{1.x}}"). Empty for text that is not a valid template."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return []  # str.format would refuse it too
    lookups = []
    for _literal, field_name, spec, _conversion in fields:
        for step in FORMAT_FIELD_STEP.finditer(field_name or ""):
            lookups.append((".", step.group(1)) if step.group(1) is not None else ("[", step.group(2)))
        if spec:
            lookups.extend(format_lookups(spec))
    return lookups


def _bound_names(node: ast.AST) -> list[str]:
    """The names a definition, a parameter, `except ... as`, a `match` capture or global/nonlocal binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    return []


def _called_name(func: ast.expr) -> str:
    """`f` for `f(...)` and `m.f(...)`, else ''."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


class _Checker(ast.NodeVisitor):
    def __init__(self, members: dict[str, dict[str, Member]], modules: dict[str, tuple[str, ...]],
                 extra_names: Collection[str] = ()):
        self.members = members
        self.modules = modules
        self.extra_names = set(extra_names)  # the agent's saved skills, callable by name (mindpy.coding.library)
        self.problems: list[Problem] = []
        self.defined: set[str] = set()
        self.module_aliases: dict[str, str] = {}  # local name -> allowed module it refers to

    def add(self, node: ast.AST, what: str, fix: str = "") -> None:
        problem = Problem(getattr(node, "lineno", 0), what, fix)
        if not any(str(p) == str(problem) for p in self.problems):
            self.problems.append(problem)

    # ---- pass 1: what the code defines -------------------------------------------------------------
    def collect_definitions(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.defined.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    self.defined.add(alias.asname or alias.name.split(".")[0])
            else:
                self.defined.update(_bound_names(node))

    def known_names(self) -> set[str]:
        return set(SAFE_BUILTINS) | set(EXTRA_GLOBALS) | set(NAMESPACES) | self.extra_names | self.defined

    # ---- pass 2: the rules ----------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self._check_module(node, alias.name):
                self.module_aliases[alias.asname or alias.name] = alias.name
            self._check_identifier(node, alias.asname)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add(node, "relative imports are not allowed.", self._allowed_modules_hint())
            return
        if not self._check_module(node, node.module or ""):
            return
        offered = self.modules[node.module or ""]
        for alias in node.names:
            if alias.name == "*":
                self.add(node, f"'from {node.module} import *' is not allowed.", "Import the names you use.")
            elif alias.name not in offered:
                self.add(node, f"{node.module}.{alias.name} is not available.",
                         f"Available from {node.module}: {', '.join(offered)}.")
            elif alias.name.startswith("_"):
                self.add(node, f"{node.module}.{alias.name} is private.", "Use the public names.")
            self._check_identifier(node, alias.asname)

    def _allowed_modules_hint(self) -> str:
        return f"Allowed modules: {', '.join(self.modules)}."

    def _check_module(self, node: ast.AST, name: str) -> bool:
        if name in self.modules:
            return True
        root = name.split(".")[0]
        if root in self.modules:
            self.add(node, f"importing {name} is not allowed (only the module {root} itself).",
                     self._allowed_modules_hint())
        else:
            self.add(node, f"importing {name} is not allowed: generated code has no access to the system, files "
                           f"or network.", self._allowed_modules_hint() + " Use skills.* and world.* for the game.")
        return False

    def _check_identifier(self, node: ast.AST, name: str | None) -> None:
        if name and _is_dunder_like(name):
            self.add(node, f"the name {name} is not allowed (names starting with '__' reach interpreter internals).",
                     "Choose another name.")

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if _is_dunder_like(name):
            self._check_identifier(node, name)
        elif name in FORBIDDEN_NAMES:
            self.add(node, f"{name} is not available.", FORBIDDEN_NAMES[name])
        elif isinstance(node.ctx, ast.Store) and name in NAMESPACES:
            self.add(node, f"'{name}' is the API and cannot be reassigned.", "Use another variable name.")
        elif isinstance(node.ctx, ast.Load) and name not in self.known_names():
            self.add(node, f"the name {name} is not defined.", self._name_hint(name))

    def _name_hint(self, name: str) -> str:
        for ns in NAMESPACES:
            if name in self.members[ns]:
                return f"Did you mean {ns}.{name}?"
        if name in self.modules:
            return f"Add 'import {name}' first."
        hint = _suggest(name, self.known_names() - set(NAMESPACES))
        if hint:
            return hint.strip()
        return "Use skills.*, world.*, print, safe builtins, or names your code defines."

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        problem = attribute_problem(attr)
        if problem:
            self.add(node, *problem)
        elif isinstance(node.ctx, (ast.Store, ast.Del)):
            # replacing a method of a library object (Counter.most_common) runs the code's function wherever
            # that object is used, also where the code did not call it
            self.add(node, f"changing the attribute .{attr} of an object is not allowed.",
                     "Keep values in variables, lists or dicts.")
        elif isinstance(node.value, ast.Name) and node.value.id in self.module_aliases:
            self._check_module_attribute(node, self.module_aliases[node.value.id], attr)
        elif isinstance(node.value, ast.Name) and node.value.id in NAMESPACES:
            self._check_api_attribute(node, node.value.id, attr)
        self.generic_visit(node)

    def _check_module_attribute(self, node: ast.AST, module: str, attr: str) -> None:
        offered = self.modules[module]
        if attr not in offered:
            hint = _suggest(attr, offered).strip()
            self.add(node, f"{module}.{attr} is not available.",
                     (hint + " " if hint else "") + f"Available from {module}: {', '.join(offered)}.")

    def _check_api_attribute(self, node: ast.AST, ns: str, attr: str) -> None:
        if attr not in self.members[ns]:
            other = [o for o in NAMESPACES if o != ns and attr in self.members[o]]
            hint = (f"Did you mean {other[0]}.{attr}?" if other
                    else _suggest(attr, [f"{ns}.{m}" for m in self.members[ns]]).strip())
            self.add(node, f"{ns}.{attr} does not exist.", hint or f"See the docs for the {ns}.* functions.")

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case C(name=x)` reads x = subject.name: the same rule as `subject.name`
        for attr in node.kwd_attrs:
            self._check_named_attribute(node, f"the pattern {ast.unparse(node.cls)}({attr}=...)", attr)
        self.generic_visit(node)

    def _check_named_attribute(self, node: ast.AST, where: str, attr: str) -> None:
        problem = attribute_problem(attr)
        if problem:
            what, fix = problem
            self.add(node, f"{where} reads an attribute: {what}", fix)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str):
            return
        text = node.value
        if DUNDER_STRING.fullmatch(text):
            self.add(node, f"the string {text!r} names an interpreter internal.",
                     "Use public attributes and functions only.")
        where = f"the format field in {text[:60]!r}"
        for kind, name in format_lookups(text):
            if kind == ".":
                self._check_named_attribute(node, where, name)
            elif DUNDER_STRING.fullmatch(name):
                self.add(node, f"{where} reads the key {name!r}, an interpreter internal.",
                         "Use public attributes and functions only.")

    def _check_attribute_names(self, node: ast.Call) -> None:
        """getattr(x, 'name'), operator.attrgetter('a.b'), methodcaller('name'): check the constant names."""
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                where = f"{_called_name(node.func)}(..., {arg.value!r})"
                for attr in arg.value.split("."):
                    self._check_named_attribute(node, where, attr)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in NAMESPACES
                and func.attr in self.members[func.value.id]):
            self._check_arguments(node, self.members[func.value.id][func.attr])
        if _called_name(func) in ATTRIBUTE_BY_NAME_CALLS:
            self._check_attribute_names(node)
        for kw in node.keywords:
            self._check_identifier(node, kw.arg)
        self.generic_visit(node)

    def _check_arguments(self, node: ast.Call, member: Member) -> None:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return  # *args / **kwargs: the count is only known at run time
        try:
            keywords = {k.arg: None for k in node.keywords if k.arg is not None}
            member.signature.bind(*([None] * len(node.args)), **keywords)
        except TypeError as exc:
            self.add(node, f"wrong arguments for {member.qualname}: {exc}.",
                     f"Call it as {member.qualname}{plain_signature(member)}.")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._check_identifier(node, node.name)
        if node.name in NAMESPACES:
            self.add(node, f"'{node.name}' is the API and cannot be redefined.", "Use another function name.")
        self.generic_visit(node)

    def _check_bound_names(self, node: ast.AST) -> None:
        # parameters are visited too: their annotations are evaluated when the function is defined
        for name in _bound_names(node):
            self._check_identifier(node, name)
        self.generic_visit(node)

    visit_arg = visit_ExceptHandler = visit_MatchAs = visit_MatchStar = visit_MatchMapping = _check_bound_names
    visit_Global = visit_Nonlocal = _check_bound_names

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.add(node, "class definitions are not supported.", "Use functions, dicts and lists instead.")

    def _synchronous(self, node: ast.AST) -> None:
        self.add(node, "async/await is not used here: the API is synchronous.",
                 "Call skills.* and world.* functions directly, without await or async def.")

    visit_AsyncFunctionDef = visit_Await = visit_AsyncFor = visit_AsyncWith = _synchronous


@functools.lru_cache(maxsize=1)
def _resolved_modules() -> dict[str, tuple[str, ...]]:
    return {name: tuple(names) for name, names in allowed_modules().items()}


def check_code(code: str, members: dict[str, dict[str, Member]] | None = None,
               modules: dict[str, tuple[str, ...]] | None = None, extra_names: Collection[str] = ()) -> CheckResult:
    """Check `code` against the API; `members`/`modules` default to the real skills API and allow-list.
    `extra_names`: more names the code may call (the agent's saved skills)."""
    members = members if members is not None else cached_members()
    modules = modules if modules is not None else _resolved_modules()
    result = CheckResult()
    if not code.strip():
        result.problems.append(Problem(1, "the code is empty.", "Write Python code in a ```python block."))
        return result
    if len(code) > MAX_CODE_CHARS:
        result.problems.append(Problem(1, f"the code is {len(code)} characters long (limit {MAX_CODE_CHARS}).",
                                       "Write shorter code: use loops and functions."))
        return result
    try:
        tree = ast.parse(code, filename="<generated>")
    except SyntaxError as exc:
        result.problems.append(_syntax_problem(exc))
        return result
    except (RecursionError, MemoryError, ValueError) as exc:
        result.problems.append(Problem(1, f"the code could not be parsed ({type(exc).__name__}).",
                                       "Write simpler, less deeply nested code."))
        return result
    checker = _Checker(members, modules, extra_names)
    try:
        checker.collect_definitions(tree)
        checker.visit(tree)
    except RecursionError:
        checker.problems.append(Problem(1, "the code is too deeply nested to check.", "Write flatter code."))
    result.problems = sorted(checker.problems, key=lambda p: p.line)
    if result.ok:
        try:  # the compiler finds what the parser lets through ('return' outside a function...)
            compile(tree, "<generated>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            result.problems.append(_syntax_problem(exc))
        except (RecursionError, MemoryError, ValueError) as exc:
            result.problems.append(Problem(1, f"the code could not be compiled ({type(exc).__name__}).",
                                           "Write simpler code."))
    return result


def _syntax_problem(exc: SyntaxError) -> Problem:
    text = (exc.text or "").strip()
    where = f" near: {text}" if text else ""
    return Problem(exc.lineno or 1, f"syntax error: {exc.msg}{where}.",
                   "Fix the syntax; the code must be valid Python 3.")
