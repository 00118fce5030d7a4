"""A distributed trainer in standard-library Python (see ../README.md)."""
