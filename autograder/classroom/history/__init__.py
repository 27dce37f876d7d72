"""Every grade run kept, and what a regrade changed: ``runs``, ``diff`` and the end-of-run summary."""
