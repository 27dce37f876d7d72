@contextmanager
def self_check(name):
    """Run one self-check quietly. Whatever stops it is told as a diagnosis: a stub not filled in yet, or an exception
    from your code (with which axis or which sizes disagree, where NumPy names them), never a bare traceback."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            yield
        except NotImplementedError:
            raise Diagnosis(
                "not-implemented", f"{name}: not implemented yet. Fill in its stub above, run that cell, then this one."
            ) from None
        except Diagnosis:
            raise
        except Exception as crash:
            inside = _raised_in(crash)
            if inside and inside not in name:
                # a function this check only calls (softmax under self_attention) crashed: point at it, in the same
                # words for every check that calls it
                raise Diagnosis(
                    "crashed",
                    (
                        f"{inside} raised {type(crash).__name__}, reached through the code this check runs: the line to "
                        f"change is in {inside}.\n{explain(crash, f'{inside}: your code')}"
                    ),
                ) from None
            raise Diagnosis("crashed", explain(crash, f"{name}: your code")) from None
    print(f"self-check passed: {name}")


def _raised_in(crash):
    """The innermost function of the notebook's own code (not NumPy's, not Python's) that the exception passed
    through, as "softmax" or "EmbeddingLayer.backward"; None when there is none."""
    import sys

    libraries = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})
    inside, tb = None, crash.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        name = getattr(code, "co_qualname", code.co_name)
        if not code.co_filename.startswith(libraries) and not name.startswith("<") and name != "self_check":
            inside = name
        tb = tb.tb_next
    return inside
