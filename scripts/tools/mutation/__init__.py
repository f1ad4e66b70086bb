"""Mutation testing of the book's invariants: `python -m scripts.tools.mutation`."""
