"""Code generation for `!newAction`: the model writes Python against the skills API, run in a sandbox.

- api.py       what generated code can use (skills, world queries, modules, builtins); `bind_api(skills)`
- checker.py   static checks before anything runs
- api_docs.py  the API docs for the prompt, and the choice of the most relevant ones
- sandbox.py   `run_code`: a separate, limited process; API calls come back over a pipe
- child.py     that process's entry point (standard library only)
- generator.py the attempt loop (`Coder.new_action`) and who may use it (`CodingPolicy`)
- library/     the skill library: code that worked, saved per agent, shown in later prompts, callable by name
"""

from .api import CodeApi, bind_api
from .api_docs import ApiDoc, build_docs, docs_text, relevant_docs
from .checker import CheckResult, check_code
from .generator import Coder, CodingOutcome, CodingPolicy, extract_code, model_asker
from .sandbox import Limits, RunResult, run_code

__all__ = ["ApiDoc", "CheckResult", "CodeApi", "Coder", "CodingOutcome", "CodingPolicy", "Limits", "RunResult",
           "bind_api", "build_docs", "check_code", "docs_text", "extract_code", "model_asker", "relevant_docs",
           "run_code"]
