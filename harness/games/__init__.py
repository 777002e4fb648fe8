"""Pure game rules: what the regulations say happens for a given sequence of cards."""
