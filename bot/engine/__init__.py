"""Pure rules engine for every game: no Discord, no I/O, randomness injected by the caller."""
