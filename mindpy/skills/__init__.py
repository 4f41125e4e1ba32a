"""The skills library: what a bot can do (JS side in js/, one call per skill; Python API in api.py)."""

from .api import Skills
from .runner import SkillResult, SkillRunner

__all__ = ["Skills", "SkillResult", "SkillRunner"]
