"""The round trip with an LMS: collect its downloads, the roster, grades and feedback back, Gradescope."""
