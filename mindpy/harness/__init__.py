"""The task harness: play episodes (`episode`), suites of them (`evaluate`), and turn runs into SFT data (`sft`)."""
