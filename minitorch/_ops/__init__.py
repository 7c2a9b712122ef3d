"""The built-in ops, each a Primitive with forward and backward side by side."""
