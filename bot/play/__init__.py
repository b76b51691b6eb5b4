"""Plumbing every game shares: registry, lobby, the locked load-apply-save loop, deadlines, components."""
