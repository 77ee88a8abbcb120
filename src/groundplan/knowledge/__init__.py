"""What the planner knows about object classes: the affordance catalogue, object-affordance
maps (shipped, LLM-generated, inferred for unknown classes), object-affordance detection."""
