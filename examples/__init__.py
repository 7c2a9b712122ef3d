"""Training examples on real (and one synthetic) data; each script's main() returns its metrics."""
