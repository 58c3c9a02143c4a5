"""Uncertainty signals computed from model traces (lexical now; algorithmic and functional later)."""
