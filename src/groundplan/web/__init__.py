"""The web console (``groundplan serve``): watch a plan being made and executed, browse
benchmark results. The top layer beside ``cli``: it imports everything below it and nothing
imports it."""
