"""Similar submissions: compared across the class and past years, the page and the command."""
