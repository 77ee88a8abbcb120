"""Wake et al. prompt templates (package data): the six-turn conversation and the automatic
feedback messages. Loaded by ``groundplan.methods.wake_prompts.prompts``."""
