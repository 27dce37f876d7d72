@contextmanager
def self_check(name):
    """Run one self-check quietly. Whatever stops it is told as a diagnosis: a stub not filled in yet, or an exception
    from your code (with which axis or which sizes disagree, where NumPy names them), never a bare traceback."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            yield
        except NotImplementedError:
            raise Diagnosis("not-implemented",
                            f"{name}: not implemented yet. Fill in its stub above, run that cell, then this one.") from None
        except Diagnosis:
            raise
        except Exception as crash:
            raise Diagnosis("crashed", explain(crash, f"{name}: your code")) from None
    print(f"self-check passed: {name}")
