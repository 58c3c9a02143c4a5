"""How well an assessment's signals tell failing code from passing code: the right/wrong pairs, the
data they are built from, and the signals tried on them."""
