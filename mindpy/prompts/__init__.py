"""Prompt texts (defaults.yaml) and the prompter that fills their placeholders."""

from .prompter import PLACEHOLDERS, Prompt, Prompter, SystemPrompt, default_prompts, format_turns

__all__ = ["PLACEHOLDERS", "Prompt", "Prompter", "SystemPrompt", "default_prompts", "format_turns"]
