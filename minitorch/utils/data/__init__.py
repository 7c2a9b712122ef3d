"""Datasets and loaders."""
