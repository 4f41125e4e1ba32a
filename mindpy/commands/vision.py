"""Vision: after !lookAtPlayer and !lookAtPosition, a bot whose profile allows it (`allow_vision: true`) takes a
first-person snapshot and has a model that reads pictures (`vision_model`, else its own) describe it; the
description is part of the command's output.

Nothing here may stop the agent: a missing browser, a view that does not draw, a model that cannot take images
or fails, each ends as one line in the output saying so, and the look itself stands.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..errors import MindpyError
from ..models.base import ModelError
from .common import CommandOutput

log = logging.getLogger(__name__)

INSTRUCTION = ("This is what you see in Minecraft right now, in first person. Describe it in at most three short "
               "sentences: the blocks, creatures and players in view, roughly where they are, and anything "
               "unusual. Say only what you see.")
MAX_DESCRIPTION = 400  # characters: the command's whole output is cut to 500 for the model


@dataclass
class Vision:
    """What an agent with vision needs: the model that reads its snapshots, and the last snapshot's timing."""

    model: Any
    size: tuple[int, int] = (512, 288)
    timings: deque[float] = field(default_factory=lambda: deque(maxlen=100))  # seconds per recent snapshot

    def look(self, bot: Any) -> str:
        """One line or a few: what the model says the bot sees, or why there is no description."""
        from ..view import BrowserMissing, snapshot

        if not getattr(self.model, "takes_images", False):
            describe = getattr(self.model, "describe", None)
            name = describe() if callable(describe) else type(self.model).__name__
            return (f"(Vision is on, but {name} cannot take images: set vision_model in the profile to a model "
                    f"that reads pictures.)")
        try:
            shot = snapshot(bot, size=self.size)
        except BrowserMissing as exc:
            return f"(Vision is on, but no picture was taken: {exc})"
        except MindpyError as exc:
            return f"(Vision is on, but the view could not be drawn: {_one_line(str(exc))})"
        except Exception as exc:  # a browser or bridge failure of any other kind must not end the command
            log.warning("vision snapshot of %s failed: %r", getattr(bot, "name", bot), exc)
            return f"(Vision is on, but the view could not be drawn: {_one_line(repr(exc))})"
        self.timings.append(shot.seconds)
        if shot.blank:
            return "(Vision is on, but the picture came out blank: nothing was drawn.)"
        try:
            reply = self.model.send_image(shot.png, INSTRUCTION)
        except ModelError as exc:
            return f"(Vision is on, but the picture could not be described: {_one_line(str(exc))})"
        except Exception as exc:
            log.warning("vision model of %s failed: %r", getattr(bot, "name", bot), exc)
            return f"(Vision is on, but the picture could not be described: {_one_line(repr(exc))})"
        text = " ".join(str(reply.text).split())
        if not text:
            return "(Vision is on, but the model described nothing.)"
        if len(text) > MAX_DESCRIPTION:
            text = text[:MAX_DESCRIPTION - 3].rstrip() + "..."
        return f"You see: {text}"


def with_vision(ctx: Any, output: CommandOutput) -> CommandOutput:
    """`output` of a look command, with what the bot sees when its agent has vision and the look worked."""
    vision = getattr(ctx, "vision", None)
    if vision is None or not output.ok:
        return output
    seen = vision.look(ctx.bot)
    return CommandOutput(f"{str(output).rstrip()}\n{seen}", output.ok)


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."
