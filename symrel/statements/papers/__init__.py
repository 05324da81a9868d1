"""The shipped proof scripts: one per statement of Papers A and B (run by ``symrel proofs``).

Each module defines ``STATEMENT`` and ``run()`` (see :mod:`symrel.statements.scripts`)
and runs on its own with ``python -m symrel.statements.papers.<name>``.
"""
