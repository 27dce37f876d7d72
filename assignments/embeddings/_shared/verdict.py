def gradcheck_verdict(errors, bar=1e-5):
    """The line that ends a gradient check: PASS when every relative error is below the bar, else FAIL
    naming the ones above it. errors: {name: max relative error}."""
    listed = ", ".join(f"{name} {err:.1e}" for name, err in errors.items())
    above = [name for name, err in errors.items() if not err < bar]
    if above:
        return f"FAIL: {' and '.join(above)} above the bar {bar:.0e} (measured: {listed})".replace("e-0", "e-")
    return f"PASS: {' and '.join(errors)} below the bar {bar:.0e} (measured: {listed})".replace("e-0", "e-")
