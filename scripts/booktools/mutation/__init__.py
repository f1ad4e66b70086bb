"""Mutation testing of the book's invariants: `python -m booktools.mutation`."""
