"""Prompt templates, one package per method (``groundplan.prompts.<method>``), each following
its paper's figures; package data, never long strings in code."""
