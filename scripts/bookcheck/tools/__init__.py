"""tools stage."""
