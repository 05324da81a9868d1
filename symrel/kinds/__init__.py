"""One module per model kind: each registers, in one :class:`~symrel.model_kinds.ModelKind`
record, its file-format reader and writer, its lowering, the prover's symbolic execution,
its description in a claim and in ``symrel info``, its maxout form and its exact trace.

The table itself is :mod:`symrel.model_kinds` (at the bottom floor, so that the file format,
the lowering, the region enumeration and the prover can look a kind up); the package root
names this package there, and a kind's module is imported the first time its kind is
asked for. Adding a model kind (docs/kinds.md): a model class in :mod:`symrel.models` (or
anywhere, with a ``kind`` attribute), and one module here named after the kind. The
certificate checker keeps its own table (:mod:`symrel.checking`), on purpose.

>>> from symrel.model_kinds import names
>>> names()
('cpwl', 'cpwl1d', 'layered', 'maxout', 'relu', 'transformer')
"""
