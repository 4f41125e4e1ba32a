"""The skill library: code from `!newAction` that worked, kept per agent and offered to the code it writes later.

After Voyager (Wang et al., 2023): code that ran without error and was followed by progress is saved as a named
skill; the next coding prompt shows the saved skills most like the request, and the new code may call them by name.

- naming.py    a skill's function name and description, made from the request
- files.py     one skill as a readable file (`<name>.py`: a header of `# key: value` lines, then the code)
- store.py     `SkillLibrary`: the folder `bots/<name>/skills/`, loading, saving, the index, retrieval
- progress.py  `SkillRecorder`: which runs count as followed by progress, and so are saved
"""

from .files import SavedSkill
from .progress import SkillRecorder
from .store import SkillLibrary

__all__ = ["SavedSkill", "SkillLibrary", "SkillRecorder"]
