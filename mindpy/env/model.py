"""What stands for the learning agent where mindpy's agents expect a model: an environment's agents act on the
text given to `step`, never on a model's reply, so nothing asks this model; a part that does gets an error."""

from __future__ import annotations

from ..models.base import ChatModel, ModelError, Usage


class LearnerModel(ChatModel):
    """A model that is never asked (see the module's docstring)."""

    api = "env"

    def __init__(self) -> None:
        super().__init__("learner")

    def _complete(self, messages: list, system: str) -> tuple[str, Usage]:
        raise ModelError("this agent is driven by a learning agent through mindpy.env's step(); no model answers")
