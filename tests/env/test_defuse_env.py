"""mindpy/defuse-v0: PettingZoo's API check, a refused reply as a lost turn, and the family's scripted team (the
`oracle` model's defuse player, answering each agent's observation) solving a task through `step`. No server: the
environment plays the family's round loop without its world."""

from __future__ import annotations

from pettingzoo.test import parallel_api_test

import mindpy.env
from mindpy.models import create_model


def test_pettingzoo_parallel_api():
    env = mindpy.env.parallel_env("mindpy/defuse-v0")
    parallel_api_test(env, num_cycles=40)
    assert env.possible_agents == ["andy", "jill", "bob"] and "mindpy/defuse-v0" in mindpy.env.ENV_IDS


def test_a_reply_that_is_no_command_is_a_lost_turn_with_its_reason():
    env = mindpy.env.parallel_env("mindpy/defuse-v0")
    observations, infos = env.reset(seed=0)
    assert observations["andy"]["round"] == 1 and "Commands you can use now" in observations["andy"]["text"]
    assert "bomb disposal team" in infos["andy"]["system"]
    observations, rewards, terminated, truncated, infos = env.step({"andy": "I think we should split up.",
                                                                     "jill": "!goToRoom(99)", "bob": "!wait"})
    assert infos["andy"]["valid"] is False and "no command" in infos["andy"]["feedback"]
    assert infos["jill"]["valid"] is False and "Room 99" in infos["jill"]["feedback"]
    assert infos["andy"]["feedback"] in observations["andy"]["text"]  # the next prompt says why
    assert rewards == {"andy": 0.0, "jill": 0.0, "bob": 0.0} and observations["andy"]["round"] == 2
    assert not any(terminated.values()) and not any(truncated.values())


def test_the_scripted_team_solves_a_task_through_step():
    env = mindpy.env.parallel_env("mindpy/defuse-v0")
    observations, infos = env.reset(seed=1)
    systems = {name: info["system"] for name, info in infos.items()}
    team = {name: create_model("oracle") for name in env.possible_agents}
    total, rounds = 0.0, 0
    while env.agents:
        replies = {name: team[name].send([{"role": "user", "content": observations[name]["text"]}],
                                         systems[name]).text for name in env.agents}
        observations, rewards, terminated, truncated, infos = env.step(replies)
        total += rewards["andy"]
        rounds += 1
    assert all(terminated.values()) and not any(truncated.values())
    assert infos["andy"]["end"] == "success" and infos["andy"]["points"] == 90 and abs(total - 1.0) < 1e-9
    assert rounds < 30
