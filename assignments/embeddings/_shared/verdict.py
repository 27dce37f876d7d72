def gradcheck_verdict(errors, bar=1e-5):
    """The line that ends a gradient check: PASS when every relative error is below the bar, else FAIL
    naming the ones above it. errors: {name: max relative error}."""
    listed = ", ".join(f"{name} {err:.1e}" for name, err in errors.items())
    unmeasured = [name for name, err in errors.items() if not np.isfinite(err)]
    if unmeasured:  # nan or inf is no measurement: the fault may be in what measured it, not in the gradient
        named = " and ".join(unmeasured)
        return (
            f"FAIL: the error of {named} is not a number (nan or inf), so it cannot be compared with the bar: what "
            "measured it failed (a relative error dividing 0 by 0, a forward that changed its input), so this says "
            f"nothing yet about {named} (measured: {listed})"
        ).replace("e-0", "e-")
    above = [name for name, err in errors.items() if not err < bar]
    if above:
        return f"FAIL: {' and '.join(above)} above the bar {bar:.0e} (measured: {listed})".replace("e-0", "e-")
    return f"PASS: {' and '.join(errors)} below the bar {bar:.0e} (measured: {listed})".replace("e-0", "e-")
