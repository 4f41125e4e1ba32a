"""The options of one episode cross to its process (or Ray worker) as one JSON object: every field comes back as
it was, and anything else is refused in one line."""

import pytest

from mindpy.errors import ConfigError
from mindpy.harness.options import EpisodeOptions
from mindpy.harness.rounds import RoundOptions
from mindpy.models.budget import BudgetLimits
from mindpy.models.prices import Price


def test_every_option_comes_back_from_its_json():
    options = EpisodeOptions(model="oracle", server="localhost:25566", seed=3,
                             rounds=RoundOptions(limit=12, message_is_action=False),
                             profile_options={"reflection": True, "tom_probes": True},
                             budget=BudgetLimits(30.0, 1e5, 0.25, Price(3.0, 15.0, 0.3)),
                             team={"andy": "replay:a.yaml", "1": "oracle"}, cache="/tmp/responses")
    assert EpisodeOptions.from_json(options.to_json()) == options
    assert EpisodeOptions.from_json(EpisodeOptions().to_json()) == EpisodeOptions()


@pytest.mark.parametrize("text, words", [
    ('{"model": "oracle", "roundz": 3}', "unknown option(s) ['roundz']"),
    ('[1, 2]', "expected a JSON object"),
    ('{"rounds": {"limit": 0}}', "round limit must be a whole number"),
    ('{"budget": {"max_usd": -1}}', "max_usd"),
    ('{"seed": "x"}', "invalid literal"),
    ("{not json", "Expecting property name"),
])
def test_anything_else_is_refused_in_one_line(text, words):
    with pytest.raises(ConfigError) as caught:
        EpisodeOptions.from_json(text)
    message = str(caught.value)
    assert message.startswith("episode options: ") and words in message and "\n" not in message
