"""``python -m symrel.cli``: the command line."""

from . import run

if __name__ == "__main__":
    run()
