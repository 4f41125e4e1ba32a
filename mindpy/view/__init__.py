"""The bots' 3D view and what the bots see: the system browser (`browser.py`), prismarine-viewer pages of a bot
(`viewer.py`) and first-person snapshots (`snapshot.py`)."""
