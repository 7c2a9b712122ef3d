"""Neural-network building blocks (see issue: nn)."""
