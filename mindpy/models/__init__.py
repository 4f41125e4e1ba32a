"""Chat models: one interface (`ChatModel.send`), a registry of providers, a spec parser, and a run-wide budget.

    from mindpy.models import create_model
    model = create_model("gpt-4o-mini")            # or "claude-3-5-sonnet-latest", "gemini-2.0-flash", "openai/gpt-4o",
                                                   # {"api": "vllm", ...}, "replay:x.yaml"
    reply = model.send([{"role": "user", "content": "hi"}], system="You are ...")
    reply.text, reply.usage.prompt_tokens, reply.usage.latency_s
    model = shared_budget("runs/x", BudgetLimits(max_usd=5)).wrap(model)   # BudgetExceeded once $5 is spent
"""

from .base import ChatModel, ModelError, ModelUnreachable, Reply, Usage, strip_thinking
from .budget import BudgetExceeded, BudgetLimits, release_budget, shared_budget
from .registry import ModelSpec, available_apis, create_model, missing_key, parse_model_spec, register_provider

__all__ = ["ChatModel", "ModelError", "ModelUnreachable", "Reply", "Usage", "strip_thinking", "ModelSpec",
           "available_apis", "create_model", "missing_key", "parse_model_spec", "register_provider",
           "BudgetExceeded", "BudgetLimits", "release_budget", "shared_budget"]
