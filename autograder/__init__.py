"""Autograder kit for the "Positional Encoding & Embeddings" nbgrader assignment.

Data flows one way: assignments/ (jupytext sources) -> source/ -> release/ -> submitted/
-> autograded/ -> feedback/ and reports/.  Hidden tests in the notebooks call
``autograder.hidden``; everything they need lives in this package.
"""

ASSIGNMENT = "embeddings"
NOTEBOOKS = (
    "01_why_position",
    "02_token_embeddings",
    "03_sinusoidal",
    "04_learned_positions",
    "05_embedding_layer",
)
