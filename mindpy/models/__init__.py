"""Chat models: one interface (`ChatModel.send`), a registry of providers, and a spec parser.

    from mindpy.models import create_model
    model = create_model("gpt-4o-mini")            # or "openai/gpt-4o", {"api": "vllm", ...}, "replay:x.yaml"
    reply = model.send([{"role": "user", "content": "hi"}], system="You are ...")
    reply.text, reply.usage.prompt_tokens, reply.usage.latency_s
"""

from .base import ChatModel, ModelError, Reply, Usage, strip_thinking
from .registry import ModelSpec, available_apis, create_model, parse_model_spec, register_provider

__all__ = ["ChatModel", "ModelError", "Reply", "Usage", "strip_thinking", "ModelSpec", "available_apis",
           "create_model", "parse_model_spec", "register_provider"]
