"""Training a chat model on mindpy's transcripts (`mindpy sft train`): reading an export into prompt and reply
pairs (data.py) and fine-tuning with Hugging Face TRL's SFTTrainer, the loss on the replies only (trainer.py)."""
