"""mindpy's own task families, one package each (mindpy.tasks.family registers them by name).

A family's package holds everything of that kind of task: `FAMILY` (its Family object) in `__init__.py`, its task
fields, generator, world set-up and checker; `play.py` plays an episode of it where the family plays in its own
way (a run: it may use mindpy.harness), `oracle.py` the scripted player's plan for it.
"""
