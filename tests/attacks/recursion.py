import sys
sys.setrecursionlimit(10 ** 7)


def _down(n):
    return _down(n + 1) + 1


_down(0)
